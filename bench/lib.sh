# bench/lib.sh — sourced by the benchmark scripts from the top of the checkout: sets fd (the
# program) and bin (the folder of the benchmarks' C programs, built by the Makefile like the
# tests, so that their link line is the program's). With $FUSEDIFF set (make check's smoke run,
# tests/sh/bench.sh) the program and the programs beside it are taken as built, in its folder
# (build/ or build-san/); else `make` builds them first.
if [ -n "${FUSEDIFF:-}" ]; then
	fd=$FUSEDIFF
	bin=${FUSEDIFF%/*}/bench
else
	make -s fusediff bench-programs >/dev/null
	fd=build/fusediff
	bin=build/bench
fi
