#!/bin/sh
# make-suites.sh NAME... — the C source of the unit-test program (build/tests/suites, written by the
# Makefile): every suite NAME (tests/NAME.c, its main renamed NAME_main by tests/suite_main.h) in
# a table, and a main that runs the one the program's name says. build/tests/check_NAME is a
# link to it.
set -eu
echo "/* suites.c, written by tests/make-suites.sh: the unit-test suites in one program */"
echo "#include <stdio.h>"
echo "#include <string.h>"
echo
for t in "$@"; do echo "int ${t}_main(void);"; done
echo
echo "static const struct {"
echo "	const char *name;"
echo "	int (*run)(void);"
echo "} suites[] = {"
for t in "$@"; do echo "	{ \"$t\", ${t}_main },"; done
cat <<'C'
};

int main(int argc, char **argv)
{
	const char *name = argc > 0 ? argv[0] : "", *slash = strrchr(name, '/');

	if (slash)
		name = slash + 1;
	for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
		if (strcmp(name, suites[i].name) == 0)
			return suites[i].run();
	fprintf(stderr, "%s: no suite of that name: run a link named check_NAME to this program\n", name);
	return 2;
}
C
