"""A note's bytes as text: UTF-8 as written, other encodings detected, never a failure.

Obsidian writes UTF-8, but vaults collect files from elsewhere: a note saved by an old Windows
editor in cp1252, one exported as UTF-16 with a byte-order mark. Such a note must fail neither a
read nor the index: its text goes to SQLite and to JSON, and both refuse the lone surrogates a
`surrogateescape` decode leaves for bytes that are not UTF-8. The order tried:

- a UTF-32 or UTF-16 byte-order mark: that encoding, the mark dropped (a broken unit replaced);
- valid UTF-8: decoded exactly ("utf-8"), a UTF-8 byte-order mark kept as U+FEFF, which the
  Markdown layer skips and a write puts back, so such a file round-trips byte for byte;
- UTF-8 with a few broken sequences among many valid ones (a file cut mid-character, one stray
  byte): UTF-8 with U+FFFD for each broken sequence ("utf-8-replaced");
- otherwise cp1252, which is what "Latin-1" files written on Windows are, or latin-1 when the
  bytes use one of the five values cp1252 leaves undefined.

`Decoded.encoding` names what was used; anything but "utf-8" means the text is not the file's
bytes exactly. An edit of such a note writes it back in that encoding (`encode_edit`), a
UTF-16/32 byte-order mark included; a new note (and a whole note written over) is UTF-8.
"""

from __future__ import annotations

import codecs
import json
from typing import BinaryIO, NamedTuple

from service.errors import ValidationFailed

UTF8 = "utf-8"
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


class Decoded(NamedTuple):
    text: str
    encoding: str  # "utf-8" when the text is exactly the bytes; see the module docstring


def decode_note(data: bytes) -> Decoded:
    """The text of a note's bytes and the encoding it was read with (never raises)."""
    try:
        return Decoded(data.decode(UTF8), UTF8)
    except UnicodeDecodeError:
        pass
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return Decoded(data[len(bom) :].decode(encoding, errors="replace"), encoding)
    # Counted at C speed (a 50 MB file that is not UTF-8 is read in well under a second): the
    # bytes no UTF-8 sequence took, and the characters beyond ASCII that valid sequences gave.
    kept = data.decode(UTF8, errors="ignore")
    broken = len(data) - len(kept.encode(UTF8))
    valid = len(kept) - len(kept.encode("ascii", errors="ignore"))
    if valid > broken:
        return Decoded(data.decode(UTF8, errors="replace"), "utf-8-replaced")
    try:
        return Decoded(data.decode("cp1252"), "cp1252")
    except UnicodeDecodeError:
        return Decoded(data.decode("latin-1"), "latin-1")


def encode_note(text: str, encoding: str) -> bytes:
    """`text` as bytes in the encoding `decode_note` named for the note it came from, its
    byte-order mark put back (UTF-16/32): a copy of a cp1252 or UTF-16 note whose text changed
    stays in that encoding. UTF-8 for a note read as UTF-8 (or with broken sequences replaced),
    and where the encoding lacks one of the text's characters (a link rewritten to a name cp1252
    cannot spell): the whole file — a new one, the copy — then reads back as UTF-8."""
    try:
        return _encoded(text, encoding)
    except UnicodeEncodeError:
        return text.encode(UTF8, errors="surrogateescape")


def encode_edit(text: str, encoding: str, rel: str) -> bytes:
    """An edited note's bytes (`text`, the note's text read as `encoding` and changed) in the
    encoding it was read with, byte-order mark included: an edit never changes a cp1252 or
    UTF-16 note's encoding. One that encoding cannot hold (an emoji into a cp1252 note) is
    refused (`validation_error`, reason `unrepresentable`, naming the encoding and the first
    character): saving the whole note as UTF-8 instead would change the bytes of every other
    non-ASCII character in it under the program that wrote it, a change no one asked for. A JSON
    file (`JSON_FILES`: a canvas, bookmarks.json, a plain drawing) never needs that: outside its
    strings JSON is ASCII, so such a character is written as the string escape that means it
    (`\\u6771` for 東, a surrogate pair past U+FFFF), which every JSON reader takes as the character."""
    try:
        return _encoded(text, encoding, _JSON_ESCAPE if rel.lower().endswith(JSON_FILES) else "strict")
    except UnicodeEncodeError as exc:
        char = str(exc.object[exc.start])
        code = f"U+{ord(char):04X}"
        raise ValidationFailed(
            f"{rel!r} is saved as {encoding}, which cannot hold {char!r} ({code}): nothing was written",
            details={
                "path": rel,
                "reason": "unrepresentable",
                "encoding": encoding,
                "character": char,
                "codepoint": code,
            },
            hint=_unrepresentable_hint(text, encoding, rel),
        ) from None


