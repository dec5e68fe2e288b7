#!/usr/bin/env bash
# memrep_bench with its peers (bench/README.md, "Peers"), in build/peers:
#   skip_list_ndebug  RocksDB's skip list compiled without assertions from the
#                     source of the installed librocksdb (scripts/rocksdb-source.sh
#                     fetches it the first time);
#   topling_cspp      ToplingDB's CSPP trie, with --topling-zip DIR (a checkout
#                     of topling-zip; bench/peers/topling_cspp.cmake says what
#                     it needs);
#   columnar_memtable the columnar seed's memtable, with --columnar-memtable DIR
#                     (a checkout of conanhujinming/columnar_memtable), through
#                     the standalone face only.
# Usage: bash scripts/peers.sh [--topling-zip DIR] [--columnar-memtable DIR]
# Then e.g.: build/peers/bench/memrep_bench --memtablerep=skip_list,skip_list_ndebug,topling_cspp,trie
set -euo pipefail
cd "$(dirname "$0")/.."

topling_zip=""
columnar=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --topling-zip) topling_zip=$(cd "$2" && pwd); shift 2 ;;
    --topling-zip=*) topling_zip=$(cd "${1#*=}" && pwd); shift ;;
    --columnar-memtable) columnar=$(cd "$2" && pwd); shift 2 ;;
    --columnar-memtable=*) columnar=$(cd "${1#*=}" && pwd); shift ;;
    *) echo "peers.sh: unknown argument '$1' (usage: bash scripts/peers.sh [--topling-zip DIR]" \
            "[--columnar-memtable DIR])" >&2
       exit 2 ;;
  esac
done

bash scripts/install-deps.sh
if [[ -n $topling_zip ]] && ! dpkg-query -W -f='${Status}' libboost-dev 2>/dev/null | grep -q "ok installed"; then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get install -y -qq libboost-dev >/dev/null  # topling-zip's Boost headers
fi
src=$(bash scripts/rocksdb-source.sh)
cmake -S . -B build/peers -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMREP_WERROR=ON \
  -DMEMREP_PEER_ROCKSDB_SOURCE="$src" -DMEMREP_PEER_TOPLING_ZIP="$topling_zip" \
  -DMEMREP_PEER_COLUMNAR_MEMTABLE="$columnar" >/dev/null
cmake --build build/peers -j "$(nproc)" --target memrep_bench
build/peers/bench/memrep_bench --list_reps | grep -o '"name": "[a-z_]*"' | sed 's/"name": //' | tr '\n' ' '
echo
