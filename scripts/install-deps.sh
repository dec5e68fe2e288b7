#!/usr/bin/env bash
# Installs what memrep needs from Debian's packages, if it is missing.
# Usage: bash scripts/install-deps.sh
# python3-matplotlib draws the report's plots (scripts/report.sh); the tests
# need it too, so that the report's plot test runs rather than skips. clang
# and clang-format serve the clang and format lanes of scripts/test.sh;
# dpkg-dev (apt-get source), patch and gdb (backtraces of hangs) the stress
# lane's db_stress (scripts/stress.sh); libclang-rt-dev the fuzz lane's
# sanitizer and libFuzzer runtimes (clang only recommends them, and this
# script installs no recommendations).
set -euo pipefail

packages=(g++ cmake ninja-build pkg-config librocksdb-dev rocksdb-tools libgtest-dev
          libbenchmark-dev libxxhash-dev python3 python3-matplotlib clang clang-format git
          dpkg-dev patch xz-utils gdb libclang-rt-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
