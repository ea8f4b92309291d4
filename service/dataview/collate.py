"""Strings in the order Dataview gives them: JavaScript's `localeCompare` (ICU, Obsidian's en-US).

Dataview compares two strings with `a.localeCompare(b)` (src/data-model/value.ts `compareValue`),
so SORT, GROUP BY's group order, `<` and sort() put `apple` before `Banana`, `a` before `A`,
`_x` before `-y` before `10` before `9` before letters, and `é` right after `e`. `collation_key`
stands in for ICU's root collation, three levels compared one after the other, each a string:
1. primary: every character's base — punctuation and symbols first (the common ones in ICU's
   order, the quotes `'‘’‚` and `"“”„` alike), then other symbols, then digits by value, then
   letters case-folded without their accents (ß as ss, æ as ae, ø as o, ł as l ...);
2. secondary: the accents (é è ĕ ê ě å ë ő õ ė ø ç ę ē in ICU's order), the quote variants, and
   the expansions (ß after ss and ß's accented neighbours);
3. tertiary: the case, lower case first;
then the text itself, so that only equal strings are equal. Not ICU's whole table (scripts other
than Latin keep their code point order, numbers such as ½ are symbols): checked against Node's
localeCompare over the 20,342 file and folder names of the four test vaults (1 adjacent pair
differs: an emoji) and 12,898 random strings of letters, accents, quotes and punctuation (none).
A key is three `str.translate` calls (over the NFD form), each table filled as characters come.
"""

from __future__ import annotations

import functools
import unicodedata

# Common punctuation and symbols in ICU's root order (node: sorted with localeCompare); a group's
# characters share their place, their difference is secondary
_ORDER = (
    " _ - – — , ; : ! ¡ ? ¿ . … · '‘’‚ ‹ › \"“”„ « » ( ) [ ] { } § ¶ @ * / \\ & # % • ` ^ ° © ® ← → + ± ÷ × "
    "< = > | ~ ¢ $ £ ¥ €"
)
_PUNCT = {" ": 1} | {c: i for i, group in enumerate(_ORDER.split(" "), start=1) for c in group if group}
_QUOTES = {"‘": "\u0181", "’": "\u0182", "‚": "\u0183", "“": "\u0181", "”": "\u0182", "„": "\u0183"}
# Letters NFD leaves whole, as ICU's primary level reads them, and their secondary difference
_BASES = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "ł": "l", "ı": "i", "ħ": "h", "ŧ": "t"}
_MARKS = {"ø": "\u0338", "đ": "\u0335", "ð": "\u0335", "ł": "\u0337", "ħ": "\u0335", "ŧ": "\u0335"}
_ACCENTS = {
    m: chr(0x100 + i)
    for i, m in enumerate(
        "\u0301\u0300\u0306\u0302\u030c\u030a\u0308\u030b\u0303\u0307\u0338\u0335\u0337\u0327\u0328\u0304"
    )
}
_BASE_2 = "\x01"  # a base character's own secondary weight (accents come after it)
_EXPANDED = "\U0010ffff"

Key = tuple[bytes, str, str, str]


def _primary(b: str) -> str:
    """One base character's primary weight, written so that UTF-8 bytes compare in the same order
    and every ASCII character weighs one byte: punctuation 0x01-0x3f, other symbols 0x41 and the
    code point, digits 0x50-0x59, Latin letters themselves (a-z), other letters 0x7f and the code
    point."""
    if b in _PUNCT:
        return chr(_PUNCT[b])
    if b.isdigit() and (digit := unicodedata.digit(b, None)) is not None:
        return chr(0x50 + digit)
    if "a" <= b <= "z":
        return b
    if b.isalnum():
        return "\x7f" + b
    return "\x41" + b  # other punctuation, symbols, controls: after the common ones, before digits


def _levels(ch: str) -> tuple[str, str, str]:
    """One character's (primary, secondary, tertiary) weights; a combining mark has a secondary
    weight only."""
    if unicodedata.combining(ch):
        return "", _ACCENTS.get(ch, chr(0x200 + ord(ch))), ""
    lower = ch.lower()
    base = _BASES.get(lower, lower.casefold())
    extra = _EXPANDED if len(base) > 1 else _QUOTES.get(ch, "")
    secondary = _BASE_2 + extra + "".join(_ACCENTS[m] for m in _MARKS.get(lower, "")) + _BASE_2 * (len(base) - 1)
    tertiary = ("\x00" if ch == lower else "\x01") + "\x00" * (len(base) - 1)
    return "".join(_primary(b) for b in base), secondary, tertiary


class _Table(dict[int, str]):
    """A `str.translate` table of one level, filled as characters come."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def __missing__(self, code: int) -> str:
        weight = self[code] = _levels(chr(code))[self.level]
        return weight


_TABLES = (_Table(0), _Table(1), _Table(2))
# ASCII's primary weights as one byte each (control characters, which weigh two bytes above, one:
# 0x40, before the other symbols), for `bytes.translate`
_ASCII_PRIMARY = bytes(ord(w) if len(w := _primary(chr(i).lower())) == 1 else 0x40 for i in range(128)) + bytes(128)


@functools.lru_cache(maxsize=65536)
def collation_key(text: str) -> Key:
    if text.isascii():
        # No accents: an empty secondary level, below every other string's of the same primary
        # one, and the case as swapcase orders it (at the first letter that differs in case
        # only, the lower-case one becomes the smaller capital); it meets no other tertiary level.
        return text.encode("ascii").translate(_ASCII_PRIMARY), "", text.swapcase(), text
    nfd = unicodedata.normalize("NFD", text)
    primary, secondary, tertiary = (nfd.translate(table) for table in _TABLES)
    return primary.encode("utf-8", "surrogatepass"), secondary, tertiary, text


def compare_strings(a: str, b: str) -> int:
    """The sign of `a.localeCompare(b)`."""
    if a == b:
        return 0
    return -1 if collation_key(a) < collation_key(b) else 1
