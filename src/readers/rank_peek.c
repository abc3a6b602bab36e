/* rank_peek.c — distributedInfo.rank from the start of a trace file (rank_peek.h). */
#include "fusediff/rank_peek.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/input.h"

static const char *find(const char *p, size_t n, const char *what)
{
	size_t k = strlen(what);

	for (const char *e = p + n; (size_t)(e - p) >= k; p++) {
		p = memchr(p, what[0], (size_t)(e - p) - k + 1);
		if (!p)
			return NULL;
		if (memcmp(p, what, k) == 0)
			return p;
	}
	return NULL;
}

int trace_peek_rank(const char *path, const struct input_opts *o, int64_t *rank,
		    struct fd_error *err)
{
	struct input *in;
	char *buf;
	size_t len = 0;
	ssize_t got = 0;
	const char *p, *end;
	int found = 0;

	if (input_open_regular(&in, path, o, err) < 0) /* a file of a directory of ranks */
		return -1;
	buf = xmalloc(RANK_PEEK_BYTES);
	while (len < RANK_PEEK_BYTES &&
	       (got = input_read(in, buf + len, RANK_PEEK_BYTES - len, err)) > 0)
		len += (size_t)got;
	input_close(in);
	if (got < 0 && len == 0) {
		free(buf);
		return -1;
	}
	end = buf + len;
	for (p = buf; !found && (p = find(p, (size_t)(end - p), "\"distributedInfo\""));) {
		const char *q = p + strlen("\"distributedInfo\"");
		const char *stop = NULL;
		cJSON *root, *r;

		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
			q++;
		p = q;
		if (q >= end || *q++ != ':')
			continue;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
			q++;
		if (q >= end || *q != '{')
			continue;
		root = cJSON_ParseWithLengthOpts(q, (size_t)(end - q), &stop, 0);
		r = cJSON_GetObjectItemCaseSensitive(root, "rank");
		if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < 1e9 &&
		    r->valuedouble == floor(r->valuedouble)) {
			*rank = (int64_t)r->valuedouble;
			found = 1;
		}
		cJSON_Delete(root);
	}
	free(buf);
	return found;
}
