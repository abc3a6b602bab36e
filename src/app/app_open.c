/* app_open.c — the session the report and the explorer show: of two traces, or of the rank
 * to analyse of two directories of per-rank traces. */
#include "app.h"

int app_open(const struct app_opts *o, const struct session_opts *so, struct session **s,
	     struct comparison_ranks **ranks, struct fd_error *err)
{
	int dir[2] = { ranks_is_dir(o->trace[0]), ranks_is_dir(o->trace[1]) };
	*s = NULL;
	*ranks = NULL;
	if (dir[0] != dir[1]) {
		fd_error_set(err,
			     "%s is a directory and %s is not: give two traces, or two "
			     "directories of per-rank traces",
			     o->trace[dir[0] ? 0 : 1], o->trace[dir[0] ? 1 : 0]);
		return -1;
	}
	if (!dir[0]) {
		if (o->rank >= 0) {
			fd_error_set(err,
				     "--rank %lld goes with two directories of per-rank "
				     "traces",
				     (long long)o->rank);
			return -1;
		}
		return session_open(s, o->trace[0], o->trace[1], so, err);
	}
	if (ranks_build(ranks, o->trace[0], o->trace[1], o->phase, o->rank, so, err) < 0)
		return -1;
	if (app_open_rank(so, *ranks, (*ranks)->chosen, s, err) == 0)
		return 0;
	ranks_free(*ranks);
	*ranks = NULL;
	return -1;
}

int app_open_rank(const struct session_opts *so, struct comparison_ranks *r, size_t index,
		  struct session **s, struct fd_error *err)
{
	struct session_opts one = *so;
	size_t was = r->chosen;
	int asked = r->asked;

	one.ranks = r;
	r->asked = r->asked || index != r->chosen;
	r->chosen = index;
	if (session_open(s, r->r[index].path[0], r->r[index].path[1], &one, err) == 0)
		return 0;
	r->chosen = was;
	r->asked = asked;
	return -1;
}
