#!/bin/sh
# peaks-coverage.sh [DIR] — list the GPU of every trace under DIR (default ../shared/traces) and
# the peak-table row fusediff measures it against (fusediff --summary's GPU and peaks lines);
# exit 1 when a trace names a GPU that no row finds. A developer's check of the built-in table
# (efficiency.h), not a test: tests do not read the shared traces.
set -u
dir=${1:-../shared/traces}
fusediff=${FUSEDIFF:-./build/fusediff}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
bad=0
find "$dir" -type f \( -name '*.json.gz' -o -name '*.json' -o -name '*.sqlite.gz' -o -name '*.sqlite' \
	-o -name '*.db' \) | sort | while read -r f; do
	case $f in
	*.sqlite.gz) gunzip -c "$f" >"$tmp/t.sqlite" && t=$tmp/t.sqlite ;;
	*) t=$f ;;
	esac
	out=$("$fusediff" --summary "$t" 2>/dev/null) || { printf '%s: not read\n' "$f"; continue; }
	gpu=$(printf '%s\n' "$out" | sed -n 's/^  GPU  *//p')
	peaks=$(printf '%s\n' "$out" | sed -n 's/^  peaks  *//p')
	printf '%s: %s -> %s\n' "${f#"$dir"/}" "$gpu" "$peaks"
	case $peaks in
	"not in the table"*) [ "$gpu" = "(not named in the trace)" ] || echo missing >>"$tmp/bad" ;;
	esac
done
[ ! -s "$tmp/bad" ] || { echo "$(wc -l <"$tmp/bad") named GPU(s) without peaks"; exit 1; }
