/* cleanup.c — temporary files unlinked when a signal ends the program (cleanup.h).
 *
 * A fixed table, so that the handler needs no lock and no allocation: a slot is claimed
 * (FREE -> BUSY) by one thread, filled, then armed; the handler unlinks the armed ones. */
#include "fusediff/cleanup.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 64

enum { FREE, BUSY, ARMED };

static atomic_int state[SLOTS];
static char paths[SLOTS][PATH_MAX];

int cleanup_add(const char *path)
{
	size_t len = strlen(path);

	if (len >= PATH_MAX)
		return -1;
	for (int i = 0; i < SLOTS; i++) {
		int expect = FREE;

		if (atomic_compare_exchange_strong(&state[i], &expect, BUSY)) {
			memcpy(paths[i], path, len + 1);
			atomic_store(&state[i], ARMED);
			return i;
		}
	}
	return -1;
}

void cleanup_remove(int slot)
{
	if (slot >= 0 && slot < SLOTS)
		atomic_store(&state[slot], FREE);
}

void cleanup_run(void)
{
	for (int i = 0; i < SLOTS; i++)
		if (atomic_load(&state[i]) == ARMED)
			unlink(paths[i]);
}
