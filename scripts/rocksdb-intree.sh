#!/usr/bin/env bash
# memrep inside RocksDB's own build: RocksDB built from source with
# ROCKSDB_PLUGINS=memrep, this repository as its plugin/memrep, then checked.
#
#   1. the source, unpacked into build/intree/rocksdb-<version>/: 7.8, 9.10
#      and 9.11 from Debian's source packages (through a private apt
#      configuration in build/intree/apt-<release>, with a deb-src entry for
#      that Debian release: scripts/apt-source.sh), 10.4 and 11.8 from the
#      Rust registry's librocksdb-sys crates, whose rocksdb/ folder is a whole
#      RocksDB tree (fetched by cargo with a throwaway manifest and CARGO_HOME
#      in build/intree/cargo; the crate is the release's tag less its docs/
#      and java/); or a RocksDB checkout given with --source. Nothing outside
#      build/ is written (neither apt's nor cargo's configuration). memrep's
#      build files and sources are copied into its plugin/memrep;
#   2. the build, release, with the machine's cores: make (RocksDB's
#      Makefile: librocksdb.a and db_bench) or, with --cmake, RocksDB's
#      CMake; a second run rebuilds only what changed. PORTABLE=1, as
#      Debian builds it (and because GCC 12 fails RocksDB 9.10's own
#      util/xxhash.cc under -Werror with -march=native on AVX-512 machines);
#   3. memrep's RocksDB-level tests (memrep_rocksdb_tests), linked against
#      that librocksdb, which holds memrep;
#   4. RocksDB's db_stress and crash test, the short lane of
#      tests/stress/stress.py (docs/testing.md), with db_stress built in that
#      tree (patched first, as the preload lane's is, so that --memtablerep
#      takes memrep's reps: tests/stress/patches for 7.8,
#      tests/stress/patches-<major.minor> for the others; not for a --source
#      tree);
#   5. db_bench side by side: skip_list and every memrep rep, RocksDB's
#      db_bench of that build (every rep built in, nothing preloaded); the
#      readrandom and seekrandom found counts of every rep must equal
#      skip_list's.
# Results: build/intree/results-<version>.md (and the run's output).
#
# Usage: bash scripts/rocksdb-intree.sh VERSION [options]
#   VERSION          7.8 (Debian 12's 7.8.3), 9.10 (Debian 13's 9.10.0), 9.11
#                    (Debian unstable's 9.11.2), 10.4 (librocksdb-sys
#                    0.17.3's 10.4.2) or 11.8 (librocksdb-sys 0.19.0's 11.8.1)
#   --source DIR     a RocksDB source tree instead (VERSION is then a label)
#   --cmake          build with RocksDB's CMake instead of its Makefile
#   --compile-only   configure RocksDB's CMake build and compile memrep's
#                    RocksDB face and RocksDB's registrar table in it, nothing
#                    else (scripts/test.sh's rocksdb9 lane)
#   --no-stress      no step 4;  --no-bench  no step 5
#   --lib-only       step 2 alone: librocksdb.a (with memrep) and db_bench
#                    (scripts/bindings.sh links the other languages to it)
#   --checks-bench   the cost of RocksDB's memtable integrity checks instead of
#                    steps 3 to 5: db_bench's readrandom, seekrandom,
#                    readwhilewriting and seekrandomwhilewriting for
#                    skip_list and every memrep rep, each with and without the
#                    checks (paranoid_memory_checks, per-key checksums on seek,
#                    memtable_protection_bytes_per_key=8: those the version
#                    has), alternating, and each one's slowdown
#                    (bench/report/db_bench_compare.py --checks); results in
#                    build/intree/checks-bench-<version>.md; with --preload,
#                    the preload build's db_bench, the plugin preloaded
#   --preload        the preload build instead of the in-tree one: RocksDB's
#                    CMake builds a shared librocksdb and its db_bench without
#                    plugins (-DROCKSDB_BUILD_SHARED=ON), memrep's own CMake
#                    builds libmemrep_rocksdb.so and its RocksDB-level tests
#                    against it (-DMEMREP_ROCKSDB_SOURCE=the tree), the tests
#                    run, and db_bench runs with the plugin preloaded for
#                    skip_list and every rep (found counts must match);
#                    results in build/intree/preload-<version>.md
#   --num N          db_bench keys (default 1000000); --repeats R (default 3)
#   --reps a,b       memrep reps for db_bench (default: every registered rep)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
fail() { echo "rocksdb-intree: $*" >&2; exit 1; }

