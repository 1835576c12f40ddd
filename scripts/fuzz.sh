#!/usr/bin/env bash
# Builds the libFuzzer targets with AddressSanitizer and runs each for a bounded time.
# Usage: scripts/fuzz.sh SECONDS_PER_TARGET [TARGET...]
# FUZZ_SEED=N fixes libFuzzer's random seed (the CI smoke run does, so that it checks the seeds
# and the paths near them the same way each time; `make fuzz` explores with a new seed each run).
# Seeds come from Fuzz/Corpus/<target>; what a run discovers goes to .build-fuzz/corpus/<target>
# (not the repository). A crash stops the run with the input saved as .build-fuzz/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:?usage: scripts/fuzz.sh SECONDS_PER_TARGET [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzJSON FuzzFilter FuzzSessionLog FuzzHeaders FuzzCompose FuzzRedaction FuzzPipeline FuzzStream FuzzWorkspace FuzzCurlImport FuzzMultipart FuzzImport FuzzOpenAPI)

export CURLEW_FUZZ=1
# Leaks that are the libraries' own, not Curlew's (each explained in the file).
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# libFuzzer prints the stack of a crash itself; the Swift backtracer would only add minutes.
export SWIFT_BACKTRACE=enable=no
build=(swift build --build-path .build-fuzz -Xswiftc -sanitize=fuzzer,address)
# SwiftPM keeps an old build plan when source files are added or removed, and a target built
# from it can be linked against a library whose types changed shape (a stale caller then
# overruns the storage of a value it gets back). The plan is dropped when the file list changed.
mkdir -p .build-fuzz
find Sources Fuzz -name '*.swift' -o -name '*.c' -o -name '*.h' | sort > .build-fuzz/sources.new
if ! cmp -s .build-fuzz/sources.new .build-fuzz/sources.list; then rm -f .build-fuzz/debug.yaml .build-fuzz/build.db; fi
mv .build-fuzz/sources.new .build-fuzz/sources.list
# With no targets named, every target in one build (the manifest declares only them and what
# they use), so SwiftPM compiles independent modules side by side; else the named ones.
builds=("")
[ $# -eq 0 ] || builds=("${targets[@]}")
for product in "${builds[@]}"; do
    if ! output=$("${build[@]}" ${product:+--product "$product"} 2>&1); then
        echo "$output" | grep -E "error" | head -20
        exit 1
    fi
done
bin=$("${build[@]}" --show-bin-path)

for target in "${targets[@]}"; do
    work=".build-fuzz/corpus/$target"
    mkdir -p "$work"
    rm -f .build-fuzz/crash-"$target"-*
    echo "== $target: $seconds s"
    # -rss_limit_mb: a parser that balloons on some input is a finding too.
    "$bin/$target" "$work" "Fuzz/Corpus/$target" -max_total_time="$seconds" -rss_limit_mb=2048 ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
        -artifact_prefix=.build-fuzz/crash-"$target"- -print_final_stats=1 2>&1 \
        | grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|ERROR|==[0-9]+==|Test unit written|SUMMARY|Fatal error|fatal error" || true
    if ls .build-fuzz/crash-"$target"-* >/dev/null 2>&1; then
        echo "fuzz: $target crashed; the input is in $(ls .build-fuzz/crash-"$target"-* | head -1)"
        exit 1
    fi
done
echo "fuzz: ${#targets[@]} targets ran ${seconds} s each without a crash"
