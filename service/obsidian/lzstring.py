"""LZ-string's Base64 form (the `compressed-json` block of an Excalidraw drawing), both ways.

LZ-string (pieroxy, MIT, the `lz-string` npm package the Excalidraw plugin calls) is an LZW
variant over UTF-16 code units: a dictionary that starts with three control codes (0: a new 8-bit
character follows, 1: a new 16-bit character follows, 2: end of stream) and grows by one entry per
code, code widths growing from 2 bits as the dictionary doubles, each code written least
significant bit first into 6-bit Base64 digits, the last digit padded with zero bits and the text
with `=` to a multiple of four. Written here from that description; the output is the JavaScript
library's to the byte (`tests/unit/obsidian/test_lzstring.py` holds vectors made by it), so a
drawing written here is one the plugin decompresses and a plugin-written one reads back the same.

Strings are handled as JavaScript sees them, in UTF-16 code units: a character outside the Basic
Multilingual Plane is two units (a surrogate pair), as in the plugin's own files.

Decompression is where a small input can become a large output (each code may repeat a longer
stretch than the last: an "LZ bomb"): `decompress_from_base64` counts what it would produce and
stops with `DecompressTooLarge` past `max_chars`, before building it.
"""

from __future__ import annotations

_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_DIGIT = {ch: i for i, ch in enumerate(_BASE64)}
_BITS = 6  # bits per Base64 digit


class DecompressTooLarge(ValueError):
    """The decompressed text would pass the size allowed (`size` is what it had reached)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"decompressed text passes {limit} characters")
        self.size = size
        self.limit = limit


def _units(text: str) -> list[int]:
    raw = text.encode("utf-16-le", "surrogatepass")
    return [raw[i] | raw[i + 1] << 8 for i in range(0, len(raw), 2)]


class _BitWriter:
    __slots__ = ("digits", "pos", "val")

    def __init__(self) -> None:
        self.digits: list[str] = []
        self.val = 0
        self.pos = 0

    def bit(self, bit: int) -> None:
        self.val = (self.val << 1) | bit
        if self.pos == _BITS - 1:
            self.digits.append(_BASE64[self.val])
            self.pos = 0
            self.val = 0
        else:
            self.pos += 1

    def value(self, value: int, width: int) -> None:
        """`value` in `width` bits, least significant first."""
        for _ in range(width):
            self.bit(value & 1)
            value >>= 1

    def flush(self) -> str:
        while True:
            self.val <<= 1
            if self.pos == _BITS - 1:
                self.digits.append(_BASE64[self.val])
                break
            self.pos += 1
        return "".join(self.digits)


def compress_to_base64(text: str) -> str:
    """`LZString.compressToBase64(text)`."""
    out = _BitWriter()
    singles: dict[int, int] = {}  # code unit -> its dictionary code
    pairs: dict[tuple[int, int], int] = {}  # (code of w, next unit) -> code of w + unit
    fresh: set[int] = set()  # units seen but not yet written out as literals
    size = 3
    width = 2
    enlarge = 2
    w = -1  # dictionary code of the current phrase (-1: none yet)
    w_unit = -1  # the phrase's unit when it is one unit long, else -1

    def emit(code: int, unit: int) -> None:
        nonlocal width, enlarge
        if unit >= 0 and unit in fresh:
            if unit < 256:
                out.value(0, width)
                out.value(unit, 8)
            else:
                out.value(1, width)
                out.value(unit, 16)
            enlarge -= 1
            if enlarge == 0:
                enlarge = 1 << width
                width += 1
            fresh.discard(unit)
        else:
            out.value(code, width)
        enlarge -= 1
        if enlarge == 0:
            enlarge = 1 << width
            width += 1

    for unit in _units(text):
        if unit not in singles:
            singles[unit] = size
            size += 1
            fresh.add(unit)
        if w < 0:
            w, w_unit = singles[unit], unit
            continue
        joined = pairs.get((w, unit))
        if joined is not None:
            w, w_unit = joined, -1
            continue
        emit(w, w_unit)
        pairs[(w, unit)] = size
        size += 1
        w, w_unit = singles[unit], unit
    if w >= 0:
        emit(w, w_unit)
    out.value(2, width)
    encoded = out.flush()
    return encoded + "=" * ((4 - len(encoded) % 4) % 4)


class _BitReader:
    __slots__ = ("digits", "index", "pos", "val")

    def __init__(self, digits: list[int]) -> None:
        self.digits = digits
        self.val = digits[0] if digits else 0
        self.pos = 1 << (_BITS - 1)
        self.index = 1

    def value(self, width: int) -> int:
        result = 0
        for i in range(width):
            if self.val & self.pos:
                result |= 1 << i
            self.pos >>= 1
            if self.pos == 0:
                self.pos = 1 << (_BITS - 1)
                # Past the end (or a character outside the alphabet) reads as zero bits, as in
                # the JavaScript library.
                self.val = self.digits[self.index] if self.index < len(self.digits) else 0
                self.index += 1
        return result


def decompress_from_base64(text: str, *, max_chars: int) -> str | None:
    """`LZString.decompressFromBase64(text)` with line breaks removed first (the plugin wraps the
    block every 256 characters): the text, `None` where the library answers null (a stream it
    cannot decode), "" for a truncated stream. `DecompressTooLarge` past `max_chars` code units."""
    cleaned = text.replace("\n", "").replace("\r", "")
    if cleaned == "":
        return None
    digits = [_DIGIT.get(ch, 0) for ch in cleaned]
    length = len(digits)
    src = _BitReader(digits)
    # Entries are strings of code units (a lone surrogate is a valid Python character): two
    # bytes a unit, where a list of ints would take eight.
    entries: list[str] = ["", "", ""]
    width = 3
    enlarge = 4
    kind = src.value(2)
    if kind == 2:
        return ""
    w = chr(src.value(8 if kind == 0 else 16))
    entries.append(w)
    out: list[str] = [w]
    produced = 1
    while True:
        if src.index > length:
            return ""
        code = src.value(width)
        if code == 2:
            return _joined(out)
        if code in (0, 1):
            entries.append(chr(src.value(8 if code == 0 else 16)))
            code = len(entries) - 1
            enlarge -= 1
        if enlarge == 0:
            enlarge = 1 << width
            width += 1
        if code < len(entries):
            entry = entries[code]
        elif code == len(entries):
            entry = w + w[0]
        else:
            return None
        produced += len(entry)
        if produced > max_chars:
            raise DecompressTooLarge(produced, max_chars)
        out.append(entry)
        entries.append(w + entry[0])
        enlarge -= 1
        w = entry
        if enlarge == 0:
            enlarge = 1 << width
            width += 1


def _joined(parts: list[str]) -> str:
    """Code units joined into text (a surrogate pair becomes the one character it encodes)."""
    return "".join(parts).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