[[ $# -ge 1 && $1 != -h && $1 != --help ]] || usage
label=$1
shift
source_dir="" build_system=make compile_only=0 stress=1 bench=1 num=1000000 repeats=3 reps=""
checks_bench=0 preload=0 lib_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --source) source_dir=$(cd "$2" && pwd); shift ;;
    --cmake) build_system=cmake ;;
    --compile-only) compile_only=1; build_system=cmake ;;
    --no-stress) stress=0 ;;
    --no-bench) bench=0 ;;
    --lib-only) lib_only=1 ;;
    --checks-bench) checks_bench=1 ;;
    --preload) preload=1 ;;
    --num) num=$2; shift ;;
    --repeats) repeats=$2; shift ;;
    --reps) reps=$2; shift ;;
    -h|--help) usage ;;
    *) echo "rocksdb-intree: unknown option '$1'" >&2; usage ;;
  esac
  shift
done

# Where each version's source comes from: a Debian source package (its
# version and release) or a librocksdb-sys crate (its exact version: the
# crate's "latest" is an old 6.20.3, so a version is always pinned).
deb_version="" crate=""
if [[ -z $source_dir ]]; then
  case "$label" in
    7.8|7.8.3) deb_version=7.8.3-2 suite=bookworm version=7.8.3 ;;
    9.10|9.10.0) deb_version=9.10.0-1 suite=trixie version=9.10.0 ;;
    9.11|9.11.2) deb_version=9.11.2-1 suite=sid version=9.11.2 ;;
    10.4|10.4.2) crate=0.17.3+10.4.2 version=10.4.2 ;;
    11.8|11.8.1) crate=0.19.0+11.8.1 version=11.8.1 ;;
    *) fail "no source known for RocksDB '$label' (7.8, 9.10, 9.11, 10.4 and 11.8 are); for" \
            "another RocksDB, pass its source tree with --source DIR" ;;
  esac
else
  version=$label
fi

bash scripts/install-deps.sh
jobs=$(nproc)
work=$repo/build/intree
mkdir -p "$work"

# 1. The source.
if [[ -n $source_dir ]]; then
  src=$source_dir
elif [[ -n $crate ]]; then
  src=$work/rocksdb-$version
  if [[ ! -f $src/.memrep-source-crate-$crate ]]; then
    # shellcheck source=scripts/crate-source.sh
    source scripts/crate-source.sh
    crate_source "$work/cargo" "$crate" "$src" || fail "could not fetch librocksdb-sys $crate"
    touch "$src/.memrep-source-crate-$crate"
  fi
