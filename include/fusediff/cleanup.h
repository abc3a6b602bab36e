/* cleanup.h — temporary files that a signal ending the program must not leave behind.
 *
 * A module that makes a named temporary file (the decompressed copy of a .sqlite.gz or of a
 * database on standard input, the temporary file of -o) registers it here while the name
 * exists; the program's handlers of the signals that end it call cleanup_run(), which unlinks
 * every registered file. A program without such handlers leaves them on a signal. */
#ifndef FUSEDIFF_CLEANUP_H
#define FUSEDIFF_CLEANUP_H

/* Register path (copied). Returns a slot for cleanup_remove(), or -1 when the table is full or
 * the path too long (then a signal leaves the file). Thread-safe. */
int cleanup_add(const char *path);
/* Forget the file of slot (after it was renamed or unlinked); -1 is ignored. Thread-safe. */
void cleanup_remove(int slot);
/* Unlink every registered file. Async-signal-safe: for signal handlers. */
void cleanup_run(void);

#endif
