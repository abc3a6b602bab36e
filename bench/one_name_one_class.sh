#!/bin/sh
# one_name_one_class.sh [TRACE...] — the classifier's promise over the shared trace corpus (or
# the traces given): a kernel name that decides has one class and one set of atoms in every
# trace, eager or graph-replayed, whatever launched it (bench/one_name_one_class.c). The
# repository's own traces are checked by make check (tests/check_classify.c); this covers
# ../shared/traces, and says "absent" when it is not next to the checkout.
set -eu
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
	if ! ls ../shared/traces/*.json.gz >/dev/null 2>&1; then
		echo "one_name_one_class: ../shared/traces absent: nothing checked"
		exit 0
	fi
	set -- ../shared/traces/*.json.gz ../shared/traces/*/*.json.gz ../shared/traces/*/*.sqlite*
fi
make -s fusediff >/dev/null
cfg() { sed -n "s/^$1 = //p" config.mk; }
mkdir -p build/bench
# shellcheck disable=SC2046
${CC:-$(cfg CC)} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -pthread -Iinclude \
	-o build/bench/one_name_one_class bench/one_name_one_class.c build/libfusediff.a \
	$(cfg CJSON_LIBS) $(cfg ZLIB_LIBS) $(cfg ISAL_LIBS) $(cfg SQLITE_LIBS) $(cfg NETTLE_LIBS) \
	$(cfg DEMANGLE_LIBS) -lm -pthread
export LC_ALL=C.UTF-8 XDG_CONFIG_HOME=/nonexistent
exec build/bench/one_name_one_class "$@"
