"""Names that show nothing or show as another: the characters a new file or folder name may not
hold (`VaultPaths.check_new_name` refuses them, `path_invalid`; a note already so named is read and
edited), and where the few that scripts need are allowed: a zero-width (non-)joiner inside Persian,
Indic or emoji sequences, a variation selector after an emoji, a symbol or an ideograph, tag
characters inside a subdivision flag, and the combining grapheme joiner where it keeps two marks'
order under NFC."""

from __future__ import annotations

import re
import unicodedata

# Characters that show nothing or reorder what follows: bidi embeddings, overrides and isolates
# ("evil\u202egnp.md" shows as "evilmd.png"), direction marks, zero-width space, word joiner and
# invisible operators, BOM, line and paragraph separators, Mongolian vowel separator. A new name
# holding one could pass for another ("Wel\u200bcome.md" beside "Welcome.md"). The zero-width
# (non-)joiners are words' own letters in Persian and Indic scripts and in emoji: allowed. Also
# blank by design: the soft hyphen, the Hangul fillers and the Khmer inherent vowels; the combining
# grapheme joiner too, except between two combining marks whose order it keeps under NFC (pointed
# Hebrew: Unicode's own use of it).
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u2069\u3164\ufeff\uffa0]"
)
# Tag characters show nothing; they spell a subdivision flag after U+1F3F4 (England's, Scotland's),
# ended by the cancel tag, and only there are they allowed.
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_TAGS = re.compile("[\U000e0000-\U000e007f]")
# Variation selectors show nothing; they pick a form of the character before them: an emoji's text
# or emoji style (a symbol, U+2139, a keycap's digit before U+20E3), an ideograph's variant.
_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
# The zero-width (non-)joiners join or part letters of Persian and Indic words and emoji; between
# two Latin letters or digits (or at either end) they join nothing: "Wel\u200dcome" passes for
# "Welcome".
_JOINERS = re.compile("[\u200c\u200d]")
# Where Python's Unicode data may not name an ideograph (Extensions H and I are newer than 3.11's
# Unicode 14): the CJK blocks of the BMP, and planes 2 and 3, which Unicode gives to ideographs alone.
_IDEOGRAPHS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3FFFF))
# Myanmar letters have standardized variation sequences with U+FE00 (U+1000 U+FE00, ...).
_MYANMAR = ((0x1000, 0x109F), (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F))


def shows_nothing(name: str) -> bool:
    """Whether `name` holds a character that shows nothing or reorders it (`_INVISIBLE`), a tag
    character outside a flag, a variation selector that selects nothing, or a zero-width
    (non-)joiner that joins nothing (`_JOINERS`)."""
    if _INVISIBLE.search(name) or _TAGS.search(_FLAG_TAGS.sub("", name)):
        return True
    for found in _SELECTORS.finditer(name):
        at = found.start()
        if at == 0 or not _selects(name[at - 1], found[0], name[at + 1 : at + 2]):
            return True
    for found in re.finditer("\u034f", name):  # the combining grapheme joiner: only where it keeps an order
        at = found.start()
        if not _keeps_order(name[at - 1 : at], name[at + 1 : at + 2]):
            return True
    for found in _JOINERS.finditer(name):
        at = found.start()
        before, after = name[at - 1 : at], name[at + 1 : at + 2]
        if not before or not after or (_latin(before) and _latin(after)):
            return True
    return False


def _keeps_order(before: str, after: str) -> bool:
    """Whether a combining grapheme joiner between `before` and `after` changes anything: only
    between two combining marks that NFC would otherwise swap (the second's canonical combining
    class lower than the first's, as in pointed Hebrew). Between marks already in order, or of one
    class, it shows nothing and does nothing: "x\u0323\u034f\u0301" passes for "x\u0323\u0301"."""
    if not before or not after:
        return False
    return 0 < unicodedata.combining(after) < unicodedata.combining(before)


def _latin(char: str) -> bool:
    return char.isascii() or unicodedata.name(char, "").startswith("LATIN ")


def _within(char: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(lo <= ord(char) <= hi for lo, hi in ranges)


def _selects(base: str, selector: str, after: str) -> bool:
    """Whether a variation selector after `base` picks one of its forms (Unicode's variation
    sequences, loosely: no letter, digit, mark or space has an emoji form except those below)."""
    ideograph = _within(base, _IDEOGRAPHS) or unicodedata.name(base, "").startswith("CJK ")
    if selector >= "\U000e0100":  # the ideographic variation selectors
        return ideograph
    if selector == "\ufe00" and _within(base, _MYANMAR):  # a Myanmar standardized variant
        return True
    if base in "0123456789*" and after == "\u20e3":  # a keycap: 1\ufe0f\u20e3
        return True
    return ideograph or base == "\u2139" or unicodedata.category(base)[0] in "SP"
