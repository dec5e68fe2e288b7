#!/usr/bin/env bash
# memrep from C (a static library), Rust, Go and Java over RocksDB 11.8.1:
# each language's own binding opens a database on a memrep rep chosen by an
# options string, writes, reads, scans and flushes it, and reads the OPTIONS
# file to prove the rep; each has a twin run without memrep that must report
# RocksDB's skip list. Too slow for CI (RocksDB's build, crates.io, the Go
# module proxy, Maven Central); docs/rocksdb.md, "From other languages".
#
#   1. librocksdb.a with memrep in-tree: scripts/rocksdb-intree.sh 11.8
#      --lib-only (RocksDB's `make ROCKSDB_PLUGINS=memrep static_lib`), and
#      its twin without plugins, archived from the same objects
#      (LIBNAME=librocksdb-skiplist, ROCKSDB_PLUGINS empty);
#   2. static: examples/c_api.c linked to each librocksdb.a (the vendored
#      static builds' check: nim-rocksdb's, the Rust crate's ROCKSDB_STATIC);
#   3. rust: examples/rust, the `rocksdb` crate 0.25.0 (librocksdb-sys
#      0.19.0+11.8.1), ROCKSDB_LIB_DIR and ROCKSDB_STATIC to each library;
#   4. go: examples/go, grocksdb v1.11.1, cgo linked to each library;
#   5. java: examples/java, RocksJava 11.8.1 from Maven Central; memrep as a
#      plugin built against the jar's own librocksdbjni-linux64.so (11.8.1's
#      headers, no RTTI), System.load-ed after it; the twin without it.
# Everything is written under build/bindings (and build/intree). Results:
# build/bindings/results.md.
#
# Usage: bash scripts/bindings.sh [--only static,rust,go,java]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

