"""Dataview's `hash()`: cyrb53 (bryc's public-domain 53-bit string hash, util/hash.ts), written
here from its description so that `hash(seed, text, variant)` gives the plugin's very number.

JavaScript semantics, kept exactly: the text is read as UTF-16 code units (`charCodeAt`),
`Math.imul` is a 32-bit multiplication, `>>>` an unsigned shift, `^` works on 32-bit integers.
Touches nothing outside itself.
"""

from __future__ import annotations

_MASK = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    """Math.imul: the low 32 bits of the product (kept unsigned here)."""
    return (a * b) & _MASK


def cyrb53(text: str, seed: int = 0) -> int:
    seed &= _MASK  # JavaScript's `^` reads the seed as a 32-bit integer
    h1 = 0xDEADBEEF ^ seed
    h2 = 0x41C6CE57 ^ seed
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        unit = units[i] | units[i + 1] << 8
        h1 = _imul(h1 ^ unit, 2654435761)
        h2 = _imul(h2 ^ unit, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507)
    h1 ^= _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507)
    h2 ^= _imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + h1
