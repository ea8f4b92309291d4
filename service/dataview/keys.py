"""Field keys as Dataview names them (util/normalize.ts `canonicalizeVarName`, markdown-file.ts).

A field is found under its key as written and under its canonical key: runs of `[0-9\\p{Letter}_-]`
in lower case, an emoji (emoji-regex 10, Dataview's) as written, each run of white space one '-',
every other character dropped (punctuation, combining marks, other digits: 'ने' -> 'न', 'x²' -> 'x'),
nothing trimmed ('key ' -> 'key-'). Touches nothing outside itself.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata

# The code points emoji-regex 10 matches alone (generated with node from the package), as ranges
_EMOJI_RANGES = (
    "A9 AE 203C 2049 2122 2139 2194-2199 21A9-21AA 231A-231B 2328 23CF 23E9-23F3 23F8-23FA 24C2 "
    "25AA-25AB 25B6 25C0 25FB-25FE 2600-2604 260E 2611 2614-2615 2618 261D 2620 2622-2623 2626 262A "
    "262E-262F 2638-263A 2640 2642 2648-2653 265F-2660 2663 2665-2666 2668 267B 267E-267F 2692-2697 "
    "2699 269B-269C 26A0-26A1 26A7 26AA-26AB 26B0-26B1 26BD-26BE 26C4-26C5 26C8 26CE-26CF 26D1 "
    "26D3-26D4 26E9-26EA 26F0-26F5 26F7-26FA 26FD 2702 2705 2708-270D 270F 2712 2714 2716 271D 2721 "
    "2728 2733-2734 2744 2747 274C 274E 2753-2755 2757 2763-2764 2795-2797 27A1 27B0 27BF 2934-2935 "
    "2B05-2B07 2B1B-2B1C 2B50 2B55 3030 303D 3297 3299 1F004 1F0CF 1F170-1F171 1F17E-1F17F 1F18E "
    "1F191-1F19A 1F201-1F202 1F21A 1F22F 1F232-1F23A 1F250-1F251 1F300-1F321 1F324-1F393 1F396-1F397 "
    "1F399-1F39B 1F39E-1F3F0 1F3F3-1F3F5 1F3F7-1F4FD 1F4FF-1F53D 1F549-1F54E 1F550-1F567 1F56F-1F570 "
    "1F573-1F57A 1F587 1F58A-1F58D 1F590 1F595-1F596 1F5A4-1F5A5 1F5A8 1F5B1-1F5B2 1F5BC 1F5C2-1F5C4 "
    "1F5D1-1F5D3 1F5DC-1F5DE 1F5E1 1F5E3 1F5E8 1F5EF 1F5F3 1F5FA-1F64F 1F680-1F6C5 1F6CB-1F6D2 "
    "1F6D5-1F6D7 1F6DC-1F6E5 1F6E9 1F6EB-1F6EC 1F6F0 1F6F3-1F6FC 1F7E0-1F7EB 1F7F0 1F90C-1F93A "
    "1F93C-1F945 1F947-1F9FF 1FA70-1FA7C 1FA80-1FA88 1FA90-1FABD 1FABF-1FAC5 1FACE-1FADB 1FAE0-1FAE8 "
    "1FAF0-1FAF8 "
)
_STARTS: list[int] = []
_ENDS: list[int] = []
for _part in _EMOJI_RANGES.split():
    _low, _, _high = _part.partition("-")
    _STARTS.append(int(_low, 16))
    _ENDS.append(int(_high or _low, 16))
_SPACE = frozenset("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | frozenset(
    map(chr, range(0x2000, 0x200B))
)  # JavaScript's \\s
_KEYCAP = re.compile("[0-9#*]\ufe0f?\u20e3")
_FORMATTING = re.compile(r"[*~=`]+")


def _emoji(c: str) -> bool:
    at = bisect.bisect_right(_STARTS, ord(c)) - 1
    return at >= 0 and ord(c) <= _ENDS[at]


def _emoji_end(key: str, i: int) -> int:
    """Where an emoji starting at `i` ends (`i` when none does): a keycap, or an emoji with its
    presentation selector, skin tones, tags and zero-width-joined emoji."""
    keycap = _KEYCAP.match(key, i)
    if keycap is not None:
        return keycap.end()
    if _flag(key, i) and _flag(key, i + 1):
        return i + 2  # a flag: two regional indicators
    if not _emoji(key[i]):
        return i
    j, n = i + 1, len(key)
    while j < n:
        c = ord(key[j])
        if c == 0xFE0F or 0x1F3FB <= c <= 0x1F3FF or 0xE0020 <= c <= 0xE007F or c == 0x20E3:
            j += 1
        elif c == 0x200D and j + 1 < n and _emoji(key[j + 1]):
            j += 2
        else:
            break
    return j


def _flag(key: str, i: int) -> bool:
    return i < len(key) and 0x1F1E6 <= ord(key[i]) <= 0x1F1FF


def _word(c: str) -> bool:
    return c in "_-" or "0" <= c <= "9" or unicodedata.category(c) in ("Lu", "Ll", "Lt", "Lm", "Lo")


@functools.lru_cache(maxsize=4096)
def canonical_key(key: str) -> str:
    """Dataview's canonical key (`canonicalizeVarName`): 'Due Date' -> 'due-date', 'due_date' stays."""
    out: list[str] = []
    i, n = 0, len(key)
    while i < n:
        j = _emoji_end(key, i)
        if j > i:
            out.append(key[i:j])
        elif _word(key[i]):
            while j < n and _word(key[j]):
                j += 1
            out.append(key[i:j].lower())
        elif key[i] in _SPACE:
            while j < n and key[j] in _SPACE:
                j += 1
            out.append("-")
        else:
            j = i + 1
        i = j
    return "".join(out)


