#!/usr/bin/env bash
# Runs a command on a deliberately oversubscribed machine: beside it, N busy
# processes per core (default 2) that spin at the command's own priority, so
# that every thread of the command gets a fraction of a core, is descheduled
# at any instruction, and waits far longer than on a quiet machine. Tests
# that hope for an interleaving or a quick background step, rather than
# force or bound it, stall or fail here (tests/README.md, "Writing tests
# that survive load"). The busy processes are stopped when the command ends,
# however it ends. Prints the command's wall time; exits with its status.
# Usage: bash scripts/oversubscribe.sh [--per-core N] [--] command [args...]
#   e.g. bash scripts/oversubscribe.sh ctest --preset tsan -j 2
set -uo pipefail
per_core=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --per-core) per_core=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if [[ $# -eq 0 ]]; then
  echo "usage: bash scripts/oversubscribe.sh [--per-core N] [--] command [args...]" >&2
  exit 2
fi
busy=$((per_core * $(nproc)))
pids=()
stop() {
  [[ ${#pids[@]} -gt 0 ]] && kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
  pids=()
}
trap stop EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < busy; i++)); do
  # A subshell that spins without forking: one busy core's worth each.
  (trap - INT TERM EXIT; while :; do :; done) &
  pids+=($!)
done
echo "oversubscribe: $busy busy processes beside: $*" >&2
start=$SECONDS
"$@"
status=$?
stop
echo "oversubscribe: exit $status after $((SECONDS - start)) s beside $busy busy processes" >&2
exit $status