only=static,rust,go,java
while [[ $# -gt 0 ]]; do
  case "$1" in
    --only) only=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "bindings: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
wanted() { [[ ,$only, == *,$1,* ]]; }
fail() { echo "bindings: $*" >&2; exit 1; }
for tool in cc cargo go javac java mvn unzip; do
  command -v "$tool" >/dev/null || fail "needs $tool on the PATH"
done

work=$repo/build/bindings
src=$repo/build/intree/rocksdb-11.8.1
results=$work/results.md
jobs=$(nproc)
mkdir -p "$work"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$work/runs.md"

# A run of one example: "$1" names it, "$2" is memrep or skiplist (the exit
# status and the last line it must print follow from it), the rest the
# command. Its output goes to the results.
failures=0
check() {
  local name=$1 twin=$2 status=0 output
  shift 2
  output=$("$@" 2>&1) || status=$?
  local want_status=0 want="ok: the database ran on memrep."
  if [[ $twin == skiplist ]]; then want_status=1 want="FAILED: the database ran on SkipListFactory"; fi
  local verdict=PASS
  [[ $status == "$want_status" && $output == *"$want"* ]] || { verdict=FAIL; failures=$((failures + 1)); }
  echo "bindings: $name ($twin): $verdict, exit status $status" >&2
  {
    echo "### $name, $twin: $verdict (exit status $status, $want_status wanted)"
    echo
    echo '```'
    echo "$output"
    echo '```'
    echo
  } >>"$work/runs.md"
}

# 1. The libraries: memrep's in-tree build, then its twin from the same
# objects without plugins. RocksDB's make regenerates util/build_version.cc
# (its table of built-in plugins) only when an object is newer, so it is
# removed before the twin and after it, and the next in-tree make writes
# memrep's again. RocksDB 11.8 records its build flags, which the plugin's
# change, and refuses a build whose flags differ (the objects are the same
# here): ALLOW_BUILD_PARAMETER_CHANGE=1 neither checks nor records them.
bash scripts/rocksdb-intree.sh 11.8 --lib-only
libs=$(sed -n 's/^PLATFORM_LDFLAGS=//p' "$src/make_config.mk")
mkdir -p "$work/lib-memrep" "$work/lib-skiplist"
ln -sf "$src/librocksdb.a" "$work/lib-memrep/librocksdb.a"
# Whatever ends this script (a failure, ^C), the twin's build_version must not
# stay: the next in-tree make would archive it, silently without memrep.
forget_twin_version() { rm -f "$src/util/build_version.cc" "$src/util/build_version.o"; }
trap forget_twin_version EXIT
forget_twin_version
make -C "$src" -j "$jobs" ROCKSDB_PLUGINS= DEBUG_LEVEL=0 PORTABLE=1 LIBNAME=librocksdb-skiplist \
  ALLOW_BUILD_PARAMETER_CHANGE=1 static_lib >"$work/lib-skiplist.log" 2>&1 ||
  { tail -20 "$work/lib-skiplist.log" >&2; fail "the twin library failed"; }
forget_twin_version
trap - EXIT
mv "$src/librocksdb-skiplist.a" "$work/lib-skiplist/librocksdb.a"
# (grep reads all of nm's output: an early exit would fail the pipeline.)
[[ $(nm "$work/lib-memrep/librocksdb.a" 2>/dev/null | grep -c " T memrep_RegisterFactories$") -ge 1 ]] ||
  fail "$src/librocksdb.a holds no memrep_RegisterFactories: is it the in-tree build?"
[[ $(nm "$work/lib-skiplist/librocksdb.a" 2>/dev/null | grep -c "memrep_RegisterFactories") -eq 0 ]] ||
  fail "the twin library holds memrep"

# 2. The C example, statically linked.
if wanted static; then
  for twin in memrep skiplist; do
    # shellcheck disable=SC2086 # $libs is a list of linker flags
    cc -O1 -o "$work/c_api-$twin" examples/c_api.c -I"$src/include" "$work/lib-$twin/librocksdb.a" \
      -lstdc++ -lm $libs
    check "C, examples/c_api.c linked to librocksdb.a" "$twin" "$work/c_api-$twin"
  done
fi

# 3. Rust: each library in its own target folder (the crate bundles it).
if wanted rust; then
  libclang=$(dirname "$(find /usr/lib /usr/lib64 -name 'libclang-[0-9]*.so.[0-9]*' -print -quit 2>/dev/null)")
  for twin in memrep skiplist; do
    ROCKSDB_LIB_DIR=$work/lib-$twin ROCKSDB_STATIC=1 ROCKSDB_INCLUDE_DIR=$src/include \
      MEMREP_ROCKSDB_LIBS="$libs" LIBCLANG_PATH=$libclang CARGO_TARGET_DIR=$work/rust-$twin \
      cargo build --release --locked --manifest-path examples/rust/Cargo.toml
    check "Rust, the rocksdb crate 0.25.0" "$twin" "$work/rust-$twin/release/memrep_rust"
  done
fi

# 4. Go.
if wanted go; then
  for twin in memrep skiplist; do
    (cd examples/go &&
      CGO_CFLAGS="-I$src/include" CGO_LDFLAGS="-L$work/lib-$twin -lrocksdb -lstdc++ -lm $libs" \
        go build -tags grocksdb_no_link -o "$work/go-$twin" .)
    check "Go, grocksdb v1.11.1" "$twin" "$work/go-$twin"
  done
fi

# 5. Java: the jar from Maven Central, its librocksdbjni out of it, the plugin
# built against that very file.
if wanted java; then
  java_work=$work/java
  jar=$java_work/m2/org/rocksdb/rocksdbjni/11.8.1/rocksdbjni-11.8.1.jar
  mkdir -p "$java_work/native" "$java_work/classes"
  [[ -f $jar ]] || mvn -q -Dmaven.repo.local="$java_work/m2" dependency:get \
    -Dartifact=org.rocksdb:rocksdbjni:11.8.1 || fail "Maven could not fetch org.rocksdb:rocksdbjni:11.8.1"
  unzip -o -q "$jar" librocksdbjni-linux64.so -d "$java_work/native"
  cmake -S . -B "$java_work/plugin" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMREP_WERROR=ON \
    -DROCKSDB_INCLUDE_DIR="$src/include" -DROCKSDB_LIBRARY="$java_work/native/librocksdbjni-linux64.so" \
    -DMEMREP_ROCKSDB_SOURCE="$src" -DMEMREP_BUILD_TESTS=OFF -DMEMREP_BUILD_BENCH=OFF \
    -DMEMREP_BUILD_EXAMPLES=OFF >"$java_work/plugin.configure.log" 2>&1 ||
    { tail -20 "$java_work/plugin.configure.log" >&2; fail "memrep's CMake failed against librocksdbjni"; }
  grep -q "built without RTTI: so is the plugin" "$java_work/plugin.configure.log" ||
    fail "librocksdbjni has RTTI, or memrep's CMake did not notice it has none ($java_work/plugin.configure.log)"
  cmake --build "$java_work/plugin" -j "$jobs" --target memrep_rocksdb
  javac -d "$java_work/classes" -cp "$jar" examples/java/MemrepExample.java
  run_java=(java -cp "$jar:$java_work/classes" -Djava.library.path="$java_work/native" MemrepExample)
  check "Java, RocksJava 11.8.1" memrep "${run_java[@]}" "$java_work/plugin/rocksdb/libmemrep_rocksdb.so"
  check "Java, RocksJava 11.8.1" skiplist "${run_java[@]}"
fi

{
  echo "# memrep from other languages over RocksDB 11.8.1 (scripts/bindings.sh)"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); memrep commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
  echo "- machine: $(nproc) cores, load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
  echo "- tools: $(cc --version | head -1); $(cargo --version); $(go version); $(javac -version 2>&1)"
  echo "- libraries: $src/librocksdb.a (ROCKSDB_PLUGINS=memrep), its twin without plugins; they need: $libs"
  echo "- failures: $failures"
  echo
  cat "$work/runs.md"
} >"$results"
echo "bindings: results in $results" >&2
[[ $failures == 0 ]] || fail "$failures run(s) failed (above)"
