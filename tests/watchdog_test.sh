#!/usr/bin/env bash
# Checks the test watchdog (tests/watchdog.cc) in one test binary: its
# sleeping test, run alone with a limit of 1 s and --gtest_brief=1 as ctest
# runs every binary, must be aborted, with the test's full name and every
# thread's stack printed.
# Usage: bash tests/watchdog_test.sh <gtest binary>
set -uo pipefail
binary=$1
name=Watchdog.DISABLED_SleepsPastTheLimit
out=$(MEMREP_TEST_WATCHDOG_S=1 "$binary" --gtest_brief=1 --gtest_also_run_disabled_tests \
        --gtest_filter="$name" 2>&1)
status=$?
fail() { printf '%s\n' "$out"; echo "watchdog_test: $*" >&2; exit 1; }
[[ $status -ne 0 ]] || fail "the binary exited 0: the watchdog did not abort it"
grep -q "\[ WATCHDOG \] test $name has run for" <<<"$out" || fail "no line names $name"
if command -v gdb >/dev/null || command -v eu-stack >/dev/null; then
  # Both threads' stacks: the test body's frame (by its class where the
  # build has full debug information; with line tables only, a debugger
  # names the bare TestBody at this test's file), and the second thread's.
  grep -qE "SleepsPastTheLimit_Test::TestBody|TestBody \(\) at [^ ]*tests/watchdog\.cc:" <<<"$out" ||
    fail "no stack shows the test's body"
  threads=$(grep -cE '^(Thread [0-9]+ \(|TID [0-9]+:)' <<<"$out")
  [[ $threads -ge 2 ]] || fail "$threads thread stacks, not at least 2"
else
  threads=$(grep -c '^Thread [0-9]* (' <<<"$out")
  [[ $threads -ge 2 ]] || fail "$threads threads listed from /proc, not at least 2"
fi
grep -q "\[ WATCHDOG \] aborting the test binary" <<<"$out" || fail "no abort line"
echo "watchdog_test: $(basename "$binary"): aborted after naming $name, $threads thread stacks"
