#!/usr/bin/env bash
# Runs the libFuzzer targets built in BUILD_DIR (cmake -DEDITD_FUZZ=ON, target
# fuzz_targets) over their seed corpora tests/fuzz/corpus/<target>.
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#     each target for SECONDS with a random seed; new inputs are kept in
#     BUILD_DIR/fuzz-corpus/<target> for the next run (finding bugs).
#   tests/fuzz/run.sh BUILD_DIR --smoke RUNS [TARGET...]
#     each target replays its seeds, then RUNS mutations from seed 1 into a
#     corpus thrown away afterwards: the same inputs on every machine and every
#     run, so that a test suite that calls it passes or fails reproducibly.
# The seeds in the repo are never written. A failing input is saved as
# BUILD_DIR/fuzz-crashes/<target>-* and the run stops with the command that
# replays it.
set -euo pipefail
usage='usage: run.sh BUILD_DIR SECONDS|--smoke RUNS [TARGET...]'
build=${1:?$usage}
mode=${2:?$usage}
shift 2
if [ "$mode" = --smoke ]; then
  runs=${1:?$usage}
  shift
  limit=(-runs="$runs" -seed=1)
  what="$runs mutations from seed 1"
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
else
  limit=(-max_total_time="$mode")
  what="${mode}s"
  scratch=
fi
here=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_message fuzz_patch fuzz_match fuzz_splice)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/fuzz-crashes"
for t in "${targets[@]}"; do
  corpus=${scratch:-$build/fuzz-corpus}/$t
  mkdir -p "$corpus"
  log="$build/fuzz-crashes/$t.log"
  if ! "$build/fuzz/$t" "$corpus" "$here/corpus/$t" \
      "${limit[@]}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build/fuzz-crashes/$t-" >"$log" 2>&1; then
    grep -E -A12 'invariant violated|ERROR:|runtime error' "$log" | head -40 >&2 || tail -40 "$log" >&2
    crash=$(ls -t "$build/fuzz-crashes/$t"-* 2>/dev/null | grep -v '\.log$' | head -1 || true)
    echo "FAILED: $t (log $log); replay: $build/fuzz/$t ${crash:-<input>}" >&2
    exit 1
  fi
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "fuzz $t: ${executed:-?} inputs ($what), no failure"
done
