#!/usr/bin/env bash
# Checks the repository's git hooks (.githooks/, CONTRIBUTING.md):
#   1. commit-msg takes well-shaped messages and refuses, with exit status 1
#      and a line saying why, an empty subject, one over 72 characters, one
#      ending with a period, and a body with no blank line before it;
#   2. pre-commit (where clang-format is installed), in a scratch repository
#      with this repository's .clang-format: passes a formatted staged file,
#      refuses a badly formatted one, and judges the staged content, not the
#      working tree's.
# Usage: bash tests/hooks_test.sh MEMREP_SOURCE_DIR
set -u
src=$(cd "${1:?usage: hooks_test.sh MEMREP_SOURCE_DIR}" && pwd)
hook=$src/.githooks/commit-msg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# accept NAME MESSAGE: the hook must exit 0.
accept() {
  printf '%s' "$2" >"$tmp/msg"
  local out status
  out=$(bash "$hook" "$tmp/msg" 2>&1)
  status=$?
  [[ $status -eq 0 ]] || fail "commit-msg refused $1 (status $status): $out"
}
# refuse NAME WHY MESSAGE: the hook must exit 1 and print WHY.
refuse() {
  printf '%s' "$3" >"$tmp/msg"
  local out status
  out=$(bash "$hook" "$tmp/msg" 2>&1)
  status=$?
  [[ $status -eq 1 ]] || fail "commit-msg exited $status, not 1, on $1"
  grep -qF -- "$2" <<<"$out" || fail "commit-msg did not say \"$2\" on $1: $out"
}

s72=$(printf 'x%.0s' {1..72})
accept "a subject alone" $'Add a commit-msg hook\n'
accept "a subject and a body" $'Add a commit-msg hook\n\nThe why, with figures.\n'
accept "a subject of 72 characters" "$s72"
accept "git's comment lines" $'Add a hook\n\n# Please enter the commit message\n# Lines starting with # are ignored.\n'
accept "a subject after blank lines" $'\n\nAdd a hook\n'
accept "a scissors line" $'Add a hook\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n'
accept "a 72-character UTF-8 subject" "$(printf 'é%.0s' {1..72})"
refuse "an empty message" "the subject line is empty" ""
refuse "only comments" "the subject line is empty" $'# Please enter the commit message\n'
refuse "a subject of 73 characters" "73 characters, more than 72" "${s72}y"
refuse "a trailing period" "ends with a period" $'Add a hook.\n\nBody.\n'
refuse "no blank line before the body" "no blank line between the subject and the body" \
  $'Add a hook\nThe body, right below.\n'
# Several problems at once: each is named.
printf 'Added a hook to check the commit messages, which makes a subject line far too long to read.\nBody\n' >"$tmp/msg"
out=$(bash "$hook" "$tmp/msg" 2>&1)
[[ $? -eq 1 ]] || fail "commit-msg did not refuse a message with three problems"
for why in "more than 72" "ends with a period" "no blank line"; do
  grep -qF "$why" <<<"$out" || fail "commit-msg did not say \"$why\" among three problems: $out"
done

# 2. pre-commit in a scratch repository.
if command -v clang-format >/dev/null && command -v git >/dev/null; then
  repo=$tmp/repo
  git init -q "$repo"
  cp "$src/.clang-format" "$repo/"
  (
    cd "$repo" || exit 1
    pre=$src/.githooks/pre-commit
    printf 'int f(int x) { return x + 1; }\n' >good.cc
    git add good.cc .clang-format
    bash "$pre" >out 2>&1 || { echo "FAIL: pre-commit refused a formatted file: $(cat out)"; exit 1; }
    printf 'int   g( int x ){return x;}\n' >bad.h
    git add bad.h
    bash "$pre" >out 2>&1 && { echo "FAIL: pre-commit passed a badly formatted file"; exit 1; }
    grep -q "bad.h" out || { echo "FAIL: pre-commit did not name bad.h: $(cat out)"; exit 1; }
    # Fixed in the working tree but not staged: still refused.
    printf 'int g(int x) { return x; }\n' >bad.h
    bash "$pre" >out 2>&1 && { echo "FAIL: pre-commit judged the working tree, not the index"; exit 1; }
    git add bad.h
    bash "$pre" >out 2>&1 || { echo "FAIL: pre-commit refused a fixed, staged file: $(cat out)"; exit 1; }
    exit 0
  ) || failures=$((failures + 1))
else
  echo "hooks_test: clang-format or git not installed: pre-commit not checked"
fi

if [[ $failures -gt 0 ]]; then
  echo "hooks_test: $failures failure(s)"
  exit 1
fi
echo "hooks_test: passed"
