/* check_threads.c — thread_start(), run_both() and run_two() (util.h): the function runs with its
 * argument, and the thread may run on every core its creator may, whether or not it was
 * started on another. */
#define _GNU_SOURCE /* sched_getaffinity(), pthread_getaffinity_np() */
#include "testutil.h"

#include <pthread.h>
#include <sched.h>

#include "fusediff/util.h"

struct job {
	int in, out;
	cpu_set_t cpus; /* the thread's own, as it runs */
};

static void *work(void *arg)
{
	struct job *j = arg;

	j->out = j->in * 2;
	ck_assert_int_eq(pthread_getaffinity_np(pthread_self(), sizeof j->cpus, &j->cpus), 0);
	return j;
}

static void check_thread_start(void)
{
	struct job j = { .in = 21 };
	cpu_set_t mine;
	pthread_t th;
	void *ret;

	ck_assert_int_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
	ck_assert_int_eq(thread_start(&th, work, &j), 0);
	ck_assert_int_eq(pthread_join(th, &ret), 0);
	ck_assert_ptr_eq(ret, &j);
	ck_assert_int_eq(j.out, 42);
	ck_assert_int_eq(CPU_EQUAL(&j.cpus, &mine), 1);
}

START_TEST(test_thread_start)
{
	cpu_set_t all, one;

	check_thread_start();
	/* on one core (taskset -c N): the thread stays on it */
	ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
	check_thread_start();
	ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
}
END_TEST

START_TEST(test_run_both)
{
	struct job a = { .in = 1 }, b = { .in = 2 };

	run_both(work, &a, &b);
	ck_assert_int_eq(a.out, 2);
	ck_assert_int_eq(b.out, 4);
}
END_TEST

/* run_two(): each half gets its index and the same argument */
static void half(void *arg, int i)
{
	int *v = arg;

	v[i] = 10 * (i + 1);
}

START_TEST(test_run_two)
{
	int v[2] = { 0, 0 };

	run_two(half, v);
	ck_assert_int_eq(v[0], 10);
	ck_assert_int_eq(v[1], 20);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("threads");
	TCase *tc = tcase_create("thread_start");

	tcase_add_test(tc, test_thread_start);
	tcase_add_test(tc, test_run_both);
	tcase_add_test(tc, test_run_two);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run(suite());
}
