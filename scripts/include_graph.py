#!/usr/bin/env python3
"""The include graph of memrep's library between folders, and its cycles.

Each C++ file of src/, rocksdb/ and include/memrep/ belongs to a room: its
folder under src/ (src/trie/trie.cc: trie), rocksdb, or, for a public
header, the room it is the public part of (memrep/trie_table.h: trie,
memrep/memtable.h: memtable, memrep/rep.h and memrep/iterator.h: rep); the headers of the common
types (status, entry, comparator, export, version) are the room memrep. An arrow A -> B means a file of A includes a file of B. Prints
every arrow with how many includes make it, then the rooms that sit on a
cycle and the arrows that run against LAYERS (docs/architecture.md,
"Layout"); exits 1 if there is either.

Usage: python3 scripts/include_graph.py [--root DIR] [--files]
  --files   also print, for each arrow, the includes that make it
"""
import argparse
import collections
import fnmatch
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


# Public headers that are the public part of a room.
PUBLIC_ROOMS = {
    "auto.h": "auto", "columnar.h": "columnar", "sorted_hash.h": "sorted_hash",
    "trie.h": "trie", "trie_table.h": "trie", "vector.h": "vector",
    "memtable.h": "memtable", "rocksdb.h": "rocksdb", "registry.h": "registry", "rep.h": "rep",
    "iterator.h": "rep",
    "run_options.h": "runs",
}


# The layers, top first: a room includes only rooms of lower layers. Faces
# read the registry and may name a rep; reps register themselves and build on
# the shared machinery; everything speaks the rep interface and the codec.
LAYERS = [
    ("faces", {"memtable", "rocksdb", "src"}),  # src: builtin_reps.cc, the list of reps
    ("reps", {"sorted_hash", "vector", "trie", "columnar", "auto"}),
    ("registry", {"registry"}),
    ("sorted runs", {"runs"}),
    ("memory", {"memory"}),
    ("interface and threads", {"rep", "concurrency"}),
    ("codec and key order", {"format"}),
    ("utilities", {"util"}),
    ("common types", {"memrep"}),
]
# A face's or the interface's header names no rep: a user of the face, or a
# rep, gets no rep's declarations with it (forward-declare what is passed).
FACE_HEADERS = ("include/memrep/memtable.h", "include/memrep/rocksdb.h", "include/memrep/rep.h",
                "include/memrep/iterator.h",
                "include/memrep/registry.h", "rocksdb/*.h")
LAYER_OF = {room: i for i, (_, rooms) in enumerate(LAYERS) for room in rooms}


def room_of(path):
    parts = path.split("/")
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 else "src"  # src/builtin_reps.cc
    if parts[0] == "rocksdb":
        return "rocksdb"
    if parts[:2] == ["include", "memrep"]:
        return PUBLIC_ROOMS.get(parts[-1], "memrep")
    return None


def resolve(root, including, target):
    """The repository path an include names, or None outside the library."""
    for base in (os.path.dirname(including), "src", "include", "rocksdb", ""):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def graph(root):
    edges = collections.defaultdict(list)
    for top in ("src", "rocksdb", os.path.join("include", "memrep")):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root)
                src_room = room_of(path)
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    text = f.read()
                for target in INCLUDE.findall(text):
                    to = resolve(root, path, target)
                    to_room = room_of(to) if to else None
                    if to_room and to_room != src_room:
                        edges[(src_room, to_room)].append(f"{path} -> {to}")
    return edges


def cyclic_rooms(edges):
    adj = collections.defaultdict(set)
    for a, b in edges:
        adj[a].add(b)
    rooms = set(adj) | {b for s in adj.values() for b in s}

    def reaches(a, b):
        seen, todo = set(), [a]
        while todo:
            x = todo.pop()
            for y in adj[x]:
                if y == b:
                    return True
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return False

    return sorted(r for r in rooms if reaches(r, r))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    p.add_argument("--files", action="store_true")
    a = p.parse_args()
    edges = graph(os.path.abspath(a.root))
    for (src, dst), why in sorted(edges.items()):
        print(f"{src:>14} -> {dst:<14} {len(why)}")
        if a.files:
            for w in why:
                print(f"{'':>18}{w}")
    failed = False
    cycle = cyclic_rooms(edges)
    if cycle:
        print("on a cycle: " + ", ".join(cycle))
        failed = True
    else:
        print("no cycle")
    for (src, dst), why in sorted(edges.items()):
        if src not in LAYER_OF or dst not in LAYER_OF:
            print(f"room {src if src not in LAYER_OF else dst} is in no layer: add it to LAYERS")
            failed = True
        elif LAYER_OF[dst] <= LAYER_OF[src]:
            print(f"against the layers: {src} ({LAYERS[LAYER_OF[src]][0]}) -> "
                  f"{dst} ({LAYERS[LAYER_OF[dst]][0]}): {why[0]}")
            failed = True
    reps = LAYERS[1][1]
    for (src, dst), why in sorted(edges.items()):
        for w in why:
            header = w.split(" -> ")[0]
            if dst in reps and any(fnmatch.fnmatch(header, h) for h in FACE_HEADERS):
                print(f"a face's header includes a rep's: {w}")
                failed = True
    if not failed:
        print("every arrow runs down the layers; no face header includes a rep's")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