def strip_formatting(key: str) -> str:
    """An inline field's key without Markdown emphasis around or in it (`**Status**`); an
    underscore is part of a key (`due_date`), as in Dataview."""
    return _FORMATTING.sub("", key).strip()


# The code points emoji-regex 10 matches followed by U+FE0F, as ranges (generated with node)
_WITH_SELECTOR = (
    "A9 AE 203C 2049 2122 2139 2194-2199 21A9-21AA 231A-231B 2328 23CF 23ED-23EF 23F1-23F2 23F8-23FA "
    "24C2 25AA-25AB 25B6 25C0 25FB-25FC 25FE 2600-2604 260E 2611 2614-2615 2618 261D 2620 2622-2623 "
    "2626 262A 262E-262F 2638-263A 2640 2642 2648-2653 265F-2660 2663 2665-2666 2668 267B 267E-267F "
    "2692 2694-2697 2699 269B-269C 26A0 26A7 26AA 26B0-26B1 26BD-26BE 26C4 26C8 26CF 26D1 26D3 26E9 "
    "26F0-26F5 26F7-26FA 2702 2708-2709 270C-270D 270F 2712 2714 2716 271D 2721 2733-2734 2744 2747 "
    "2757 2763-2764 27A1 2934-2935 2B05-2B07 2B1B-2B1C 2B55 3030 303D 3297 3299"
)
_SELECTED = frozenset(
    c
    for part in _WITH_SELECTOR.split()
    for c in range(int(part.partition("-")[0], 16), int(part.partition("-")[2] or part.partition("-")[0], 16) + 1)
)
_KEY_TAIL = frozenset("_*~`")


def _key_start(c: str) -> bool:
    """JavaScript's `[0-9\\w\\p{Letter}]` (`\\w` ASCII): where a full-line key begins."""
    return c.isascii() and (c.isalnum() or c == "_") or unicodedata.category(c) in ("Lu", "Ll", "Lt", "Lm", "Lo")


def _key_char(c: str) -> bool:
    """`[0-9\\p{Letter}\\w\\s_/-]`."""
    return _key_start(c) or c in "/-" or c in _SPACE


def _bmp_emoji_end(key: str, i: int) -> int:
    """Where the emoji Dataview's key parser takes at `i` ends (`i` when none): its emoji-regex
    runs with the `u` flag, under which the astral emoji it writes as a surrogate followed by a
    class match nothing, so only a keycap or an emoji of the first plane (with U+FE0F) is one."""
    keycap = _KEYCAP.match(key, i)
    if keycap is not None:
        return keycap.end()
    c = ord(key[i])
    if c > 0xFFFF or not _emoji(key[i]):
        return i
    return i + 2 if c in _SELECTED and key.startswith("\ufe0f", i + 1) else i + 1


def full_line_key(key: str) -> str | None:
    """The key of a whole-line `Key:: value` as Dataview reads it (inline-field.ts
    FULL_LINE_KEY_PARSER), or None when the line is no field there: leading marks and Markdown
    dropped (`**Status**` is `Status`, `> quoted` is `quoted`), then only letters, digits, `_`,
    spaces, `/`, `-` and emoji, then only `_`, `*`, `~` or a backquote. `e.g.`, `Mr. Smith`, `**Bold** Key`, `x²` or
    `C++ std` are no key: the line is text."""
    i, n = 0, len(key)
    while i < n and not _key_start(key[i]):
        i += 1
    start = i
    while i < n:
        j = _bmp_emoji_end(key, i)
        if j == i:
            while j < n and _key_char(key[j]):
                j += 1
            if j == i:
                break
        i = j
    if any(c not in _KEY_TAIL for c in key[i:]):
        return None
    return key[start:i]
