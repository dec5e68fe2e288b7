# A private apt configuration for Debian's source packages, sourced by
# scripts/rocksdb-source.sh and scripts/rocksdb-intree.sh.
#
# The system's apt configuration is read (which mirror, which keyring) and
# never written: the deb-src entries, the index lists and apt's caches live
# under the directory given (inside build/), so nothing under /etc/apt,
# /var/lib/apt or /var/cache/apt changes, and fetching a source package
# needs no root.
#
#   apt_source_init DIR SUITE...
#       Writes DIR's configuration: deb-src entries for each SUITE (a Debian
#       release such as trixie) from the mirror the system's apt uses, or,
#       for the word "system", for every suite of the system's own deb
#       entries. Updates DIR's lists when they are missing or the entries
#       changed.
#   apt_source ARGS...
#       apt-get ARGS with that configuration (e.g. source --print-uris X).
#   apt_source_update
#       Updates DIR's lists again (a version the lists lack may be newer).
#
# Error messages name the caller: set apt_source_who before sourcing.

apt_source_dir=""
apt_source_opts=()

# The system's deb entries as "URI SUITE... | KEYRING" lines, one per entry.
_apt_source_system_entries() {
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    # deb822 stanzas: print one line per stanza whose Types has "deb".
    awk 'BEGIN { RS = ""; FS = "\n" }
         {
           types = uris = suites = key = ""
           for (i = 1; i <= NF; i++) {
             if ($i ~ /^Types:/) types = substr($i, 7)
             else if ($i ~ /^URIs:/) uris = substr($i, 6)
             else if ($i ~ /^Suites:/) suites = substr($i, 8)
             else if ($i ~ /^Signed-By:/) key = substr($i, 11)
           }
           if (types ~ /(^| )deb( |$)/) print uris " " suites " |" key
         }' /etc/apt/sources.list.d/debian.sources
  fi
  if [[ -f /etc/apt/sources.list ]]; then
    # One-line entries: "deb [options] URI SUITE COMPONENT...".
    sed -E 's/^deb[[:space:]]+\[[^]]*\]/deb/' /etc/apt/sources.list | awk '$1 == "deb" { print $2 " " $3 " |" }'
  fi
}

# One deb-src stanza: URI SUITES KEYRING.
_apt_source_stanza() {
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' "$1" "$2" "$3"
}

apt_source_init() {
  apt_source_dir=$1
  shift
  local who=${apt_source_who:-apt-source} line uri suites key suite mirror="" keyring="" content
  local default_key=/usr/share/keyrings/debian-archive-keyring.gpg stanzas=()
  while read -r line; do
    [[ -n $line ]] || continue
    key=${line#*|}
    key=${key# }
    key=${key:-$default_key}
    read -r uri suites <<<"${line%%|*}"
    [[ -n $mirror ]] || { mirror=$uri keyring=$key; }
    for suite in "$@"; do
      [[ $suite == system ]] && stanzas+=("$(_apt_source_stanza "$uri" "$suites" "$key")")
    done
  done < <(_apt_source_system_entries)
  [[ -n $mirror ]] || { echo "$who: cannot tell which Debian mirror apt uses (no deb entry in" \
    "/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list)" >&2; return 1; }
  for suite in "$@"; do
    [[ $suite != system ]] && stanzas+=("$(_apt_source_stanza "$mirror" "$suite" "$keyring")")
  done
  content=$(printf '%s\n\n' "${stanzas[@]}")

  local d=$apt_source_dir
  mkdir -p "$d/sources.list.d" "$d/lists/partial" "$d/cache/archives/partial"
  : >"$d/sources.list"
  apt_source_opts=(-o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=$d/sources.list.d"
    -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o "Dir::Cache::pkgcache="
    -o "Dir::Cache::srcpkgcache=")
  # As root, apt downloads as the user _apt, who cannot write into build/;
  # the files are apt's own index and source files, checked by their hashes.
  [[ $(id -u) -ne 0 ]] || apt_source_opts+=(-o "APT::Sandbox::User=root")
  if [[ ! -f $d/sources.list.d/memrep.sources || $(cat "$d/sources.list.d/memrep.sources") != "$content" ]]; then
    printf '%s\n' "$content" >"$d/sources.list.d/memrep.sources"
    rm -f "$d/lists/"*_Sources* "$d/lists/"*Release*
  fi
  compgen -G "$d/lists/*_Sources*" >/dev/null || apt_source_update
}

apt_source_update() {
  local who=${apt_source_who:-apt-source}
  echo "$who: updating the source package lists in $apt_source_dir" >&2
  apt-get "${apt_source_opts[@]}" -qq update >/dev/null || {
    echo "$who: apt-get update of $apt_source_dir/sources.list.d/memrep.sources failed" >&2
    return 1
  }
}

apt_source() { apt-get "${apt_source_opts[@]}" "$@"; }
