#!/usr/bin/env bash
# The rep x workload x threads matrix (bench/README.md, "Matrix"): installs
# what is missing (Debian packages, with python3-matplotlib for the heat map),
# builds memrep_bench and the RocksDB plugin (release preset; build/peers too
# when scripts/peers.sh has configured it, so that its skip_list_ndebug base
# is current), and runs bench/matrix/matrix.py with the arguments given.
# Usage: bash scripts/matrix.sh --quick            # about 2 min on 2 cores -> build/matrix/
#        bash scripts/matrix.sh                    # the full matrix (about 11 hours; bench/README.md)
#        bash scripts/matrix.sh --quick --compare-bench OLD/memrep_bench \
#             --compare-plugin OLD/libmemrep_rocksdb.so   # two builds side by side
#        bash scripts/matrix.sh --help             # every flag
# Exit status: 0 the runs completed, 1 a benchmark failed, 2 bad flags.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target memrep_bench memrep_rocksdb >&2
if [[ -f build/peers/build.ninja ]]; then
  targets=(memrep_bench)
  # The db_bench base, when this build has it (bench/peers/peers.cmake).
  # grep reads ninja's whole list (no -q): an early exit would fail the
  # pipeline with SIGPIPE under pipefail, and the base would silently change.
  if ninja -C build/peers -t targets all 2>/dev/null | grep '^memrep_skip_list_ndebug_plugin:' >/dev/null; then
    targets+=(memrep_skip_list_ndebug_plugin)
  fi
  cmake --build build/peers --target "${targets[@]}" >&2
fi

python=$(bash scripts/matplotlib-python.sh)
exec "$python" -B bench/matrix/matrix.py "$@"