def _unrepresentable_hint(text: str, encoding: str, rel: str) -> str:
    """What to do about a refused character, fitting the file: a drawing's Markdown is the Excalidraw
    plugin's to write and an entity note's the memory tools', never a whole note an agent writes."""
    if rel.lower().endswith(".excalidraw.md"):
        return (
            f"Leave out the characters {encoding} lacks: the drawing keeps the encoding it was saved in, "
            "and writing the whole file (write_note) would replace the drawing's own data."
        )
    if text.startswith("---") and "\nentityType:" in text.split("\n---", 1)[0]:  # a memory entity's note
        return (
            f"Leave out the characters {encoding} lacks (or write them in words): the entity's note keeps "
            "the encoding it was saved in, which the memory tools never change."
        )
    return (
        f"Leave out the characters {encoding} lacks, or replace the whole note with write_note "
        "(mode='overwrite'), which saves it as UTF-8."
    )


def _encoded(text: str, encoding: str, errors: str = "strict") -> bytes:
    """`text` in `encoding` (`decode_note`'s name), its byte-order mark put back; UnicodeEncodeError
    where that encoding lacks a character (never for UTF-8: a lone surrogate is the byte it escaped)."""
    if encoding in (UTF8, "utf-8-replaced"):
        return text.encode(UTF8, errors="surrogateescape")
    return next((bom for bom, named in _BOMS if named == encoding), b"") + text.encode(encoding, errors)


JSON_FILES = (".canvas", ".json", ".excalidraw")
_JSON_ESCAPE = "vaultgate-json-escape"


def _json_escaped(exc: UnicodeError) -> tuple[str, int]:
    """The characters an encoding lacks as the JSON string escapes that mean them (`\\u6771`, a
    surrogate pair past U+FFFF)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return json.dumps(exc.object[exc.start : exc.end])[1:-1], exc.end


codecs.register_error(_JSON_ESCAPE, _json_escaped)


def decode_start(f: BinaryIO, size: int) -> str:
    """The text of the first `size` bytes of the open note `f` as `decode_note` decodes them in
    the whole note, which decides the encoding from all of it: a start of ASCII reads the same in
    every encoding it chooses; one that is not is UTF-8 only when the rest is too (checked a chunk
    at a time, nothing kept: one Latin-1 byte past the start makes the whole note cp1252),
    otherwise the encoding `decode_note` would name is decided a chunk at a time too
    (`_encoding_of`: a 600 MB cp1252 or UTF-16 note was read whole here), and the start read as
    it is. A start cut inside a character drops it."""
    data = f.read(size)
    if len(data) < size or data.isascii():
        return decode_note(data).text
    utf8 = codecs.getincrementaldecoder(UTF8)()
    try:
        start = utf8.decode(data)
        while chunk := f.read(_CHUNK):
            utf8.decode(chunk)
        utf8.decode(b"", final=True)
    except UnicodeDecodeError:
        f.seek(0)
        return _start_as(data, _encoding_of(f))
    return start


_CHUNK = 1 << 20


def _encoding_of(f: BinaryIO) -> str:
    """`decode_note(f.read()).encoding` of a note that is not valid UTF-8, a chunk at a time (the
    same counts, at C speed: an incremental decoder gives what one decode of the whole gives)."""
    mark = f.read(4)
    for bom, encoding in _BOMS:
        if mark.startswith(bom):
            return encoding
    f.seek(0)
    kept = codecs.getincrementaldecoder(UTF8)(errors="ignore")
    broken = valid = 0
    cp1252 = True
    while True:
        chunk = f.read(_CHUNK)
        text = kept.decode(chunk, final=not chunk)
        broken += len(chunk) - len(text.encode(UTF8))
        valid += len(text) - len(text.encode("ascii", errors="ignore"))
        if cp1252:
            try:
                chunk.decode("cp1252")
            except UnicodeDecodeError:
                cp1252 = False
        if not chunk:
            break
    if valid > broken:
        return "utf-8-replaced"
    return "cp1252" if cp1252 else "latin-1"


def _start_as(data: bytes, encoding: str) -> str:
    """A note's first bytes read as `decode_note` read the whole note (`encoding`, its answer)."""
    mark = next((len(bom) for bom, named in _BOMS if named == encoding and data.startswith(bom)), 0)
    codec = UTF8 if encoding == "utf-8-replaced" else encoding
    return codecs.getincrementaldecoder(codec)(errors="replace").decode(data[mark:])  # a cut character held back


def printable_name(name: str) -> str:
    """A file name as the OS gave it (undecodable bytes as lone surrogates) in a form JSON, logs
    and SQLite accept: each byte that is not UTF-8 as `\\xNN`."""
    return name.encode(UTF8, errors="surrogateescape").decode(UTF8, errors="backslashreplace")


def is_utf8_bytes(name: bytes) -> bool:
    """Whether a file name (or path) as the OS gives it, in bytes, is valid UTF-8."""
    if name.isascii():
        return True
    try:
        name.decode(UTF8)
    except UnicodeDecodeError:
        return False
    return True


def is_utf8_name(name: str) -> bool:
    """Whether a file name (or path) from the OS is valid UTF-8; one that is not carries lone
    surrogates (Python's `surrogateescape`), which SQLite and JSON refuse."""
    if name.isascii():  # nearly every name: no encoding pass
        return True
    try:
        name.encode(UTF8)
    except UnicodeEncodeError:
        return False
    return True
