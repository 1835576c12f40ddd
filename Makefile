# Curlew: `make run` opens the demo, `make test` runs every test. Both install missing system packages.

SWIFT ?= swift
SYSTEM_PACKAGES := libcurl4-openssl-dev libssl-dev libncurses-dev tmux
BENCH_PACKAGES := nginx-light wrk curl valgrind
CURLEW := .build/debug/curlew
# What `make run` runs; the end-to-end test starts the interface with exactly this.
RUN_COMMAND := $(CURLEW)

.PHONY: run print-run-command test fuzz fuzz-smoke soak sanitize build deps bench-deps bench bench-smoke demo-server tui-e2e clean

deps:
	@scripts/ensure-packages.sh $(SYSTEM_PACKAGES)

build: deps
	$(SWIFT) build

run: build
	$(RUN_COMMAND)

print-run-command:
	@echo $(RUN_COMMAND)

test: deps bench-deps
	$(SWIFT) build --build-tests
	$(MAKE) bench-smoke
	$(MAKE) fuzz-smoke
	scripts/with-scratch-tmp.sh $(SWIFT) test --skip-build --skip LargeTransferTests
	scripts/with-scratch-tmp.sh $(SWIFT) test --skip-build --filter LargeTransferTests
	.build/debug/curlew-soak --requests 5000
	scripts/docs-test.sh
	scripts/tui-e2e.sh

bench-deps:
	@scripts/ensure-packages.sh $(BENCH_PACKAGES)

# The full comparison (medians of 5); appends to Benchmarks/RESULTS.md. The harness and the
# agent it drives are release builds of this package, the AsyncHTTPClient peer a release build
# of the package in Benchmarks/; the interface and CLI scenarios run the binary `make run` opens.
# The harness runs in Benchmarks/ (its results file and the peer are found there).
bench: build bench-deps
	$(SWIFT) build -c release --product CurlewBench
	cd Benchmarks && $(SWIFT) build -c release --product AsyncHTTPClientBench
	cd Benchmarks && CURLEW_BIN=../$(CURLEW) ../.build/release/CurlewBench --results RESULTS.md

# A few hundred requests per client, so the harness itself cannot rot; records nothing. The
# harness is built with the tests (`swift build --build-tests` builds every target); the
# AsyncHTTPClient peer (SwiftNIO and BoringSSL, minutes to compile) is built and run by `make bench`.
bench-smoke: bench-deps
	$(SWIFT) build --product curlew
	$(SWIFT) build --product CurlewBench
	cd Benchmarks && CURLEW_BIN=../$(CURLEW) ../.build/debug/CurlewBench --smoke --no-results

# libFuzzer targets with AddressSanitizer, one per parser of untrusted input (README, Reliability).
FUZZ_SECONDS ?= 120
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS)

# The fault soak: 100,000 requests in groups with injected faults and cancels, then every check.
SOAK_REQUESTS ?= 100000
soak: deps
	$(SWIFT) build -c release --product curlew-soak
	.build/release/curlew-soak --requests $(SOAK_REQUESTS)

# The whole suite under ThreadSanitizer, then under AddressSanitizer (separate build directories).
# CURLEW_TSAN makes the project's locks visible to ThreadSanitizer (Sources/CurlewLocking); a
# continuation's hand-over stays unseen (README, Sanitizers). Leak detection is off under AddressSanitizer: libdispatch and the
# Swift runtime keep caches for the life of the process.
sanitize: deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan -Xswiftc -DCURLEW_TSAN
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --build-path .build-tsan -Xswiftc -DCURLEW_TSAN --skip LargeTransferTests
	$(SWIFT) build --build-tests --sanitize=address --build-path .build-asan
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --sanitize=address --build-path .build-asan --skip LargeTransferTests

# A few seconds of each fuzz target, so every target builds and runs its seeds in CI, with a fixed
# random seed, so a fresh clone's run starts the same way each time (time-bounded, it does not
# repeat exactly); finding new inputs is `make fuzz`'s work.
fuzz-smoke: deps
	FUZZ_SEED=1 scripts/fuzz.sh 5

tui-e2e: build
	scripts/tui-e2e.sh

demo-server: build
	$(CURLEW) demo-server --port 8080

clean:
	rm -rf .build
