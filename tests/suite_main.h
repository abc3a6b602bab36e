/* suite_main.h — read before each unit-test suite's own source (the Makefile's -include, with
 * SUITE_MAIN defined as NAME_main): the suite's main(void) becomes SUITE_MAIN, declared here,
 * which build/tests/suites runs for the link named NAME (tests/make-suites.sh). A function-like
 * macro: a member named main (check_structure's st->main) is left alone. */
int SUITE_MAIN(void);
#define main(v) SUITE_MAIN(v)
