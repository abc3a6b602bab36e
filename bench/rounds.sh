#!/bin/sh
# rounds.sh — commands side by side in interleaved rounds (one run of each per round, so that
# they share the machine's load), with the median wall and CPU time (user + system, GNU time)
# of each: how bench/README.md's issue 35 figures were taken.
#
#   sh bench/rounds.sh ROUNDS 'LABEL=COMMAND' ...
#
# Each COMMAND runs under sh -c with its output discarded; a command that fails is said so.
#   sh bench/rounds.sh 5 "text=./fusediff --report text A.json B.json" \
#                        "json=./fusediff --report json A.json B.json"
set -eu
[ $# -ge 2 ] || { echo "usage: sh bench/rounds.sh ROUNDS 'LABEL=COMMAND' ..." >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "rounds.sh: GNU time (/usr/bin/time) is needed" >&2; exit 2; }
rounds=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
r=0
while [ "$r" -lt "$rounds" ]; do
	for spec in "$@"; do
		label=${spec%%=*} cmd=${spec#*=}
		/usr/bin/time -f "$label %e %U %S" -a -o "$out" sh -c "$cmd >/dev/null 2>&1" ||
			echo "rounds.sh: $label failed" >&2
	done
	r=$((r + 1))
done
python3 - "$out" "$@" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 4 and f[1][0].isdigit():
        rows.setdefault(f[0], []).append((float(f[1]), float(f[2]) + float(f[3])))
for spec in sys.argv[2:]:
    label = spec.split("=", 1)[0]
    v = rows.get(label, [])
    if not v:
        print("%-16s no run" % label)
        continue
    print("%-16s wall %8.3f s  cpu %8.3f s  (cpu per round: %s)" % (
        label, statistics.median(x[0] for x in v), statistics.median(x[1] for x in v),
        " ".join("%.2f" % x[1] for x in v)))
PY