else
  src=$work/rocksdb-$version
  if [[ ! -f $src/.memrep-source-$deb_version ]]; then
    apt_source_who=rocksdb-intree
    # shellcheck source=scripts/apt-source.sh
    source scripts/apt-source.sh
    apt_source_init "$work/apt-$suite" "$suite"
    apt_source -qq source --print-uris "rocksdb=$deb_version" >/dev/null 2>&1 || apt_source_update
    # Only the upstream tarball is needed (Debian's patches are for its packaging).
    line=$(apt_source -qq source --print-uris "rocksdb=$deb_version" 2>/dev/null | grep "orig\.tar" || true)
    [[ -n $line ]] || fail "apt serves no source of rocksdb $deb_version from Debian $suite (the" \
                           "deb-src entry: $work/apt-$suite/sources.list.d/memrep.sources)"
    read -r uri name _size hash <<<"$line"
    uri=${uri//\'/}
    rm -rf "$work/download" "$src"
    mkdir -p "$work/download"
    /usr/lib/apt/apt-helper "${apt_source_opts[@]}" -qq download-file "$uri" "$work/download/$name" \
      "$hash" >/dev/null ||
      fail "could not download $uri"
    mkdir -p "$src"
    tar -xf "$work/download/$name" -C "$src" --strip-components=1
    rm -rf "$work/download"
    touch "$src/.memrep-source-$deb_version"
  fi
fi
[[ -f $src/include/rocksdb/version.h ]] || fail "$src is not a RocksDB source tree"
tree_version=$(awk '/^#define ROCKSDB_(MAJOR|MINOR|PATCH) / {v = v (v == "" ? "" : ".") $3} END {print v}' \
  "$src/include/rocksdb/version.h")
[[ -n $source_dir || $tree_version == "$version" ]] ||
  fail "$src holds RocksDB $tree_version, not $version: remove it, and rerun to fetch it anew"
# memrep's files are copied there, not linked: RocksDB's make writes its
# objects beside the sources, and each RocksDB tree needs its own. Files keep
# their times, so make recompiles only what changed since the last copy.
plugin=$src/plugin/memrep
if [[ -L $plugin ]]; then
  rm "$plugin"
elif [[ -d $plugin && ! -f $plugin/.memrep-copy ]]; then
  fail "$plugin is not a copy this script made; remove it, or build that tree yourself"
fi
mkdir -p "$plugin"
git ls-files -co --exclude-standard -- memrep.mk CMakeLists.txt cmake include src rocksdb |
  tar -cf - -T - | tar -xf - -C "$plugin"
touch "$plugin/.memrep-copy"
echo "rocksdb-intree: RocksDB $version at $src, memrep copied to $plugin" >&2

# The reps, from memrep_bench of the preload build (it names the reps and
# their traits).
memrep_reps() {
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$jobs" --target memrep_bench
  memrep_bench=build/release/bench/memrep_bench
  if [[ -z $reps ]]; then
    reps=$("$memrep_bench" --list_reps |
      python3 -c 'import json, sys; print(",".join(r["canonical_name"] for r in json.load(sys.stdin)["reps"] if r["memrep"]))')
  fi
}

# --checks-bench: db_bench ($1, then its flags: --built-in or --plugin SO)
# with and without RocksDB's memtable checks, for skip_list and every rep.
checks_bench() {
  local db_bench=$1
  shift
  memrep_reps
  local out=$work/checks-bench-$version.md load_before
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  python3 bench/report/db_bench_compare.py --db-bench "$db_bench" "$@" --memrep-bench "$memrep_bench" \
    --reps "skip_list,$reps" --checks \
    --workloads readrandom,seekrandom,readwhilewriting,seekrandomwhilewriting \
    --num "$num" --reads "$num" --repeats "$repeats" | tee "$out.tmp"
  {
    echo "# RocksDB $version's memtable checks, db_bench with and without them"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); memrep commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
    echo "- machine: $(nproc) cores, load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
    echo "- db_bench: $db_bench $*"
    echo
    cat "$out.tmp"
  } >"$out"
  rm -f "$out.tmp"
  echo "rocksdb-intree: results in $out"
}

# --preload: a shared librocksdb without plugins, the plugin preloaded.
if [[ $preload == 1 ]]; then
  shared=$work/shared-$version
  # FAIL_ON_WARNINGS=OFF: GCC 12 fails RocksDB 11.8's own options/*.cc under
  # -Werror=restrict (a false positive in std::string, options_type.h);
  # memrep's files are built by memrep's CMake below, with -Werror.
  cmake -S "$src" -B "$shared" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTABLE=1 \
    -DFAIL_ON_WARNINGS=OFF -DROCKSDB_BUILD_SHARED=ON -DWITH_TESTS=OFF -DWITH_TOOLS=OFF -DWITH_CORE_TOOLS=OFF \
    -DWITH_BENCHMARK_TOOLS=ON >"$shared.configure.log" 2>&1 ||
    { tail -30 "$shared.configure.log" >&2; fail "RocksDB's CMake failed (log: $shared.configure.log)"; }
  ! grep -qE "ROCKSDB PLUGINS TO BUILD +[^ ]" "$shared.configure.log" ||
    fail "RocksDB's CMake in $shared builds plugins: remove $shared and rerun"
  ninja -C "$shared" -j "$jobs" rocksdb-shared db_bench
  library=$(find "$shared" -maxdepth 1 -name 'librocksdb.so' | head -1)
  [[ -n $library && -x $shared/db_bench ]] || fail "the build left no $shared/librocksdb.so or db_bench"
  # memrep's own build against it: the plugin and the RocksDB-level tests.
  build=$work/preload-$version
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMREP_WERROR=ON \
    -DROCKSDB_INCLUDE_DIR="$src/include" -DROCKSDB_LIBRARY="$library" -DMEMREP_ROCKSDB_SOURCE="$src" \
    -DMEMREP_BUILD_BENCH=OFF -DMEMREP_BUILD_EXAMPLES=OFF >"$build.configure.log" 2>&1 ||
    { tail -30 "$build.configure.log" >&2; fail "memrep's CMake failed (log: $build.configure.log)"; }
  grep "memrep: " "$build.configure.log" >&2
  cmake --build "$build" -j "$jobs" --target memrep_rocksdb memrep_rocksdb_tests
  if [[ $checks_bench == 1 ]]; then
    checks_bench "$shared/db_bench" --plugin "$build/rocksdb/libmemrep_rocksdb.so"
    exit 0
  fi
  ctest --test-dir "$build" -j "$jobs" -R '^memrep_rocksdb_tests_' --output-on-failure |
    tee "$work/preload-tests-$version.log"
  memrep_reps
  out=$work/preload-$version.md
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  python3 bench/report/db_bench_compare.py --db-bench "$shared/db_bench" \
    --plugin "$build/rocksdb/libmemrep_rocksdb.so" --memrep-bench "$memrep_bench" \
    --reps "skip_list,$reps" --workloads fillrandom,readrandom,seekrandom \
    --num "$num" --reads "$num" --repeats "$repeats" | tee "$out.tmp"
  {
    echo "# memrep preloaded into a shared librocksdb $version without plugins"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); memrep commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
    echo "- librocksdb: $library (RocksDB's CMake, -DROCKSDB_BUILD_SHARED=ON, no plugins)"
    echo "- plugin: $build/rocksdb/libmemrep_rocksdb.so (-DMEMREP_ROCKSDB_SOURCE=$src)"
    echo "- memrep_rocksdb_tests against it: $(grep -E 'tests passed|tests failed' "$work/preload-tests-$version.log" | tail -1)"
    echo "- machine: $(nproc) cores, load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
    echo
    cat "$out.tmp"
  } >"$out"
  rm -f "$out.tmp"
  echo "rocksdb-intree: results in $out"
  exit 0
