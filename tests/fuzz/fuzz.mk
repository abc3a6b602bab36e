# fuzz.mk — `make fuzz`: libFuzzer targets built with clang, ASan and UBSan into build-fuzz/.
# Included by the top-level Makefile; not part of `make` or `make check`. See tests/fuzz/README.md.
#
#   make fuzz                    build every tests/fuzz/fuzz_*.c and run each for FUZZ_TIME seconds,
#                                one after the other, one job at a time
#   make fuzz FUZZ_TIME=600      the ten-minute run recorded in tests/fuzz/README.md
#   make fuzz-build              build only
#   build-fuzz/fuzz_trace_load FILE...   replay inputs (a crash, a corpus) once each
#
# Each target NAME (tests/fuzz/fuzz_NAME.c) reads its seeds from build-fuzz/seeds/NAME (made from
# tests/fuzz/seeds/NAME, and for the loader the small real traces decompressed and the damaged
# traces of tests/data/bad), uses tests/fuzz/NAME.dict when it exists, keeps what it learns in
# build-fuzz/corpus/NAME and writes crashes to build-fuzz/crash/NAME-*.

FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_MAX_LEN ?= 65536
FUZZ_ARGS ?=
FZ := build-fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = $(filter-out -O2 -O3,$(FD_CFLAGS)) -g -O1 $(FUZZ_SAN)
# Tiny read buffers: every JSON unit is cut and restarted many times, gzip arrives in pieces, and
# each execution stays cheap.
FUZZ_MODEL_CFLAGS := -DWINDOW_INITIAL=4096u -DRAW_SIZE=512 -DSTASH_CHUNK=4096
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_BIN := $(FUZZ_NAMES:%=$(FZ)/fuzz_%)
FUZZ_MODEL_OBJ := $(MODEL_SRC:%.c=$(FZ)/%.o)
# Real traces small enough to fuzz from (the others only slow each execution down).
FUZZ_REAL := examples/llama8l_compiled_sdpa.json.gz \
	examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz \
	examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz \
	tests/data/traces/tracelens_bert-small_hf_h100.json.gz \
	tests/data/traces/tracelens_bert-small_hf_mi300x.json.gz

.PHONY: fuzz fuzz-build

fuzz-build: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN) $(FUZZ_NAMES:%=$(FZ)/seeds/%/.done)
	@mkdir -p $(FZ)/crash
	@for name in $(FUZZ_NAMES); do \
		mkdir -p $(FZ)/corpus/$$name; \
		dict=; [ -f tests/fuzz/$$name.dict ] && dict=-dict=tests/fuzz/$$name.dict; \
		echo "fuzz: $(FZ)/fuzz_$$name for $(FUZZ_TIME) s"; \
		$(FZ)/fuzz_$$name -max_total_time=$(FUZZ_TIME) -max_len=$(FUZZ_MAX_LEN) -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 $$dict -artifact_prefix=$(FZ)/crash/$$name- \
			$(FUZZ_ARGS) $(FZ)/corpus/$$name $(FZ)/seeds/$$name || exit 1; \
	done

$(FZ)/src/%.o: src/%.c config.mk config.h tests/fuzz/fuzz.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_MODEL_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FZ)/libfusediff.a: $(FUZZ_MODEL_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c $(FZ)/libfusediff.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FZ)/libfusediff.a $(MODEL_LIBS)

# Seeds: the hand-made ones, plus for the loader the damaged traces (gzip ones as they are and
# decompressed) and the small real traces, decompressed, and for the rules parser the rules
# files of the tests.
$(FZ)/seeds/%/.done: $(wildcard tests/fuzz/seeds/*/*) $(wildcard tests/data/bad/* tests/data/rules/*.rules) \
		$(FUZZ_REAL)
	rm -rf $(@D)
	mkdir -p $(@D)
	if [ -d tests/fuzz/seeds/$* ]; then cp tests/fuzz/seeds/$*/* $(@D)/; fi
	if [ $* = rules ]; then cp tests/data/rules/*.rules $(@D)/; fi
	if [ $* = compare ]; then cp tests/fuzz/seeds/trace_load/* $(@D)/; fi
	if [ $* = pipeline ]; then \
		for a in tests/fuzz/seeds/trace_load/*; do for b in tests/fuzz/seeds/trace_load/*; do \
			python3 -c 'import struct,sys; a=open(sys.argv[1],"rb").read(); b=open(sys.argv[2],"rb").read(); sys.stdout.buffer.write(struct.pack("<I",len(a))+a+b)' \
				$$a $$b >$(@D)/$$(basename $$a .json)+$$(basename $$b .json); \
		done; done; \
	fi
	if [ $* = trace_load ] || [ $* = compare ]; then \
		cp tests/data/bad/* $(@D)/ && \
		for f in tests/data/bad/*.gz $(FUZZ_REAL); do \
			b=$$(basename $$f .gz); gzip -dc <$$f 2>/dev/null | head -c 1048576 >$(@D)/$$b.plain; \
		done; \
	fi
	touch $@

-include $(wildcard $(FZ)/src/*/*.d)
