#!/bin/sh
# threads.sh — --report loads both traces in parallel (a gzip file inflated on its own reader
# thread, FUSEDIFF_GZIP_THREAD_MIN=1 for this small one; a plain one parsed by two threads: its
# traceEvents in chunks that both take in turn, FUSEDIFF_SPLIT_MIN=1 for these small files) and
# builds both sides in parallel; --summary builds its classifier on a thread of its own meanwhile
# and, for a trace with enough operators (16384, UNPACK_PARALLEL in src/trace/trace_finish.c),
# unpacks them on two threads, the kernels' part beside them: helgrind finds no data race in any
# of it.
# (one comparison of a gzip and a plain file, where there were one of two gzip files and one of two
# plain ones, and a generated trace of 20000 operators in 3.3 MB, where there was the 26 MB eager
# example: the same threads, 5 s of CPU instead of 10)
set -u
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found"; exit 77; }
# valgrind cannot run a binary built with AddressSanitizer (make sanitize)
[ "${FUSEDIFF_SANITIZED:-0}" = 1 ] && { echo "helgrind cannot run an ASan build"; exit 77; }
# --history-level=approx: the same races found, the earlier access of each reported with less
# detail (rerun with full to see its stack), 30-40 % less CPU than the default full
# (tests/helgrind.supp: glibc's reuse of a cached thread stack, not ours)
hg="valgrind --tool=helgrind --history-level=approx -q --error-exitcode=9 --suppressions=tests/helgrind.supp"
A=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz
B=examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc "$B" >"$tmp/b.json" || exit 1
out=$(FUSEDIFF_SPLIT_MIN=1 FUSEDIFF_GZIP_THREAD_MIN=1 $hg "$FUSEDIFF" --report json "$A" "$tmp/b.json" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || { echo "helgrind, a gzip file and a plain one split: exit $rc"; printf '%s\n' "$out" | head -40; exit 1; }
# 20000 operators, a kernel and its launch for every 8th
awk -v n=20000 'BEGIN {
	printf "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\"}], \"cuda_runtime_version\": 13000,\n\"traceEvents\": [\n"
	for (i = 1; i <= n; i++) {
		printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"External id\": %d}},\n", i * 10, i
		if (i % 8 == 0) {
			printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1, \"args\": {\"correlation\": %d, \"External id\": %d}},\n", i * 10 + 1, i, i
			printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 3, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d, \"External id\": %d}},\n", i * 10 + 2, i, i
		}
	}
	printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"last\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}}\n]}\n", n * 10 + 5
}' >"$tmp/ops.json" || exit 1
out=$(FUSEDIFF_SPLIT_MIN=1 $hg "$FUSEDIFF" --summary "$tmp/ops.json" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || { echo "helgrind, --summary split: exit $rc"; printf '%s\n' "$out" | head -40; exit 1; }
exit 0
