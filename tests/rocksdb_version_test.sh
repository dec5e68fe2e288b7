#!/usr/bin/env bash
# The RocksDB version checks, from the outside, against stand-in RocksDB trees
# that hold only include/rocksdb/version.h:
#   1. memrep's own CMake (the preload plugin) refuses RocksDB 9.10 at
#      configure time and points to MEMREP_ROCKSDB_SOURCE and the in-tree
#      build; with MEMREP_ROCKSDB_SOURCE it refuses a tree of another version
#      (naming both and what to pass) or no RocksDB tree at all, and takes
#      one of the library's version;
#   2. memrep.mk, as RocksDB's make includes it: 7.7 is refused, 7.8 and
#      9.10 pass quietly, 12.0 passes with a note that it was not verified;
#   3. the CMake plugin fragment, as RocksDB's CMake adds plugin/memrep:
#      7.7 is refused, 9.10 gets memrep's source list.
# Usage: rocksdb_version_test.sh MEMREP_SOURCE_DIR
set -u
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A stand-in RocksDB tree $1 of version $2.$3.$4, with memrep as its plugin.
fake() {
  mkdir -p "$tmp/$1/include/rocksdb" "$tmp/$1/plugin"
  printf '#define ROCKSDB_MAJOR %s\n#define ROCKSDB_MINOR %s\n#define ROCKSDB_PATCH %s\n' \
    "$2" "$3" "$4" >"$tmp/$1/include/rocksdb/version.h"
  ln -sfn "$src" "$tmp/$1/plugin/memrep"
}

# 1. The preload build against RocksDB 9.10.
fake r9 9 10 0
touch "$tmp/r9/librocksdb.so"
if out=$(cmake -S "$src" -B "$tmp/preload" -DMEMREP_BUILD_TESTS=OFF -DMEMREP_BUILD_BENCH=OFF \
           -DMEMREP_BUILD_EXAMPLES=OFF -DROCKSDB_INCLUDE_DIR="$tmp/r9/include" \
           -DROCKSDB_LIBRARY="$tmp/r9/librocksdb.so" 2>&1); then
  fail "memrep's CMake accepted RocksDB 9.10 for the preload plugin"
fi
out=$(tr -s ' \n' '  ' <<<"$out")  # CMake wraps its messages
grep -q "RocksDB 9.10.0" <<<"$out" || fail "the refusal does not name the version found: $out"
grep -q "ROCKSDB_PLUGINS=memrep" <<<"$out" || fail "the refusal does not point to the in-tree build: $out"
grep -q "MEMREP_ROCKSDB_SOURCE=" <<<"$out" || fail "the refusal does not point to MEMREP_ROCKSDB_SOURCE: $out"

# ... and with a source tree: $1 the tree's version, $2 whether it has the
# internal headers, $3 what CMake must do (refused-version, refused-tree, taken).
preload_with_source() {
  local tree=$tmp/src-$1-$2
  mkdir -p "$tree/include/rocksdb"
  IFS=. read -r major minor patch <<<"$1"
  printf '#define ROCKSDB_MAJOR %s\n#define ROCKSDB_MINOR %s\n#define ROCKSDB_PATCH %s\n' \
    "$major" "$minor" "$patch" >"$tree/include/rocksdb/version.h"
  if [[ $2 == headers ]]; then
    mkdir -p "$tree/memory" "$tree/db"
    touch "$tree/memory/arena.h" "$tree/db/lookup_key.h"
  fi
  local out rc
  out=$(cmake -S "$src" -B "$tmp/preload-$1-$2" -DMEMREP_BUILD_TESTS=OFF -DMEMREP_BUILD_BENCH=OFF \
          -DMEMREP_BUILD_EXAMPLES=OFF -DROCKSDB_INCLUDE_DIR="$tmp/r9/include" \
          -DROCKSDB_LIBRARY="$tmp/r9/librocksdb.so" -DMEMREP_ROCKSDB_SOURCE="$tree" 2>&1)
  rc=$?
  out=$(tr -s ' \n' '  ' <<<"$out")
  case "$3" in
    refused-version)
      [[ $rc -ne 0 ]] && grep -q "is RocksDB $1, but the library's headers" <<<"$out" &&
        grep -q "are RocksDB 9.10.0: pass -DMEMREP_ROCKSDB_SOURCE=<the source tree of RocksDB 9.10.0>" <<<"$out" ||
        fail "a RocksDB $1 tree for 9.10.0's library: want a refusal naming both, got rc $rc: $out" ;;
    refused-tree)
      [[ $rc -ne 0 ]] && grep -q "is not a RocksDB source tree" <<<"$out" ||
        fail "a tree without internal headers: want a refusal, got rc $rc: $out" ;;
    taken)
      [[ $rc -eq 0 ]] && grep -q "internal headers from $tree" <<<"$out" ||
        fail "RocksDB 9.10.0's tree for its library: want it taken, got rc $rc: $out" ;;
  esac
}
preload_with_source 9.11.2 headers refused-version
preload_with_source 9.10.0 none refused-tree
preload_with_source 9.10.0 headers taken

# 2. memrep.mk in RocksDB's make.
for case in "r77 7 7 0 refused" "r78 7 8 3 quiet" "r910 9 10 0 quiet" "r12 12 0 0 noted"; do
  read -r dir major minor patch want <<<"$case"
  fake "$dir" "$major" "$minor" "$patch"
  printf 'OBJ_DIR = .\ninclude plugin/memrep/memrep.mk\nall:\n\t@echo "sources: $(memrep_SOURCES)"\n' \
    >"$tmp/$dir/Makefile"
  out=$(make -s -C "$tmp/$dir" 2>&1)
  rc=$?
  case "$want" in
    refused) [[ $rc -ne 0 ]] && grep -q "needs RocksDB 7.8 or newer" <<<"$out" ||
               fail "make with RocksDB $major.$minor: want a refusal, got rc $rc: $out" ;;
    quiet) [[ $rc -eq 0 ]] && grep -q "sources: src/" <<<"$out" && ! grep -q "not among" <<<"$out" ||
             fail "make with RocksDB $major.$minor: want the sources and no note, got rc $rc: $out" ;;
    noted) [[ $rc -eq 0 ]] && grep -q "not among the versions" <<<"$out" ||
             fail "make with RocksDB $major.$minor: want a note, got rc $rc: $out" ;;
  esac
done

# 3. The CMake fragment, added as RocksDB's CMake adds a plugin.
for case in "r77 refused" "r910 listed"; do
  read -r dir want <<<"$case"
  cat >"$tmp/$dir/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.22)
project(stand_in_rocksdb NONE)
set(ROCKSDB_PLUGINS memrep)
add_subdirectory(plugin/memrep)
message(STATUS "sources: ${memrep_SOURCES}; flags: ${memrep_COMPILE_FLAGS}")
EOF
  out=$(cmake -S "$tmp/$dir" -B "$tmp/$dir/build" 2>&1)
  rc=$?
  case "$want" in
    refused) [[ $rc -ne 0 ]] && grep -q "needs RocksDB 7.8 or newer" <<<"$out" ||
               fail "CMake with $dir: want a refusal, got rc $rc: $out" ;;
    listed) [[ $rc -eq 0 ]] && grep -q "sources: src/util/status.cc;" <<<"$out" &&
            grep -q "flags: -std=c++20 -DMEMREP_ROCKSDB_INTREE" <<<"$out" ||
              fail "CMake with $dir: want memrep's sources and flags, got rc $rc: $out" ;;
  esac
done

if [[ $failures -ne 0 ]]; then
  echo "$failures version check(s) failed"
  exit 1
fi
echo "every version check held"
