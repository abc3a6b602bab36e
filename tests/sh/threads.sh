#!/bin/sh
# threads.sh — --report loads both traces in parallel (each gzip inflated on its own reader
# thread) and builds both sides in parallel, and a plain trace is parsed by two threads (its
# traceEvents in chunks that both take in turn, FUSEDIFF_SPLIT_MIN=1 for these small files);
# --summary builds its classifier on a thread of its own meanwhile and, for a trace with enough
# operators, unpacks them on two threads, the kernels' part beside them: helgrind finds no data
# race in any of it.
set -u
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found"; exit 77; }
# valgrind cannot run a binary built with AddressSanitizer (make sanitize)
[ "${FUSEDIFF_SANITIZED:-0}" = 1 ] && { echo "helgrind cannot run an ASan build"; exit 77; }
# --history-level=approx: the same races found, the earlier access of each reported with less
# detail (rerun with full to see its stack), 30-40 % less CPU than the default full
hg="valgrind --tool=helgrind --history-level=approx -q --error-exitcode=9"
A=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
B=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
out=$($hg "$FUSEDIFF" --report json "$A" "$B" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || { echo "helgrind: exit $rc"; printf '%s\n' "$out" | head -40; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc "$A" >"$tmp/a.json" && gzip -dc "$B" >"$tmp/b.json" || exit 1
out=$(FUSEDIFF_SPLIT_MIN=1 $hg "$FUSEDIFF" --report json \
	"$tmp/a.json" "$tmp/b.json" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || { echo "helgrind, plain files split: exit $rc"; printf '%s\n' "$out" | head -40; exit 1; }
gzip -dc examples/llama8l_eager_sdpa.json.gz >"$tmp/eager.json" || exit 1 # 22407 operators
out=$(FUSEDIFF_SPLIT_MIN=1 $hg "$FUSEDIFF" --summary \
	"$tmp/eager.json" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || { echo "helgrind, --summary split: exit $rc"; printf '%s\n' "$out" | head -40; exit 1; }
exit 0
