/* raw_hash.h — the SHA-256 of a file's raw bytes, hashed while they are read, by one thread or
 * by the threads that parse parts of it (input.c, kineto_chunks.c).
 *
 * The bytes [0, at) are hashed, in order. A read of [off, off + n) that covers `at` hashes its
 * bytes from `at` on straight from the reader's buffer (raw_hash_feed); bytes a thread read
 * ahead of `at` (another part of the file) are read again and hashed later by whichever thread
 * has nothing else to do (raw_hash_work), up to the next tracked reader, which then goes on
 * hashing what it reads. One thread hashes at a time, outside the lock: the others go on
 * reading. Internal to the loader. */
#ifndef FUSEDIFF_RAW_HASH_H
#define FUSEDIFF_RAW_HASH_H

#include <stddef.h>
#include <stdint.h>

struct raw_hash;

/* A hash of the file read through fd (borrowed: it must stay open while the hash is used;
 * pread() reads again what others read ahead) or of memory mem (borrowed), with nothing
 * hashed yet. Owned by caller: free with raw_hash_free(). */
struct raw_hash *raw_hash_new(int fd, const unsigned char *mem, size_t mem_len);
void raw_hash_free(struct raw_hash *h);

/* A reader whose position raw_hash_work() catches up to: its slot (or -1 when every slot is
 * taken: it still hashes what it reads at `at`). Released by raw_hash_untrack(). */
int raw_hash_track(struct raw_hash *h);
void raw_hash_untrack(struct raw_hash *h, int slot);

/* The reader in slot (or -1: untracked) read buf, the file's bytes [off, off + n). */
void raw_hash_feed(struct raw_hash *h, int slot, int64_t off, const void *buf, size_t n);

/* Hash one piece (up to 1 MiB) of the bytes between `at` and upto, read again; with upto < 0,
 * up to the nearest tracked reader at or ahead of `at` (or the furthest byte read, when none
 * is): a tracked reader must read on, or be untracked.
 * Returns 1 when it hashed a piece, 0 when there is nothing to do, another thread is hashing,
 * or the bytes could not be read again (the hash is then lost: raw_hash_hex fails). */
int raw_hash_work(struct raw_hash *h, int64_t upto);

/* How many bytes from the start are hashed. */
int64_t raw_hash_at(struct raw_hash *h);
/* The hash can no longer be right (bytes before `at` were never seen). */
void raw_hash_lose(struct raw_hash *h);

/* The hash of the bytes [0, len) as 64 hex digits and a NUL, when exactly those are hashed
 * (len < 0: whatever is hashed, for a reader that read every byte in order): 0; else -1 and
 * hex "". Once only. */
int raw_hash_hex(struct raw_hash *h, int64_t len, char hex[65]);

#endif
