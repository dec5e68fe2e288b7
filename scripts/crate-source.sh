# RocksDB's source from the Rust registry, sourced by scripts/rocksdb-intree.sh.
#
# The librocksdb-sys crate carries a whole RocksDB tree in its rocksdb/
# folder (the release's tag less docs/ and java/; its util/build_version.cc
# is generated from the .in by RocksDB's make and CMake, as in a checkout).
# cargo fetches the crate without building it: a throwaway manifest that
# depends on one exact version, and a CARGO_HOME of its own, both under the
# directory given (inside build/), so ~/.cargo and every other configuration
# stay as they are.
#
#   crate_source DIR CRATE_VERSION DEST
#       Fetches librocksdb-sys =CRATE_VERSION (e.g. 0.19.0+11.8.1) with DIR as
#       CARGO_HOME's parent, and copies its rocksdb/ folder to DEST (replaced).
#
# Error messages name the caller: set crate_source_who before sourcing.

crate_source() {
  local dir=$1 version=$2 dest=$3 who=${crate_source_who:-rocksdb-intree} cargo
  cargo=$(command -v cargo || true)
  [[ -n $cargo || ! -x $HOME/.cargo/bin/cargo ]] || cargo=$HOME/.cargo/bin/cargo
  if [[ -z $cargo ]]; then
    echo "$who: RocksDB ${version#*+} comes from the Rust registry's librocksdb-sys $version," \
      "fetched with cargo, which is not installed (rustup.rs, or Debian's cargo package)" >&2
    return 1
  fi
  local manifest=$dir/manifest-${version%%+*} home=$dir/home
  mkdir -p "$manifest/src" "$home"
  printf 'fn main() {}\n' >"$manifest/src/main.rs"
  # The crate's "latest" is an old 6.20.3: the version is pinned exactly.
  cat >"$manifest/Cargo.toml" <<EOF
[package]
name = "memrep-rocksdb-source"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
librocksdb-sys = { version = "=${version%%+*}", default-features = false }
EOF
  echo "$who: fetching librocksdb-sys $version with cargo into $home" >&2
  CARGO_HOME=$home "$cargo" fetch -q --manifest-path "$manifest/Cargo.toml" >&2 || {
    echo "$who: cargo fetch of librocksdb-sys =$version failed" >&2
    return 1
  }
  local crate_dir
  crate_dir=$(compgen -G "$home/registry/src/*/librocksdb-sys-$version" | head -1 || true)
  if [[ -z $crate_dir || ! -f $crate_dir/rocksdb/include/rocksdb/version.h ]]; then
    echo "$who: cargo fetched no librocksdb-sys-$version with a rocksdb/ tree under" \
      "$home/registry/src" >&2
    return 1
  fi
  rm -rf "$dest"
  cp -a "$crate_dir/rocksdb" "$dest"
}
