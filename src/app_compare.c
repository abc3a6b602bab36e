/* app_compare.c — load two traces and compare them. */
#include "app.h"

int app_compare(const struct app_opts *o, struct comparison **out, app_progress_fn progress,
		void *user, struct fd_error *err)
{
	(void)o;
	(void)progress;
	(void)user;
	*out = NULL;
	fd_error_set(err, "comparing traces is not implemented yet");
	return -1;
}
