#!/usr/bin/env bash
# Runs the libFuzzer targets built in BUILD_DIR (cmake -DEDITD_FUZZ=ON, target
# fuzz_targets), each for SECONDS over its seed corpus tests/fuzz/corpus/<target>.
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
# New inputs go to BUILD_DIR/fuzz-corpus/<target> (the seeds in the repo are
# never written); a failing input is saved as BUILD_DIR/fuzz-crashes/<target>-*
# and the run stops with the command that replays it.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_message fuzz_patch fuzz_match fuzz_splice)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/fuzz-crashes"
for t in "${targets[@]}"; do
  mkdir -p "$build/fuzz-corpus/$t"
  log="$build/fuzz-crashes/$t.log"
  if ! "$build/fuzz/$t" "$build/fuzz-corpus/$t" "$here/corpus/$t" \
      -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build/fuzz-crashes/$t-" >"$log" 2>&1; then
    grep -E -A12 'invariant violated|ERROR:|runtime error' "$log" | head -40 >&2 || tail -40 "$log" >&2
    crash=$(ls -t "$build/fuzz-crashes/$t"-* 2>/dev/null | grep -v '\.log$' | head -1 || true)
    echo "FAILED: $t (log $log); replay: $build/fuzz/$t ${crash:-<input>}" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "fuzz $t: ${runs:-?} inputs in ${seconds}s, no failure"
done
