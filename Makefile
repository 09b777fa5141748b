# Mini — one Makefile for the compiler, the VM, the tests and the benchmarks.
#
#   make            build bin/mini (release: -O2)
#   make run        install missing build dependencies, build, start the shell
#   make test       install missing build dependencies, build, run the whole suite
#   make frontend-check   the compiler alone, linked without the VM (see below)
#   make check-gc   the language tests with a collection at every allocation
#   make bench      the benchmarks on Mini and erl (bench/run.sh; docs/benchmarks.md)
#   make install PREFIX=DIR   bin/mini to DIR/bin, the library (stdlib, examples,
#                   lib) to DIR/lib/mini, the man page to DIR/share/man/man1
#   make fuzz FUZZ_SECONDS=N   the libFuzzer targets, N seconds each (needs clang)
#   make soak SECONDS=N        the soak: N seconds of processes, messages, crashes
#                              and restarts with +S 2; counts every message
#
# Switches: MODE=debug|release  GC_STRESS=1  SAN=address,undefined  TSAN=1
#           FUZZ=1 (clang, libFuzzer instrumentation, ASan and UBSan; set by make fuzz)

MODE ?= release
CC ?= cc
BUILD := build/$(MODE)$(if $(GC_STRESS),-gcstress)$(if $(SAN),-san)$(if $(TSAN),-tsan)$(if $(FUZZ),-fuzz)

# The runtime's core is vm/ itself; its rooms are vm/bifs (the built-in
# functions), vm/shell (the shell and the `mini` command), vm/io (async
# threads and ports) and vm/dist (networking and distribution).
VM_DIRS := vm vm/bifs vm/shell vm/io vm/dist vm/ets
CFLAGS_COMMON := -std=gnu11 -Wall -Wextra -pthread -DGC_THREADS -MMD -MP -iquote compiler \
                 $(addprefix -iquote ,$(VM_DIRS)) -iquote $(BUILD)/gen
ifeq ($(MODE),debug)
  CFLAGS_MODE := -O0 -g
else
  # Every function starts on a cache line: otherwise code added to one file
  # moves the emulator's handlers against the lines and the decoder's
  # windows, and a cell of the benchmark matrix ran 7% faster or slower
  # with no change of its own (docs/internals.md, "Emulator")
  CFLAGS_MODE := -O2 -g -falign-functions=64
endif
ifdef GC_STRESS
  CFLAGS_MODE += -DGC_STRESS=1
endif
ifdef SAN
  CFLAGS_MODE += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=$(SAN)
endif
ifdef TSAN
  CFLAGS_MODE += -fsanitize=thread
  LDFLAGS += -fsanitize=thread
endif
# The fuzz build: every object instrumented for libFuzzer's coverage, with
# AddressSanitizer and UndefinedBehaviorSanitizer; only the fuzz targets link
# libFuzzer's main. clang is needed here alone (tests/deps.sh fuzz).
ifdef FUZZ
  CC := clang
  CFLAGS_MODE := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                 -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
endif
CFLAGS += $(CFLAGS_COMMON) $(CFLAGS_MODE)
# PCRE2 (libpcre2-dev) runs the `re` module, as PCRE does in Erlang/OTP
LDLIBS := -lgc -lreadline -lpcre2-8 -lm -pthread

