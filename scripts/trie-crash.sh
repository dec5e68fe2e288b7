#!/usr/bin/env bash
# The trie's crash test, long: tests/trie_crash_test.cc kills a child process
# inserting into a file-backed trie at a random instant, many times over, and
# checks each file it leaves (structure whole, every acknowledged insert there,
# nothing the child could not have written). ctest runs 30 rounds; this runs
# as many as asked, in the release build (or another preset's).
#
# Usage: bash scripts/trie-crash.sh [--rounds N] [--seed S] [--preset P]
#   --rounds N   rounds in all, shared among the scenarios (default 1000)
#   --seed S     the first round's seed (default: random; a failure prints it)
#   --preset P   the CMake preset to build and run (default release; tsan, asan)
# Exits non-zero if any round finds a fault; the faulty image is kept and its
# path printed.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=1000
seed=
preset=release
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --rounds=*) rounds=${1#*=}; shift ;;
    --seed) seed=$2; shift 2 ;;
    --seed=*) seed=${1#*=}; shift ;;
    --preset) preset=$2; shift 2 ;;
    --preset=*) preset=${1#*=}; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "trie-crash.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

cmake --preset "$preset" >/dev/null
cmake --build "build/$preset" --target memrep_trie_crash_test -j "$(nproc)"
start=$SECONDS
env MEMREP_TRIE_CRASH_ROUNDS="$rounds" ${seed:+MEMREP_TRIE_CRASH_SEED="$seed"} \
  "build/$preset/tests/memrep_trie_crash_test"
echo "=== $rounds crash rounds in $((SECONDS - start)) s ==="
