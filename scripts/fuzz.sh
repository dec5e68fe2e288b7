#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz (tests/fuzz/README.md): builds the fuzz
# preset (clang, ASan + UBSan, assertions), replays every saved input of
# each target (its corpus and its regressions), then fuzzes it for a while
# on a temporary copy of its corpus, so the repository is left as it was.
#
# Usage: bash scripts/fuzz.sh [--seconds N] [--merge] [target...]
#   --seconds N  fuzzing time per target (default 20: the short run; 300 for the long lane)
#   --merge      afterwards, add the new inputs that cover more to tests/fuzz/corpus (-merge=1)
#   target       option_fuzz and/or ops_fuzz (default: both)
# Exits non-zero if any input crashes or finds a mismatch, saying where the
# input was saved (build/fuzz/crashes/<target>/) and how to reproduce it.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=20
merge=0
targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --seconds=*) seconds=${1#*=}; shift ;;
    --merge|--keep) merge=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ ${#targets[@]} -eq 0 ]] && targets=(option_fuzz ops_fuzz)

start=$SECONDS
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
echo "=== built in $((SECONDS - start)) s ==="

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=()

# Prints what a failed run said and where its input is.
report_failure() {
  local target=$1 log=$2 input=$3
  grep -E "^$target: |^==[0-9]+==ERROR|^SUMMARY|runtime error|assertion failed|^terminate called" \
    "$log" | head -n 8 >&2 || true
  echo "FAILED: $target on $input" >&2
  echo "  reproduce: build/fuzz/tests/fuzz/$target $input    (full log: $log)" >&2
  failed+=("$target")
}

for target in "${targets[@]}"; do
  binary=build/fuzz/tests/fuzz/$target
  corpus=tests/fuzz/corpus/$target
  artifacts=build/fuzz/crashes/$target
  logs=build/fuzz/logs
  mkdir -p "$artifacts" "$logs" "$work/$target"
  dict=()
  [[ -f tests/fuzz/$target.dict ]] && dict=(-dict="tests/fuzz/$target.dict")

  # Every saved input once: all in one run, and if that fails, each alone,
  # so that each failing input is named. The ones that pass seed the fuzzing.
  mapfile -t saved < <(find "$corpus" "tests/fuzz/regressions/$target" -type f \
                         ! -name 'README*' 2>/dev/null | sort)
  replay_failures=0
  if ! "$binary" "${saved[@]}" >"$logs/$target.replay.log" 2>&1; then
    for input in "${saved[@]}"; do
      if "$binary" "$input" >"$logs/$target.replay.log" 2>&1; then
        cp "$input" "$work/$target/"
      else
        replay_failures=$((replay_failures + 1))
        cp "$logs/$target.replay.log" "$logs/$target.replay.$replay_failures.log"
        report_failure "$target" "$logs/$target.replay.$replay_failures.log" "$input"
      fi
    done
  else
    cp "${saved[@]}" "$work/$target/"
  fi
  echo "=== $target: replayed ${#saved[@]} saved inputs, $replay_failures failed ==="

  # Fuzz on that copy; a failing input is saved under $artifacts.
  log=$logs/$target.log
  if "$binary" "$work/$target" "${dict[@]}" -max_total_time="$seconds" -timeout=30 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1)
    echo "=== $target: ${seconds} s, $runs runs, $rate runs/s, $cov, no failure ==="
  else
    input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    report_failure "$target" "$log" "${input:-(no input saved; see the log)}"
    [[ -n "$input" ]] && echo "  keep it: cp $input tests/fuzz/regressions/$target/<what-it-shows>" >&2
  fi

  if [[ $merge -eq 1 ]]; then
    before=$(find "$corpus" -type f | wc -l)
    "$binary" -merge=1 "$corpus" "$work/$target" >"$logs/$target.merge.log" 2>&1
    echo "=== $target: corpus $before -> $(find "$corpus" -type f | wc -l) files (--merge) ==="
  fi
done

echo "=== fuzz.sh took $((SECONDS - start)) s ==="
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "=== FAILED: $(printf '%s\n' "${failed[@]}" | sort -u | tr '\n' ' ')===" >&2
  exit 1
fi
echo "=== every target passed: ${targets[*]} ==="
