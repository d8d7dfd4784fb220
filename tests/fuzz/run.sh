#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake option SMX_FUZZ, clang, ASan + UBSan) in
# build-fuzz/ and runs each for the given number of seconds (default 60), one
# after the other, starting from a copy of tests/fuzz/corpus/<target>/ in a
# temporary folder (the repository's corpus is never written to). Prints the
# executions of each target; exits 1 if any target found a crash, a leak or a
# broken invariant (the reproducer is kept and its path printed).
#
#   bash tests/fuzz/run.sh [seconds]        # npm run fuzz -- [seconds]
#   FUZZ_TARGETS="softmax_fuzz_simd" bash tests/fuzz/run.sh 10
#   FUZZ_SEED=1 bash tests/fuzz/run.sh 60    # reproducible exploration (CI)
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: $0 [seconds]  (a positive integer, default 60)" >&2
  exit 2
fi

echo "== building the fuzz targets in build-fuzz/ (clang++, -fsanitize=fuzzer,address,undefined)"
CXX="${CXX:-clang++}" cmake -S . -B build-fuzz -DSMX_FUZZ=ON >/dev/null || exit 1
cmake --build build-fuzz -j "${FUZZ_JOBS:-2}" >/tmp/softmax-wasm-fuzz-build.log 2>&1 || {
  cat /tmp/softmax-wasm-fuzz-build.log
  exit 1
}

targets="${FUZZ_TARGETS:-softmax_fuzz_simd softmax_fuzz_scalar sampler_fuzz_simd sampler_fuzz_scalar}"
work="$(mktemp -d "${TMPDIR:-/tmp}/softmax-wasm-fuzz.XXXXXX")"
status=0
summary=""
for t in $targets; do
  bin="build-fuzz/$t"
  if [ ! -x "$bin" ]; then
    echo "== $t: not built (its source is missing), skipped"
    summary+="$(printf '%-22s %s' "$t" 'not built')"$'\n'
    continue
  fi
  corpus_name="${t%_simd}"
  corpus_name="${corpus_name%_scalar}"
  corpus="$work/$t/corpus"
  artifacts="$work/$t/artifacts"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "tests/fuzz/corpus/$corpus_name" ]; then cp "tests/fuzz/corpus/$corpus_name"/* "$corpus"/ 2>/dev/null; fi
  echo "== $t: ${seconds} s from $(ls "$corpus" | wc -l) seed inputs"
  log="$work/$t/log"
  # FUZZ_SEED fixes libFuzzer's random stream (CI uses 1), so that a run
  # explores the same inputs in the same order on every machine; unset, each
  # run explores anew.
  "$bin" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
  rc=$?
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
  speed="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
  cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1)"
  if [ "$rc" -ne 0 ]; then
    status=1
    grep -E 'INVARIANT BROKEN|ERROR:|runtime error|SUMMARY' "$log" | head -5
    echo "   reproducer(s): $(ls "$artifacts"/* 2>/dev/null | tr '\n' ' ')"
    echo "   full log: $log"
    summary+="$(printf '%-22s FAILED after %s executions' "$t" "${execs:-?}")"$'\n'
  else
    summary+="$(printf '%-22s %s executions (%s/s), %s, corpus %s -> %s' "$t" "${execs:-?}" "${speed:-?}" \
      "${cov:-cov: ?}" "$(ls "tests/fuzz/corpus/$corpus_name" 2>/dev/null | wc -l)" "$(ls "$corpus" | wc -l)")"$'\n'
  fi
done
echo
echo "== fuzz summary (${seconds} s each)"
printf '%s' "$summary"
if [ "$status" -eq 0 ]; then rm -rf "$work"; fi
exit "$status"
