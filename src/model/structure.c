/* structure.c — passes, phases, layers and steps of one trace (see structure.h). */
#include "fusediff/structure.h"

#include <string.h>
#include <strings.h>

const char *phase_name(enum phase p)
{
	switch (p) {
	case PHASE_PREFILL:
		return "prefill";
	case PHASE_DECODE:
		return "decode";
	case PHASE_MIXED:
		return "mixed";
	default:
		return "all";
	}
}

int phase_from_name(const char *s)
{
	for (int p = 0; p <= PHASE_COUNT; p++)
		if (strcasecmp(s, phase_name((enum phase)p)) == 0)
			return p;
	return -1;
}
