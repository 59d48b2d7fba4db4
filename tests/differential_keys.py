"""Adversarial tools records for the differential tests: seeded, so a failure names a reproducible record."""

from __future__ import annotations

import random
import string

#: Pieces a key is built from: legal characters, every ASCII punctuation and whitespace character, and the
#: JavaScript traps (astral characters are two UTF-16 units, lone surrogates one, combining marks and ZWJ).
LEGAL = string.ascii_letters + string.digits + "_-"
PUNCTUATION = string.punctuation.replace("_", "").replace("-", "") + " \t\n\r\x0b\x0c\x00\x7f"
UNICODE = ["é", "ß", "Ж", "中", "\u212a", "ı", "e\u0301", "😀", "👨\u200d👩\u200d👧", "🇫🇷", "𝒳", "\ud800", "\udfff", "\ufeff", "\u2028", "\u00a0", "٣"]
#: Whole keys that hit a special path: crash, prototype names, array indices, the 63-unit cut.
SPECIAL = [
    "", "__proto__", "..proto..", ".._proto__", "..defineGetter..", "__lookupSetter__", "..lookupSetter..",
    "constructor", "toString", "hasOwnProperty", "valueOf", "0", "42", "007", "4294967294", "4294967295",
    "-1", "1.5", "1e3", " 42", "a" * 63, "a" * 64, "1" + "a" * 62, "1" + "a" * 63, "😀" * 32, "é" * 64,
]


def random_key(rng: random.Random) -> str:
    """One key: mostly legal characters, with traps mixed in and lengths clustered around the 63 cut."""
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(SPECIAL)
    length = rng.choice([rng.randint(1, 12), rng.randint(58, 68), rng.randint(13, 40)])
    pieces = []
    for _ in range(length):
        kind = rng.random()
        if kind < 0.75:
            pieces.append(rng.choice(LEGAL))
        elif kind < 0.9:
            pieces.append(rng.choice(PUNCTUATION))
        else:
            pieces.append(rng.choice(UNICODE))
    return "".join(pieces)


def near_duplicate(rng: random.Random, key: str) -> str:
    """A key likely to rewrite onto ``key``'s name: one character swapped for another illegal one, or a longer tail."""
    if not key:
        return "."
    choice = rng.random()
    if choice < 0.4:
        position = rng.randrange(len(key))
        return key[:position] + rng.choice(PUNCTUATION + "_") + key[position + 1:]
    if choice < 0.7:
        return (key + "x" * 64)[:64] + rng.choice(LEGAL)
    return key.replace("_", rng.choice(". :/"))


def random_records(seed: int, count: int, max_keys: int = 20) -> list[list[str]]:
    """``count`` records of distinct keys; about a third carry near-duplicates meant to collide."""
    rng = random.Random(seed)
    records = []
    for _ in range(count):
        size = rng.randint(1, max_keys)
        keys = [random_key(rng) for _ in range(size)]
        if rng.random() < 0.33:
            keys += [near_duplicate(rng, rng.choice(keys)) for _ in range(rng.randint(1, 3))]
        records.append(list(dict.fromkeys(keys)))
    return records
