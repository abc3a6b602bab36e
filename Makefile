# fusediff — hand-written top-level Makefile.
#
# On a fresh clone `make` gets from nothing to a binary: build-aux/deps.sh installs
# missing Debian packages when run as root (or prints the command to run), autoconf
# writes ./configure, and ./configure writes config.mk and config.h.
#
#   make            build ./fusediff
#   make run        build and open the bundled example traces
#   make check      build and run every test
#   make sanitize   the test suite built and run with -fsanitize=address,undefined
#   make valgrind   the unit tests under valgrind (leaks and invalid accesses are errors)
#   make screenshots  screenshots/*.txt and *.png of the explorer on the examples
#   make fuzz       libFuzzer targets (clang, ASan/UBSan) in build-fuzz; see tests/fuzz/README.md
#   make install    install into $(DESTDIR)$(PREFIX) (default /usr/local); make uninstall
#   make clean      remove build outputs; make distclean also removes configure's outputs

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
B ?= build

# Goals that must work before (or without) configure.
NOCONFIG_GOALS := clean distclean
ifneq ($(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
include config.mk
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith \
	-Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers
FD_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -pthread $(WARN) \
	-Iinclude -I. $(CJSON_CFLAGS) $(ZLIB_CFLAGS) $(ISAL_CFLAGS) $(SQLITE_CFLAGS) $(NETTLE_CFLAGS) $(CONFIG_CFLAGS) $(EXTRA_CFLAGS)
FD_LDFLAGS := -pthread $(EXTRA_LDFLAGS) $(LDFLAGS)
MODEL_LIBS := $(CJSON_LIBS) $(ZLIB_LIBS) $(ISAL_LIBS) $(SQLITE_LIBS) $(NETTLE_LIBS) $(DEMANGLE_LIBS) $(CONFIG_LIBS) -lm
UI_LIBS := $(NCURSES_LIBS)

# The pipeline's stages, in order (tests/sh/layering.sh checks that includes only go down):
# the curses-free model library, then the UI library, then the program.
MODEL_STAGES := base input trace readers efficiency classify structure compare session report
MODEL_SRC := $(sort $(wildcard $(MODEL_STAGES:%=src/%/*.c)))
UI_SRC := $(sort $(wildcard src/ui/*.c src/ui/views/*.c))
APP_SRC := $(sort $(wildcard src/app/*.c))
TEST_SRC := $(sort $(wildcard tests/check_*.c))
MODEL_OBJ := $(MODEL_SRC:%.c=$(B)/%.o)
UI_OBJ := $(UI_SRC:%.c=$(B)/%.o)
APP_OBJ := $(APP_SRC:%.c=$(B)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
# The benchmarks' C programs (bench/*.sh run them), linked like the program so that their link
# line cannot fall behind the libraries'; built with the tests, smoke-run by tests/sh/bench.sh.
BENCH_SRC := bench/analysis_bench.c bench/classify_bench.c bench/one_name_one_class.c bench/tui_bench.c
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
MODEL_LIB := $(B)/libfusediff.a
UI_LIB := $(if $(UI_OBJ),$(B)/libfusediff-ui.a)
PROG := $(B)/fusediff

EXAMPLE_A := examples/llama8l_eager_sdpa.json.gz
EXAMPLE_B := examples/llama8l_compiled_sdpa.json.gz

.SECONDARY:
.PHONY: all run check sanitize valgrind install uninstall clean distclean tests build-all-cores
.DEFAULT_GOAL := all
NPROC := $(shell nproc 2>/dev/null || echo 2)
CHECK_JOBS = $(shell echo $$(($(NPROC) + 1)))

# `make` and `make run` build on every core: the top-level make builds the program through a
# sub-make, given -j$(NPROC) unless the caller gave a -j of its own (make 4.3 shows it in
# MAKEFLAGS only inside a recipe). configure runs first, in the top-level make.
all: $(if $(filter 0,$(MAKELEVEL)),build-all-cores,fusediff)

build-all-cores:
	@case " $(MAKEFLAGS)" in *" -j"*) j= ;; *) j=-j$(NPROC) ;; esac; \
		$(MAKE) --no-print-directory $$j fusediff

fusediff: $(PROG)
	cp $(PROG) $@

# --- configuration -----------------------------------------------------------
configure config.h.in &: configure.ac
	sh build-aux/deps.sh build
	autoconf
	autoheader
	@touch $@

config.mk config.h &: configure config.h.in config.mk.in
	sh build-aux/deps.sh build
	./configure -q
	@touch config.mk config.h

# --- compilation ---------------------------------------------------------------
$(B)/src/ui/%.o: src/ui/%.c config.mk
	@mkdir -p $(@D)
	$(CC) $(FD_CFLAGS) $(NCURSES_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/%.o: %.c config.mk
	@mkdir -p $(@D)
	$(CC) $(FD_CFLAGS) -MMD -MP -c -o $@ $<

$(MODEL_LIB): $(MODEL_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(UI_LIB): $(UI_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(PROG): $(APP_OBJ) $(UI_LIB) $(MODEL_LIB)
	$(CC) $(FD_LDFLAGS) -o $@ $(APP_OBJ) $(UI_LIB) $(MODEL_LIB) $(UI_LIBS) $(MODEL_LIBS)

# The test and benchmark programs are linked by gold where the compiler has it: half the CPU of
# the default ld.bfd (0.2 s against 0.4 s a program here).
# (asked on first use, once: not at every make invocation, ten a make check, 40 ms each)
TEST_LD = $(eval TEST_LD := $(shell $(CC) -fuse-ld=gold -Wl,--version >/dev/null 2>&1 && \
	echo -fuse-ld=gold))$(TEST_LD)

# The unit-test suites are one program, $(B)/tests/suites, linked once (33 links of their own cost
# 5.7 s of CPU with gold): each suite's object with its main renamed NAME_main (tests/suite_main.h,
# a function-like macro; objcopy afterwards cost 33 processes), and a
# generated table that runs the suite its name says; $(B)/tests/check_NAME is a link to it, run
# as before (make check-check_ui, FUSEDIFF_VALGRIND=1, gdb).
SUITE_NAMES := $(TEST_SRC:tests/%.c=%)
SUITE_OBJ := $(SUITE_NAMES:%=$(B)/tests/%.suite.o)

# (rewritten only when the list of suites changes)
$(B)/tests/suites.c: FORCE
	@mkdir -p $(@D)
	@sh tests/make-suites.sh $(SUITE_NAMES) >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(B)/tests/suites: $(B)/tests/suites.c $(SUITE_OBJ) $(UI_LIB) $(MODEL_LIB)
	$(CC) $(TEST_LD) $(FD_CFLAGS) $(TEST_OPT) $(FD_LDFLAGS) -o $@ $< $(SUITE_OBJ) $(UI_LIB) \
		$(MODEL_LIB) $(UI_LIBS) $(MODEL_LIBS) $(CHECK_LIBS)

$(TEST_BIN): $(B)/tests/%: $(B)/tests/suites
	ln -sf suites $@

$(B)/bench/%: bench/%.c $(UI_LIB) $(MODEL_LIB) config.mk
	@mkdir -p $(@D)
	$(CC) $(TEST_LD) $(FD_CFLAGS) $(NCURSES_CFLAGS) -MMD -MP $(FD_LDFLAGS) -o $@ $< $(UI_LIB) \
		$(MODEL_LIB) $(UI_LIBS) $(MODEL_LIBS)

# The tests' own code is compiled without optimisation (-O0 after configure's -O2, unless the
# caller gives a level: make sanitize's -O1): what they test is the libraries, built as the
# program is; gcc -O2 cost 40 s of CPU for the 32 suites, four times -O0's.
TEST_OPT := $(if $(filter -O%,$(EXTRA_CFLAGS)),,-O0)
$(SUITE_OBJ): $(B)/tests/%.suite.o: tests/%.c config.mk
	@mkdir -p $(@D)
	$(CC) $(FD_CFLAGS) $(TEST_OPT) $(CHECK_CFLAGS) -Itests -DSUITE_MAIN=$*_main \
		-include tests/suite_main.h -MMD -MP -c -o $@ $<

# The JSON Schema of the report, compiled into the program (--print-schema) as a C string.
$(B)/src/app/report_schema.inc: src/app/report.schema.json
	@mkdir -p $(@D)
	sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< >$@

$(B)/src/app/report_schema.o: $(B)/src/app/report_schema.inc
$(B)/src/app/report_schema.o: FD_CFLAGS += -I$(B)/src/app

-include $(wildcard $(B)/src/*/*.d $(B)/src/*/*/*.d $(B)/tests/*.d $(B)/bench/*.d)

# --- running -------------------------------------------------------------------
run: all
	./fusediff $(EXAMPLE_A) $(EXAMPLE_B)

# make bench [BENCH_ARGS="--reps 5 --size 1G --big 4G"]: bench/bench.py, then the explorer's
# keys (bench/tui-keys.sh); see bench/README.md
# make format: every C file as clang-format leaves it (tests/sh/format.sh checks it)
.PHONY: format
format:
	clang-format -i $$(find src include tests bench -name '*.[ch]' ! -path 'tests/data/*')

.PHONY: bench
bench: $(PROG) $(BENCH_BIN)
	python3 bench/bench.py --fusediff $(PROG) $(BENCH_ARGS)
	FUSEDIFF=$(CURDIR)/$(PROG) sh bench/tui-keys.sh

# make bench-loader [LOADER_ARGS="--rounds 5 --base OTHER_FUSEDIFF"]: the loader against its
# anchors (simdjson On-Demand, zlib inflate(), gzip -dc, cat, json.load); see bench/README.md
.PHONY: bench-loader
bench-loader: $(PROG)
	python3 bench/loader.py --fusediff $(PROG) $(LOADER_ARGS)

# make screenshots: screenshots/*.txt and *.png from real runs in tmux (installs aha and
# wkhtmltopdf with apt-get when root); see screenshots/shoot.sh
.PHONY: screenshots
screenshots: $(PROG)
	sh screenshots/shoot.sh $(PROG)

# --- tests -----------------------------------------------------------------------
# Every test is its own target, check-NAME (make check-ui_golden, make check-check_ui), which
# writes $(B)/results/NAME through tests/run-one.sh (a time limit, default signal dispositions);
# make check runs them all in parallel, one job per core and one more (CHECK_JOBS: the tmux
# tests spend most of their wall time waiting on their panes; on the 2-core VM -j3 took make
# check from 55.9 to 47.8 s wall, the CPU the same), and tests/summary.sh prints the
# failures and one line: N passed, N failed, N skipped. The Check library is needed for the
# tests only: make check installs it when it can (build-aux/deps.sh test) and reconfigures.
SH_TESTS := $(sort $(wildcard tests/sh/*.sh))
TEST_NAMES := $(TEST_SRC:tests/%.c=%) $(SH_TESTS:tests/sh/%.sh=%)
# the longest first (wall time), so that the last job to start is a short one
SLOW_TESTS := check_hostile tmux_signals tmux_smoke bench threads hardening3 repeats schema \
	tmux_crash warnings tmux_escape
RESULTS := $(addprefix $(B)/results/,$(filter $(TEST_NAMES),$(SLOW_TESTS)) \
	$(filter-out $(SLOW_TESTS),$(TEST_NAMES)))
# python3 on PATH may be a shim (pyenv's is a bash script that forks about 100 processes: 0.5 s
# of CPU a start, 2333 processes for check_acceptance alone): the tests find $(PYBIN)/python3
# first, which runs the interpreter the shim chose, found once. It runs it with -S, its
# site-packages on PYTHONPATH instead: the same modules, without the start-up hooks of the
# site-packages' .pth files (one importing certifi cost 75 ms of the 100 ms of a start here).
PYBIN := $(B)/tests/bin
# The tests of locale independence need a locale with a decimal comma: de_DE compiled once
# here (localedef: 0.7 s of CPU each time a test compiled its own), from its LC_NUMERIC alone
# (tests/data/locale/de_DE_numeric: 0.01 s; localedef -c writes the other categories as
# POSIX's and exits 1 for their warnings), else the whole de_DE.
TEST_LOCPATH := $(B)/tests/locale
TEST_ENV = FUSEDIFF="$(CURDIR)/$(PROG)" FUSEDIFF_SRCDIR="$(CURDIR)" PATH="$(CURDIR)/$(PYBIN):$$PATH" \
	FUSEDIFF_TEST_LOCPATH="$(CURDIR)/$(TEST_LOCPATH)"
.PHONY: check-results FORCE $(TEST_NAMES:%=check-%)

$(TEST_LOCPATH)/de_DE: tests/data/locale/de_DE_numeric
	@mkdir -p $(@D)
	@localedef -c -i tests/data/locale/de_DE_numeric -f ANSI_X3.4-1968 $@ >/dev/null 2>&1; \
		[ -f $@/LC_NUMERIC ] || { rm -rf $@; localedef -i de_DE -f ISO-8859-1 $@ >/dev/null 2>&1; } || \
		rm -rf $@

$(PYBIN)/python3: Makefile
	@mkdir -p $(@D)
	@py=$$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$$py" ] && \
		sp=$$("$$py" -c 'import site; print(":".join(site.getsitepackages() + \
			[site.getusersitepackages()]))') && \
		printf '#!/bin/sh\nPYTHONPATH="%s$${PYTHONPATH:+:$$PYTHONPATH}" exec "%s" -S "$$@"\n' \
			"$$sp" "$$py" >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@ || rm -f $@.tmp

tests: $(PROG) $(TEST_BIN) $(BENCH_BIN)

# make bench-programs: the C programs of bench/ (the scripts there build what they run)
.PHONY: bench-programs
bench-programs: $(BENCH_BIN)

# (the tests' python3 is made first: deps.sh asks it for jsonschema, where PATH's python3 may be
# pyenv's shim, 0.5 s of CPU a start)
check:
	@$(MAKE) --no-print-directory $(PYBIN)/python3
	@PATH="$(CURDIR)/$(PYBIN):$$PATH" sh build-aux/deps.sh test
	@if [ "$(HAVE_CHECK)" != yes ]; then sh build-aux/deps.sh check && ./configure -q; fi
	@$(MAKE) --no-print-directory -j$(NPROC) tests
	@rm -rf $(B)/results
	@$(MAKE) --no-print-directory -k -j$(CHECK_JOBS) check-results; \
		sh tests/summary.sh $(RESULTS)

check-results: $(RESULTS)

$(TEST_NAMES:%=check-%): check-%: $(B)/results/%
	@sed 1d $<

# (exec: make's shell becomes the test's, one process fewer a test)
$(B)/results/check_%: $(B)/tests/check_% $(PROG) FORCE | $(PYBIN)/python3 $(TEST_LOCPATH)/de_DE
	@$(TEST_ENV) exec sh tests/run-one.sh $@ $<

$(B)/results/%: tests/sh/%.sh $(PROG) FORCE | $(PYBIN)/python3 $(TEST_LOCPATH)/de_DE
	@$(TEST_ENV) exec sh tests/run-one.sh $@ sh $<

sanitize:
	FUSEDIFF_SANITIZED=1 FUSEDIFF_TEST_TIMEOUT=900 $(MAKE) B=build-san \
		EXTRA_CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" check

VALGRIND_RESULTS := $(TEST_SRC:tests/%.c=$(B)/results/valgrind/%)
valgrind: tests
	@sh build-aux/deps.sh test
	@rm -rf $(B)/results/valgrind
	@FUSEDIFF_VALGRIND=1 FUSEDIFF_TEST_TIMEOUT=1800 $(MAKE) --no-print-directory -k \
		-j$(NPROC) $(VALGRIND_RESULTS); sh tests/summary.sh $(VALGRIND_RESULTS)

$(B)/results/valgrind/check_%: $(B)/tests/check_% FORCE
	@$(TEST_ENV) exec sh tests/run-one.sh $@ $<

# --- fuzzing ---------------------------------------------------------------------
include tests/fuzz/fuzz.mk

# --- installation ----------------------------------------------------------------
install: $(PROG)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 $(PROG) $(DESTDIR)$(BINDIR)/fusediff
	install -m 644 man/fusediff.1 $(DESTDIR)$(MANDIR)/fusediff.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/fusediff $(DESTDIR)$(MANDIR)/fusediff.1

clean:
	rm -rf build build-san build-fuzz fusediff

distclean: clean
	rm -rf configure config.mk config.h config.log config.status autom4te.cache
