#!/bin/sh
# bench/same-output.sh — record what a fusediff binary prints for the shared traces, to check
# that a change of the loader leaves every output byte-identical.
#
#   sh bench/same-output.sh BINARY OUTDIR [TRACEDIR]
#
# For every TRACEDIR/*.json.gz (default ../shared/traces, or /work/shared/traces) it writes
# `--summary` of the .json.gz and of its plain copy (decompressed once into OUTDIR/plain/), and
# `--report json` and `--report text` of each trace against the next one in name order (and
# the last against the first), and `--report json` of their plain copies, with the exit status
# of each. The plain copies go to $PLAIN
# (default /tmp/fusediff-plain: the same path for every run, since --summary prints it).
# Then compare two runs with `diff -r OUT1 OUT2`.
set -u
bin=$1 out=$2 dir=${3:-}
if [ -z "$dir" ]; then
	for d in ../shared/traces /work/shared/traces; do
		[ -d "$d" ] && dir=$d && break
	done
fi
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	echo "same-output.sh: no shared traces directory (../shared/traces): nothing compared" >&2
	exit 2
fi
plain=${PLAIN:-/tmp/fusediff-plain}
mkdir -p "$out" "$plain"
set -- "$dir"/*.json.gz
first=$1 prev=
for f in "$@" ""; do
	if [ -n "$f" ]; then
		b=$(basename "$f" .json.gz)
		p=$plain/$b.json
		[ -s "$p" ] || gzip -dc "$f" >"$p"
		"$bin" --summary "$f" >"$out/$b.summary.gz.out" 2>&1
		echo "rc $?" >>"$out/$b.summary.gz.out"
		"$bin" --summary "$p" >"$out/$b.summary.out" 2>&1
		echo "rc $?" >>"$out/$b.summary.out"
	fi
	if [ -n "$prev" ]; then
		next=${f:-$first}
		pb=$(basename "$prev" .json.gz)
		for fmt in json text; do
			o=$out/$pb.vs-next.$fmt.out
			"$bin" --report $fmt "$prev" "$next" >"$o" 2>&1
			echo "rc $?" >>"$o"
		done
		# and of the plain copies (a plain file is hashed by the threads that parse it)
		o=$out/$pb.vs-next.plain.json.out
		"$bin" --report json "$plain/$pb.json" "$plain/$(basename "$next" .json.gz).json" >"$o" 2>&1
		echo "rc $?" >>"$o"
	fi
	prev=$f
done
echo "same-output.sh: $(ls "$out" | grep -c '\.out$') outputs of $bin in $out"
