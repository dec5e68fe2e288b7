"""The rep words of db_bench_compare.py's --reps and what it knows of each
rep: RocksDB's built-ins and their traits, a plugin rep's traits from
`memrep_bench --list_reps`, the REP@PLUGIN and REP+checks forms of a word,
the rep that stores nothing (--ceiling), and RocksDB's memtable checks
(--checks) as far as a db_bench has them.
"""
import json
import os
import re
import subprocess
import sys

# db_bench's own --memtablerep values, with the traits db_bench_compare needs (as
# `memrep_bench --list_reps` writes them) and whether the rep buckets keys by
# a prefix (then it runs with --prefix_size=8).
BUILTIN_REPS = {
    "skip_list": {"concurrent_insert": True, "point_read_while_mutable": "logarithmic"},
    "vector": {"concurrent_insert": False, "point_read_while_mutable": "linear"},
    "prefix_hash": {"concurrent_insert": False, "point_read_while_mutable": "constant"},
    "hash_linkedlist": {"concurrent_insert": False, "point_read_while_mutable": "constant"},
}
PREFIX_REPS = {"hash_linkedlist", "prefix_hash"}
# --checks: a rep word with this suffix runs with RocksDB's memtable
# integrity checks on, CHECK_FLAGS as far as the db_bench has them.
CHECKED = "+checks"
CHECK_FLAGS = [
    ("paranoid_memory_checks", "true"),  # RocksDB 9.6
    ("memtable_verify_per_key_checksum_on_seek", "true"),  # 11.5 (10.7's spelling below)
    ("memtable_veirfy_per_key_checksum_on_seek", "true"),
    ("memtable_protection_bytes_per_key", "8"),  # 7.7
]
# The rep that stores nothing (bench/ceiling/ceiling_plugin.cc).
CEILING = "bench.Ceiling"


class BenchError(Exception):
    """A failed or unusable benchmark run; reported and exit non-zero."""


def check_flags(db_bench):
    """The CHECK_FLAGS db_bench knows (from its --help), as (flag, value)."""
    try:
        out = subprocess.run([db_bench, "--help"], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        raise BenchError(f"could not run {db_bench} --help: {e}")
    known = set(re.findall(r"^\s+-(\w+) \(", out.stdout + out.stderr, re.M))
    flags = [(f, v) for f, v in CHECK_FLAGS if f in known]
    # The older spelling only where the newer one is missing.
    if any(f == "memtable_verify_per_key_checksum_on_seek" for f, _ in flags):
        flags = [(f, v) for f, v in flags if f != "memtable_veirfy_per_key_checksum_on_seek"]
    return flags


def unchecked(word):
    """'REP+checks' -> ('REP', True); 'REP' -> ('REP', False)."""
    return (word[:-len(CHECKED)], True) if word.endswith(CHECKED) else (word, False)


def split_plugin(word):
    """'REP@PLUGIN' -> (REP, absolute PLUGIN); 'REP' -> (REP, None)."""
    word = unchecked(word)[0]
    rep, at, plugin = word.rpartition("@")
    return (rep, os.path.abspath(plugin)) if at and rep else (word, None)


def rep_name(word):
    """The rep a --reps word names: an options string by its id
    ('id=memrep.SortedHash;max_runs=4', 'memrep.SortedHash:4096'), without
    any @PLUGIN."""
    word = split_plugin(word)[0]
    if "=" in word:
        for item in word.split(";"):
            key, _, value = item.partition("=")
            if key.strip() == "id":
                return value.strip()
        return word
    return word.split(":", 1)[0].strip()


def default_memrep_bench(plugin):
    """memrep_bench of the build the plugin comes from, if it is there."""
    if not plugin:
        return None
    plugin = os.path.realpath(plugin)  # the build folder, through any symlink
    path = os.path.normpath(os.path.join(os.path.dirname(plugin), "..", "bench", "memrep_bench"))
    return path if os.access(path, os.X_OK) else None


def list_reps(memrep_bench):
    """{every name of a rep: its traits} from `memrep_bench --list_reps`."""
    try:
        out = subprocess.run([memrep_bench, "--list_reps"], capture_output=True, text=True,
                             timeout=60, check=True, stdin=subprocess.DEVNULL).stdout
        reps = json.loads(out)["reps"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError) as e:
        raise BenchError(f"could not learn the reps' traits from {memrep_bench} --list_reps: {e}")
    known = {}
    for rep in reps:
        for name in [rep["name"], rep["canonical_name"]] + rep["aliases"]:
            known[name] = rep["traits"]
    return known


def rep_traits(a, plugin_reps):
    """{rep word: traits}: built-ins from BUILTIN_REPS, plugin reps from
    memrep_bench --list_reps, else assumed to take concurrent inserts."""
    traits = {rep: dict(BUILTIN_REPS[rep], source="db_bench built-in")
              for rep in a.reps if rep in BUILTIN_REPS}
    if not plugin_reps:
        return traits
    if a.memrep_bench:
        a.memrep_bench = os.path.abspath(a.memrep_bench)
        if not os.access(a.memrep_bench, os.X_OK):
            raise BenchError(f"--memrep-bench is not an executable file: {a.memrep_bench}")
    known_by_plugin = {}
    for rep in plugin_reps:
        if rep == a.ceiling_rep:
            traits[rep] = {"concurrent_insert": True, "source": "the ceiling"}
            continue
        plugin = split_plugin(rep)[1] or a.plugin
        if plugin not in known_by_plugin:
            # An older build's memrep_bench may not know --list_reps: assume then.
            tool = a.memrep_bench or default_memrep_bench(plugin)
            try:
                known_by_plugin[plugin] = list_reps(tool) if tool else {}
            except BenchError as e:
                print(f"note: {e}", file=sys.stderr)
                known_by_plugin[plugin] = {}
        listed = known_by_plugin[plugin].get(rep_name(rep))
        if listed is not None:
            traits[rep] = dict(listed, source="memrep_bench --list_reps")
            continue
        why = f"no memrep_bench beside {plugin} lists '{rep_name(rep)}' (pass --memrep-bench PATH)"
        print(f"note: {why}; assuming '{rep}' takes concurrent inserts", file=sys.stderr)
        traits[rep] = {"concurrent_insert": True, "source": "assumed"}
    return traits
