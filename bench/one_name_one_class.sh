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
. bench/lib.sh
export LC_ALL=C.UTF-8 XDG_CONFIG_HOME=/nonexistent
exec "$bin/one_name_one_class" "$@"
