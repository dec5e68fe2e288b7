#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz (README.md here): run it after a rep
or an option is added, and commit what changed.

  corpus/option_fuzz/  options strings: every rep's names, its positional
                       form, and each option of the docs' option tables
                       (docs/*.md, between <!-- options NAME --> markers) at
                       the ends of its range, just past them, and malformed
  corpus/ops_fuzz/     operation sequences (ops_fuzz.cc's input layout): a
                       write-heavy phase, a read phase, and for half of them
                       Freeze, Drain and writes that must be refused

Deterministic: the same docs give the same files.
"""
import hashlib
import pathlib
import random
import re

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# The reps' other spellings (the registrations' aliases); the docs tables
# give the options.
ALIASES = {
    "memrep.SortedHash": ["sorted_hash", "speedb.HashSpdRepFactory"],
    "memrep.Vector": ["vector_rep"],
    "memrep.Trie": ["trie", "cspp"],
}


def option_tables():
    """{rep: [(option, type, default, low, high, allows_auto)]} from docs/*.md."""
    tables = {}
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text()
        for rep, body in re.findall(r"<!-- options (\S+) -->\n(.*?)<!-- /options -->", text, re.S):
            rows = []
            for line in body.splitlines()[2:]:
                cells = [c.strip() for c in line.strip("|").split("|")]
                name, kind, default, range_text = cells[0], cells[1], cells[2], cells[3]
                match = re.match(r"(\d+)\.\.(\d+)", range_text)
                if match:
                    rows.append((name, kind, default, int(match[1]), int(match[2]),
                                 "auto" in range_text))
            tables[rep] = rows
    return tables


def option_strings():
    strings = ["", "garbage", "id=", "id=memrep.NoSuchRep", "skip_list", "vector:100",
               "id=memrep.SortedHash; id=memrep.Vector", "{id=memrep.Vector; max_runs=4}",
               " id = memrep.SortedHash ;; max_runs = 4 ; ",
               # Values alone: every option of every rep is also set to the input.
               "64M", "4kib", "16GB", "auto", "0", "18446744073709551615", "18446744073709551616",
               "17179869184T"]
    for rep, rows in option_tables().items():
        strings += [rep] + ALIASES.get(rep, [])
        if rows:
            strings += [f"{ALIASES.get(rep, [rep])[0]}:{rows[0][3]}", f"{rep}:", f"{rep}:x"]
        strings.append(f"id={rep}; " + "; ".join(f"{r[0]}={r[2]}" for r in rows))
        # Each option at both ends of its range and just past the top; the
        # other malformed forms once per rep (one option's parser serves all).
        for name, kind, default, low, high, allows_auto in rows:
            strings += [f"id={rep}; {name}={low}", f"id={rep}; {name}={high}",
                        f"id={rep}; {name}={high + 1}"]
        name, kind, default, low, high, allows_auto = rows[-1]
        strings += [f"id={rep}; {name}={low - 1}", f"id={rep}; {name}=-1"]
        sizes = [r[0] for r in rows if r[1] == "bytes"][:1]
        strings += [f"id={rep}; {name}=64M" for name in sizes]
        strings += [f"id={rep}; {r[0]}=AUTO" for r in rows if r[5]][:1]
        strings.append(f"id={rep}; no_such_option=1")
    return strings


# ops_fuzz's opcodes (RunOne): op % 16.
WRITES = [0, 1, 2, 3, 4, 5, 6]
READS = [7, 8, 9, 10, 11, 12, 15]
SEEKS = [11, 12]
INVALID = 14
DRAIN = 13      # 13 with a high nibble below 0xc
FREEZE = 0xCD   # 13 with a high nibble of 0xc or more
ARG_BYTES = 7


def ops_input(rng, rep, options, comparator, write_buffer, freeze):
    data = bytes([rep, options, comparator, write_buffer])

    def op(code):
        args = [rng.randrange(256) for _ in range(ARG_BYTES)]
        if code in SEEKS:
            # Seeks above kMaxSequenceNumber (both top bits of the second
            # byte) are left to the fuzzer and regressions/; seeds pass.
            args[1] &= 0x7F
        return bytes([code] + args)

    for _ in range(70):  # mostly writes, a few reads and refusals
        roll = rng.random()
        data += op(rng.choice(WRITES) if roll < 0.75 else INVALID if roll < 0.8 else rng.choice(READS))
    for _ in range(30):
        data += op(rng.choice(READS))
    if freeze:
        data += op(FREEZE) + op(DRAIN)
        for _ in range(15):
            data += op(rng.choice(READS + WRITES))
        data += op(DRAIN)
    return data


def write_corpus(name, inputs):
    folder = HERE / "corpus" / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("seed-*"):
        old.unlink()
    for data in inputs:
        if isinstance(data, str):
            data = data.encode()
        (folder / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)
    print(f"{folder.relative_to(ROOT)}: {len(set(inputs))} seeds")


def main():
    write_corpus("option_fuzz", option_strings())
    rng = random.Random(1)
    # Reps 0 and 1 (ListReps' order; a third rep would take index 2), each
    # with its four option sets, a comparator and write buffer size each.
    inputs = [ops_input(rng, rep, options, options % 4, options % 3, freeze=options % 2 == 1)
              for rep in range(2) for options in range(4)]
    inputs.append(bytes([0, 0, 0, 0]))  # an empty table
    write_corpus("ops_fuzz", inputs)


if __name__ == "__main__":
    main()
