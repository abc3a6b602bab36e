#!/bin/sh
# profilers.sh — the vendor profilers' files through the whole program: --summary of each names
# its format and counts its kernels; an Nsight Systems export against a rocprofv3 capture, and
# against a Kineto trace, run to every report format. (--summary of a format without event
# categories passed NULL to memcpy(), which make sanitize caught.)
set -u
: "${FUSEDIFF:?run through make check}"
d=tests/data/profilers
# (the Kineto side: the eager Llama trace cut to its first 4 decode passes, 8.9 MB where the
# whole example is 26 MB, loaded in four runs)
K=tests/data/traces/llama8l_eager_sdpa_4decode.json.gz
. tests/sh/lib/cases.sh
summary() { # FILE FORMAT KERNELS
	"$FUSEDIFF" --summary "$1" >"$tmp/s.out" 2>"$tmp/s.err" || { fail "$1: $(cat "$tmp/s.err")"; return; }
	# the format line, whole, and the kernels line's start: one awk (where two greps were)
	awk -v what="$1" -v f="  format                 $2" -v k="  kernels                $3 " '
		$0 == f { fl = 1 }
		index($0, k) == 1 { kl = 1 }
		/format/ { fs = fs $0 }
		/^  kernels/ { ks = ks $0 }
		END {
			if (!fl) print "FAIL: " what ": format line: " fs
			if (!kl) print "FAIL: " what ": kernels line: " ks
			exit !(fl && kl)
		}' "$tmp/s.out" || fails=$((fails + 1))
}
summary "$d/nsys_before.sqlite.gz" "Nsight Systems SQLite (gzip)" 126
summary "$d/nsys_after.sqlite.gz" "Nsight Systems SQLite (gzip)" 131
summary "$d/rocprof_aorta.json.gz" "rocprofv3 JSON (gzip)" 3000
summary "$d/rocpd_built.db" "rocpd SQLite" 1000
summary "$d/kernel_trace_v1.csv.gz" "rocprofv3 kernel_trace.csv (gzip)" 500
summary "$d/kernel_trace_v2.csv" "rocprofv3 kernel_trace.csv" 500
summary tests/fuzz/seeds/trace_load/kernel_trace_cut.csv "rocprofv3 kernel_trace.csv" 40
# times beyond 64 bits (fuzz_trace_load: -2^63 - 7 overflowed in the CSV reader): the rows
# are dropped, the one usable kernel kept
summary tests/data/bad/csv_time_overflow.csv "rocprofv3 kernel_trace.csv" 1
# kernel times of other devices adding up beyond 64 bits (fuzz_trace_load: the whole file's
# total overflowed): saturated
summary tests/data/bad/devices_time_overflow.csv "rocprofv3 kernel_trace.csv" 6
grep -q '8 kernels on 3 devices, 9223372036.85 s GPU time in the file' "$tmp/s.out" ||
	fail "devices_time_overflow: $(grep 'in the file' "$tmp/s.out")"
for f in text md json csv; do
	"$FUSEDIFF" --report $f "$d/nsys_before.sqlite.gz" "$d/rocprof_aorta.json.gz" >"$tmp/nr.$f" 2>"$tmp/err" ||
		fail "nsys vs rocprofv3 ($f): $(cat "$tmp/err")"
	"$FUSEDIFF" --report $f --device all "$d/nsys_after.sqlite.gz" "$K" >"$tmp/nk.$f" 2>"$tmp/err" ||
		fail "nsys vs Kineto ($f): $(cat "$tmp/err")"
done
. tests/sh/lib/schema.sh
schema_validate "$tmp/nr.json"
[ $? = 1 ] && fail "the JSON report does not validate against --print-schema"
grep -q '"format":"Nsight Systems SQLite"' "$tmp/nr.json" || fail "the JSON does not name the nsys format"
grep -q '"format":"rocprofv3 JSON"' "$tmp/nr.json" || fail "the JSON does not name the rocprofv3 format"
# the explorer's device key: both sides on device 1, then all devices, then device 0 again
printf 'device\n:dump d1\ndevice\n:dump dall\ndevice\n:dump d0\n' >"$tmp/device.keys"
mkdir "$tmp/dumps"
FUSEDIFF_DUMP_DIR="$tmp/dumps" "$FUSEDIFF" --headless --size 120x40 --script "$tmp/device.keys" \
	"$d/nsys_before.sqlite.gz" "$d/nsys_after.sqlite.gz" >"$tmp/device.out" 2>&1 ||
	fail "device key: $(cat "$tmp/device.out")"
for s in d1:"device 1 of 2" dall:"all 2 devices" d0:"device 0 of 2"; do
	n=$(grep -c "^ [AB] nsys_[a-z]*.sqlite.gz  *${s#*:}  " "$tmp/dumps/${s%%:*}.screen")
	[ "$n" = 2 ] || fail "device key: ${s%%:*} does not show ${s#*:} on both sides: $(head -2 "$tmp/dumps/${s%%:*}.screen")"
done
grep -q "^all devices on both sides: B-A " "$tmp/dumps/dall.screen" ||
	fail "device key: no message on the all-devices screen: $(tail -1 "$tmp/dumps/dall.screen")"
finish profilers
