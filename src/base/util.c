/* util.c — errors and allocation helpers. */
#define _GNU_SOURCE /* sched_getcpu(), pthread_attr_setaffinity_np() */
#include "fusediff/util.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"

/* From this size on, xrealloc() moves a block onto huge pages. */
#define BIG_BLOCK ((size_t)4 << 20)

void fd_error_set(struct fd_error *err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof err->msg) { /* keep both ends: the reason is at the end */
		char *full;
		size_t len, head = sizeof err->msg / 2 - 4, tail;

		va_start(ap, fmt);
		full = xvasprintf(fmt, ap);
		va_end(ap);
		len = strlen(full);
		tail = sizeof err->msg - head - 4;
		while (head && ((unsigned char)full[head] & 0xc0) == 0x80)
			head--; /* never inside a UTF-8 sequence */
		while (tail && ((unsigned char)full[len - tail] & 0xc0) == 0x80)
			tail--;
		memcpy(err->msg, full, head);
		memcpy(err->msg + head, "...", 3);
		memcpy(err->msg + head + 3, full + len - tail, tail);
		err->msg[head + 3 + tail] = '\0';
		free(full);
	}
}

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("fusediff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q;

	if (n >= BIG_BLOCK && (!p || malloc_usable_size(p) < n)) {
		/* a large array grows: into a fresh block on huge pages (big_alloc()), the old
		 * one copied and freed. realloc() would copy into small pages, a page fault each
		 * 4 KiB, before any advice could be given (with the stash's chunks, 28,000 of
		 * the 1 GB trace's 37,000 faults; a fault is about as costly as reading a few
		 * thousand bytes of JSON) */
		size_t old = p ? malloc_usable_size(p) : 0;

		q = big_alloc(n, 1);
		if (old)
			memcpy(q, p, old);
		free(p);
		return q;
	}
	q = realloc(p, n ? n : 1);
	if (!q)
		die("out of memory (%zu bytes)", n);
	return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die("allocation overflow (%zu x %zu bytes)", n, size);
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list copy;
	char buf[256], *p;
	int n;

	/* formatted once where it fits the stack buffer (most texts): printf is the cost */
	va_copy(copy, ap);
	n = vsnprintf(buf, sizeof buf, fmt, copy);
	va_end(copy);
	if (n < 0)
		die("bad format string");
	p = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof buf)
		memcpy(p, buf, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

#ifdef CPU_SET
/* A thread started on the other cores, which lets itself onto all of them again first. */
struct thread_boot {
	void *(*fn)(void *);
	void *arg;
	cpu_set_t all;
};

static void *thread_boot(void *p)
{
	struct thread_boot b = *(struct thread_boot *)p;

	free(p);
	(void)pthread_setaffinity_np(pthread_self(), sizeof b.all, &b.all);
	return b.fn(b.arg);
}
#endif

int thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
#ifdef CPU_SET
	cpu_set_t all;
	int cpu = sched_getcpu();

	if (cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof all, &all) == 0 &&
	    CPU_ISSET(cpu, &all) && CPU_COUNT(&all) > 1) {
		struct thread_boot *b = xmalloc(sizeof *b);
		cpu_set_t other = all;
		pthread_attr_t attr;
		int rc = -1;

		CPU_CLR(cpu, &other);
		*b = (struct thread_boot){ fn, arg, all };
		if (pthread_attr_init(&attr) == 0) {
			if (pthread_attr_setaffinity_np(&attr, sizeof other, &other) == 0)
				rc = pthread_create(th, &attr, thread_boot, b);
			pthread_attr_destroy(&attr);
		}
		if (rc == 0)
			return 0;
		free(b);
	}
#endif
	return pthread_create(th, NULL, fn, arg);
}

void run_both(void *(*fn)(void *), void *arg0, void *arg1)
{
	pthread_t th;
	int threaded = thread_start(&th, fn, arg1) == 0;

	fn(arg0);
	if (threaded)
		pthread_join(th, NULL);
	else
		fn(arg1);
}

struct two_job {
	void (*fn)(void *arg, int i);
	void *arg;
	int i;
};

static void *two_job(void *arg)
{
	struct two_job *j = arg;

	j->fn(j->arg, j->i);
	return NULL;
}

void run_two(void (*fn)(void *arg, int i), void *arg)
{
	struct two_job j[2] = { { fn, arg, 0 }, { fn, arg, 1 } };

	run_both(two_job, &j[0], &j[1]);
}
