#!/usr/bin/env bash
# The source of exactly the installed librocksdb's version (Debian's source
# package, fetched by `apt-get source` through a private apt configuration in
# build/apt/system: deb-src entries for the suites of the system's own deb
# entries, scripts/apt-source.sh; /etc/apt is left as it is), unpacked into
# build/stress/rocksdb-<version> and patched with tests/stress/patches/
# (what each patch does: tests/stress/README.md).
# Prints that directory. A second run downloads nothing.
#
# Used by scripts/stress.sh (db_stress is built from it) and scripts/peers.sh
# (memrep_bench's skip_list_ndebug peer is compiled from it).
# Needs dpkg-dev, patch and xz-utils (bash scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

stress_dir=$PWD/build/stress
version=$(dpkg-query -W -f='${Version}' librocksdb-dev)
src=$stress_dir/rocksdb-$version
stamp=$(cat tests/stress/patches/*.patch | sha256sum | cut -c1-16)
if [[ ! -f $src/.memrep-patched-$stamp ]]; then
  apt_source_who=rocksdb-source
  # shellcheck source=scripts/apt-source.sh
  source scripts/apt-source.sh
  apt_source_init "$PWD/build/apt/system" system
  apt_source -qq source --print-uris "rocksdb=$version" >/dev/null 2>&1 || apt_source_update
  rm -rf "$stress_dir/download" "$src"
  mkdir -p "$stress_dir/download"
  if ! (cd "$stress_dir/download" && apt_source source -qq --download-only "rocksdb=$version" >/dev/null 2>&1); then
    echo "rocksdb-source: cannot download the source of rocksdb $version, the installed" \
         "librocksdb-dev's version. Does an apt source (deb-src) serve that exact version?" \
         "Check build/apt/system/sources.list.d/memrep.sources, the deb-src entries made from" \
         "the system's deb entries (the system's apt configuration is not changed)" >&2
    exit 1
  fi
  dpkg-source --no-check -x -q "$stress_dir"/download/rocksdb_*.dsc "$src" >/dev/null
  got=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
  if [[ $got != "$version" ]]; then
    echo "rocksdb-source: the source unpacked is rocksdb $got, but librocksdb-dev $version is installed" >&2
    exit 1
  fi
  for p in tests/stress/patches/*.patch; do
    patch -d "$src" -p1 -s --no-backup-if-mismatch < "$p"
  done
  touch "$src/.memrep-patched-$stamp"
  rm -rf "$stress_dir/download"
fi
echo "$src"