fi

# 2. The build. RocksDB 7.8.3's own code fails GCC 12's -Werror
# (maybe-uninitialized, trace_replay.cc), so for 7.8 warnings stay warnings,
# and the log is checked for any in memrep's files instead.
results=$work/results-$version.md
log=$work/build-$version-$build_system.log
werror=1
[[ $version == 7.8.* ]] && werror=0
if [[ $build_system == cmake ]]; then
  build=$work/cmake-$version
  flags=(-DROCKSDB_PLUGINS=memrep -DCMAKE_BUILD_TYPE=Release -DPORTABLE=1 -DROCKSDB_BUILD_SHARED=OFF
         -DWITH_TESTS=OFF -DFAIL_ON_WARNINGS=$([[ $werror == 1 ]] && echo ON || echo OFF))
  if [[ $compile_only == 1 ]]; then
    flags+=(-DWITH_GFLAGS=OFF -DWITH_TOOLS=OFF -DWITH_BENCHMARK_TOOLS=OFF -DWITH_CORE_TOOLS=OFF)
  else
    # The compression libraries RocksDB's make finds by itself (db_stress
    # uses them; Debian's librocksdb-dev brings their -dev packages).
    flags+=(-DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZLIB=ON -DWITH_ZSTD=ON -DWITH_BZ2=ON)
  fi
  cmake -S "$src" -B "$build" -G Ninja "${flags[@]}" >"$build.configure.log" 2>&1 ||
    { tail -30 "$build.configure.log" >&2; fail "RocksDB's CMake failed (log: $build.configure.log)"; }
  grep "memrep" "$build.configure.log" | grep -v "Appending" >&2 || true
  if [[ $compile_only == 1 ]]; then
    # memrep's RocksDB face, and the registrar table that calls memrep's.
    mapfile -t objects < <(ninja -C "$build" -t targets all |
      grep -oE '^CMakeFiles/rocksdb\.dir/(plugin/memrep/rocksdb/[^:]+|build_version\.cc)\.o' | sort -u)
    [[ ${#objects[@]} -ge 2 ]] || fail "RocksDB's CMake build has no memrep objects: is the plugin in?"
    ninja -C "$build" -j "$jobs" "${objects[@]}"
    echo "rocksdb-intree: memrep's RocksDB face compiles in RocksDB $version's CMake build" \
         "(${#objects[@]} objects)"
    exit 0
  fi
  ninja -C "$build" -j "$jobs" rocksdb db_bench 2>&1 | tee "$log"
  library=$build/librocksdb.a
  db_bench=$build/db_bench
  # The libraries db_bench's link gives librocksdb.a (compression, ...).
  ldflags=$(ninja -C "$build" -t commands db_bench | tail -1 | tr ' ' '\n' |
    grep -E '^-l|^-pthread$|\.so(\.[0-9]+)*$|\.a$' | grep -v 'librocksdb\.\(a\|so\)' | xargs)
else
  make_flags=(ROCKSDB_PLUGINS=memrep DEBUG_LEVEL=0 PORTABLE=1)
  [[ $werror == 1 ]] || make_flags+=(DISABLE_WARNING_AS_ERROR=1)
  make -C "$src" -j "$jobs" "${make_flags[@]}" static_lib db_bench 2>&1 | tee "$log"
  library=$src/librocksdb.a
  db_bench=$src/db_bench
  ldflags=$(sed -n 's/^PLATFORM_LDFLAGS=//p' "$src/make_config.mk")
fi
[[ -f $library && -x $db_bench ]] || fail "the build left no $library or $db_bench"
if grep -E "plugin/memrep/[^ ]*: warning:" "$log"; then
  fail "memrep's files compiled with warnings in RocksDB $version's build (above; $log)"
fi

if [[ $checks_bench == 1 ]]; then
  checks_bench "$db_bench" --built-in
  exit 0
fi
if [[ $lib_only == 1 ]]; then
  echo "rocksdb-intree: $library holds memrep; it needs: $ldflags"
  exit 0
fi

# 3. memrep's RocksDB-level tests against that library.
tests=$work/tests-$version-$build_system
cmake -S "$repo" -B "$tests" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMEMREP_ROCKSDB_INTREE_LIBRARY="$library" -DMEMREP_ROCKSDB_INTREE_SOURCE="$src" \
  -DMEMREP_ROCKSDB_INTREE_LDFLAGS="$ldflags" >/dev/null
cmake --build "$tests" -j "$jobs" --target memrep_rocksdb_tests
ctest --test-dir "$tests" -j "$jobs" -R '^memrep_rocksdb_tests_' --output-on-failure | tee "$work/tests-$version.log"

{
  echo "# memrep in RocksDB $version's own build ($build_system)"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); memrep commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
  echo "- machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) after the tests"
  echo "- memrep_rocksdb_tests: $(grep -E 'tests passed|tests failed' "$work/tests-$version.log" | tail -1)"
} >"$results"

memrep_reps

# 4. db_stress, the short lane.
patches=tests/stress/patches-${version%.*}
[[ $version == 7.8.* ]] && patches=tests/stress/patches
if [[ $stress == 1 && ( -n $source_dir || ! -d $patches ) ]]; then
  echo "rocksdb-intree: no db_stress for RocksDB $version (patches only for the fetched versions" \
       "with a tests/stress/patches-<version>)" >&2
  stress=0
fi
if [[ $stress == 1 ]]; then
  stamp=.memrep-stress-patches-$(cat "$patches"/*.patch | sha256sum | cut -c1-16)
  if [[ ! -f $src/$stamp ]]; then
    if compgen -G "$src/.memrep-stress-patches-*" >/dev/null; then
      fail "$patches changed since they were applied to $src: remove it, and rerun to fetch it anew"
    fi
    for p in "$patches"/*.patch; do
      patch -d "$src" -p1 -s --forward --no-backup-if-mismatch <"$p" || fail "$p does not apply"
    done
    touch "$src/$stamp"
  fi
  if [[ $build_system == cmake ]]; then
    ninja -C "$build" -j "$jobs" db_stress
    db_stress=$(find "$build" -name db_stress -type f -perm -u+x | head -1)
  else
    make -C "$src" -j "$jobs" "${make_flags[@]}" db_stress
    db_stress=$src/db_stress
  fi
  stress_status=0
  python3 tests/stress/stress.py --lane short --built-in --release --db_stress "$db_stress" \
    --crashtest "$src/tools/db_crashtest.py" --memrep_bench "$memrep_bench" \
    --out "$work/stress-$version" || stress_status=$?
  {
    echo "- db_stress, the short lane (exit status $stress_status):"
    echo
    cat "$work/stress-$version/results.md" 2>/dev/null || echo "(no results.md)"
    echo
  } >>"$results"
  [[ $stress_status == 0 ]] || fail "db_stress's short lane failed (build/intree/stress-$version)"
fi

# 5. db_bench side by side.
if [[ $bench == 1 ]]; then
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  python3 bench/report/db_bench_compare.py --db-bench "$db_bench" --built-in --memrep-bench "$memrep_bench" \
    --reps "skip_list,$reps" --workloads fillrandom,readrandom,seekrandom \
    --num "$num" --reads "$num" --repeats "$repeats" | tee "$work/db_bench-$version.md"
  {
    echo "- db_bench ($db_bench), load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
    echo
    cat "$work/db_bench-$version.md"
  } >>"$results"
fi
echo "rocksdb-intree: results in $results"