GEN_SRCS := $(BUILD)/gen/lexer.c $(BUILD)/gen/parser.c
SRCS := $(wildcard compiler/*.c) $(foreach d,$(VM_DIRS),$(wildcard $(d)/*.c))
LIB_SRCS := $(filter-out vm/shell/main.c,$(SRCS))
OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS)) $(BUILD)/gen/lexer.o $(BUILD)/gen/parser.o
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

BIN := bin/mini$(if $(filter-out build/release,$(BUILD)),-$(notdir $(BUILD)))

.PHONY: FORCE install all run test unit frontend-check check-gc check-smp check-asan check-tsan clean deps test-deps bench \
        fuzz fuzz-build soak
all: $(BIN) $(BUILD)/ebin.stamp

# The library compiled ahead (vm/modcache.h): ebin/M.mbc for each
# stdlib/M.mini, remade when the binary or a source changes. A cache that
# does not match its source or compiler is ignored, so a stale one costs a
# compile, never a wrong module.
STDLIB_SRCS := $(wildcard stdlib/*.mini)
$(BUILD)/ebin.stamp: $(BIN) $(STDLIB_SRCS)
	@mkdir -p ebin
	$(BIN) -c ebin $(STDLIB_SRCS)
	@touch $@

# A hash of the compiler's sources, part of every cache's fingerprint: a
# cache made by another compiler is not used. Rewritten only when it changes.
$(BUILD)/gen/compiler_id.h: FORCE
	@mkdir -p $(dir $@)
	@id=$$(cat compiler/*.c compiler/*.h compiler/*.y compiler/*.l | cksum | cut -d' ' -f1); \
	  echo "#define MINI_COMPILER_ID \"$$id\"" > $@.tmp; \
	  if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/vm/modcache.o: $(BUILD)/gen/compiler_id.h
FORCE:

$(BIN): $(BUILD)/vm/shell/main.o $(BUILD)/libmini.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libmini.a: $(OBJS)
	rm -f $@; ar rcs $@ $^

$(BUILD)/%.o: %.c | $(BUILD)/gen/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/gen/parser.c $(BUILD)/gen/parser.h: compiler/parser.y
	@mkdir -p $(dir $@)
	bison -Wall -o $(BUILD)/gen/parser.c --header=$(BUILD)/gen/parser.h $<

$(BUILD)/gen/lexer.c $(BUILD)/gen/lexer.h: compiler/lexer.l $(BUILD)/gen/parser.h
	@mkdir -p $(dir $@)
	flex -o $(BUILD)/gen/lexer.c --header-file=$(BUILD)/gen/lexer.h $<

# generated code is not ours to warn about
$(BUILD)/gen/%.o: $(BUILD)/gen/%.c $(BUILD)/gen/lexer.h
	$(CC) $(CFLAGS) -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libmini.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS)

unit: $(UNIT_BINS)

deps:
	@sh tests/deps.sh

# What the suite needs on top: epmd and erl, the name server of the
# distribution tests and the peer of the interop ones.
test-deps:
	@sh tests/deps.sh test

# The installed binary finds its library in PREFIX/lib/mini (module.c:
# find_root), so the tree can be copied anywhere as a whole.
PREFIX ?= /usr/local
install: $(BIN) $(BUILD)/ebin.stamp
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/mini/stdlib \
	  $(DESTDIR)$(PREFIX)/lib/mini/examples $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/mini
	install -m 644 stdlib/*.mini $(DESTDIR)$(PREFIX)/lib/mini/stdlib
	install -d $(DESTDIR)$(PREFIX)/lib/mini/ebin
	install -m 644 ebin/*.mbc $(DESTDIR)$(PREFIX)/lib/mini/ebin
	install -m 644 examples/*.mini examples/*.app $(DESTDIR)$(PREFIX)/lib/mini/examples
	cp -R lib $(DESTDIR)$(PREFIX)/lib/mini/
	install -m 644 docs/mini.1 $(DESTDIR)$(PREFIX)/share/man/man1/mini.1

# The compiler alone: every compiler/ object and the term layer it may use
# (atoms, literals, bignums, and the tables of the bytecode contract), linked
# with no scheduler, emulator, loader or BIF. That it links is half the
# check; the binary then compiles tests/lang and stdlib/ and runs the
# tests/errors cases (tests/unit/frontend_check.c). Both lists name their
# files: the term layer is the part of vm/ the compiler may depend on.
# check_layers.sh checks the includes: the compiler includes only the term
# layer and the contract, the VM only compiler/compiler.h.
FRONTEND_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard compiler/*.c)) \
                 $(BUILD)/gen/lexer.o $(BUILD)/gen/parser.o
TERM_LAYER_OBJS := $(BUILD)/vm/atom.o $(BUILD)/vm/literal.o $(BUILD)/vm/bignum.o \
                   $(BUILD)/vm/opcodes.o $(BUILD)/vm/bytecode.o $(BUILD)/vm/fatal.o \
                   $(BUILD)/vm/boehm_oom.o

$(BUILD)/tests/frontend_check: tests/unit/frontend_check.c $(FRONTEND_OBJS) $(TERM_LAYER_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.o,$^) -lgc -lm -pthread

frontend-check: $(BUILD)/tests/frontend_check
	@sh tests/unit/check_layers.sh
	@./$(BUILD)/tests/frontend_check

run: deps
	@$(MAKE) --no-print-directory all
	./$(BIN)

test: test-deps
	@$(MAKE) --no-print-directory all unit frontend-check
	@sh tests/run.sh $(BIN) $(BUILD)/tests

# An unoptimised build that collects at every allocation runs the tests
# that fill hundreds of megabytes (oom_*.sh) 20-50 times slower: a per-test
# limit of 5 minutes instead of 2, still one that catches a hang.
check-gc:
	@$(MAKE) --no-print-directory GC_STRESS=1 MODE=debug all unit
	@TEST_TIMEOUT=300 sh tests/run.sh bin/mini-debug-gcstress build/debug-gcstress/tests

# The whole suite with one, two and four schedulers and without SMP (+S 4:4:
# four online, whatever the cores; plain +S 4 puts at most one per core
# online, as erl).
check-smp: test-deps
	@$(MAKE) --no-print-directory all unit
	@for f in "+S 1" "+S 2" "+S 4:4" "-smp disable"; do echo "== $$f"; \
	  MINI_FLAGS="$$f" sh tests/run.sh $(BIN) $(BUILD)/tests || exit 1; done
	@for f in "+A 4" "+S 1 +A 4" "+S 2 +A 1" "-smp disable +A 4"; do \
	  for t in 'port_*' 'file_*' 'os_*' 'tcp_*' 'udp_*' 'inet_*'; do echo "== $$t, $$f"; \
	    MINI_FLAGS="$$f" ONLY="$$t" sh tests/run.sh $(BIN) $(BUILD)/tests || exit 1; done; done

# The concurrency tests under ThreadSanitizer: the threaded unit tests (the
# mailbox, the pid table, the block pool, binary buffers passed between
# threads), then the process and ETS tests with 2 and 4 schedulers;
# any report fails the test.
check-tsan: test-deps
	@$(MAKE) --no-print-directory TSAN=1 all unit
	@echo "== ThreadSanitizer, the threaded unit tests"
	@for t in test_mailbox test_proc_table test_msgpool test_heap_block test_binary test_async test_ets_lock test_qsbr; do \
	  TSAN_OPTIONS="report_signal_unsafe=0" build/release-tsan/tests/$$t || exit 1; done
	@for s in 2 4; do echo "== ThreadSanitizer, +S $$s"; \
	  TSAN_OPTIONS="report_signal_unsafe=0" MINI_FLAGS="+S $$s" ONLY='proc_*' SAN_CHECK=1 \
	  sh tests/run.sh bin/mini-release-tsan build/release-tsan/tests || exit 1; done
	@for s in 2 4; do echo "== ThreadSanitizer, ETS, +S $$s"; \
	  TSAN_OPTIONS="report_signal_unsafe=0" MINI_FLAGS="+S $$s" ONLY='ets_*' SAN_CHECK=1 \
	  sh tests/run.sh bin/mini-release-tsan build/release-tsan/tests || exit 1; done
	@for f in "+S 2 +A 2" "+S 4 +A 4" "-smp disable +A 2"; do for t in 'port_*' 'tcp_*' 'udp_*'; do \
	  echo "== ThreadSanitizer, $$t, $$f"; \
	  TSAN_OPTIONS="report_signal_unsafe=0" MINI_FLAGS="$$f" ONLY="$$t" SAN_CHECK=1 \
	  sh tests/run.sh bin/mini-release-tsan build/release-tsan/tests || exit 1; done; done

# Everything under AddressSanitizer and UndefinedBehaviorSanitizer, then the
# process tests again with 2 and 4 schedulers, then the ports and sockets.
check-asan: test-deps
	@$(MAKE) --no-print-directory SAN=address,undefined all unit
	@ASAN_OPTIONS="detect_leaks=0" SAN_CHECK=1 sh tests/run.sh bin/mini-release-san build/release-san/tests
	@for s in 2 4; do echo "== AddressSanitizer, +S $$s"; \
	  ASAN_OPTIONS="detect_leaks=0" MINI_FLAGS="+S $$s" ONLY='proc_*' SAN_CHECK=1 \
	  sh tests/run.sh bin/mini-release-san build/release-san/tests || exit 1; done
	@for f in "+S 2 +A 2" "-smp disable +A 2"; do for t in 'port_*' 'tcp_*' 'udp_*' 'inet_*'; do \
	  echo "== AddressSanitizer, $$t, $$f"; \
	  ASAN_OPTIONS="detect_leaks=1" MINI_FLAGS="$$f" ONLY="$$t" SAN_CHECK=1 \
	  sh tests/run.sh bin/mini-release-san build/release-san/tests || exit 1; done; done

# Coverage-guided fuzzing (docs/reliability.md): the front end, binary_to_term,
# the loader and the shell's reader, each FUZZ_SECONDS seconds under ASan and
# UBSan, after replaying every input that once crashed (tests/fuzz/regress).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := frontend etf loader shell
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(BUILD)/libmini.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -iquote tests/fuzz $(LDFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c %.a,$^) $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz:
	@sh tests/deps.sh fuzz
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-build
	@sh tests/fuzz/run.sh build/$(MODE)-fuzz/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The soak (tests/soak/soak.mini): SECONDS of spawning, numbered messages,
# crashes and restarts under a supervisor, timers and ports, with +S 2;
# fails if a message to a living process is lost or doubled or memory grows.
SECONDS ?= 60
soak: test-deps
	@$(MAKE) --no-print-directory all
	@sh tests/soak/run.sh $(BIN) $(SECONDS)

clean:
	rm -rf build bin ebin

# benchmarks (not tests): bench/run.sh, full sizes; `bench/run.sh quick` for a short run
bench: all
	sh bench/setup.sh
	bash bench/run.sh

# the benchmark matrix (not a test): patterns x payloads x +S 1/2/4/-smp disable,
# Mini and erl side by side (bench/matrix.sh; `bench/matrix.sh quick` for one run per cell)
.PHONY: bench-matrix
bench-matrix: all
	sh bench/setup.sh
	bash bench/matrix.sh
	python3 bench/matrix_plot.py $$(ls -t bench/results/*-matrix.csv | head -1)

-include $(shell find build -name '*.d' 2>/dev/null)
