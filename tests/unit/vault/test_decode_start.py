"""`decode_start` reads a note's start as `decode_note` reads it in the whole note: the encoding
is the whole note's (review R3 s63 #9: one Latin-1 byte past the start made the index read the
note as cp1252 while the start alone read as UTF-8), and is the text of the start only, not of the
whole note (review R1 s64 F5: a start that is UTF-8 with a bad byte later returned the whole note,
which the name lookup then parsed)."""

from __future__ import annotations

import io

import pytest

from service.vault.decoding import decode_note, decode_start

SIZE = 64

CASES = {
    "ascii start, latin-1 byte later": b"name: Zoe\n" + b"x" * 100 + b"caf\xe9\n",
    "utf-8 start, latin-1 byte later": "name: Zoé\n".encode() + b"x" * 100 + b"caf\xe9\n",
    "utf-8 throughout, start cut in a character": "name: Zoé\n".encode() + "é".encode() * 80,
    "utf-8 throughout, long": "name: Zoé\n".encode() + b"y" * 5000,
    "utf-8 start, a bad byte later, replaced": "name: Zoé\n".encode() + "é".encode() * 60 + b"\xff" + b"w" * 500,
    "latin-1 at the start": b"name: Zo\xe9\n" + b"z" * 100,
    "utf-16 with a mark": b"\xff\xfe" + "name: Zoé\n".encode("utf-16-le") * 10,
    "short utf-8": "name: Zoé\n".encode(),
    "short latin-1": b"name: Zo\xe9\n",
    "exactly the start, cut in a character": b"name: Zo" + "é".encode() * 40,
}


@pytest.mark.parametrize("data", list(CASES.values()), ids=list(CASES))
def test_the_start_reads_as_in_the_whole_note(data: bytes) -> None:
    start = decode_start(io.BytesIO(data), SIZE)
    whole = decode_note(data).text
    assert whole.startswith(start), (start, whole[: len(start) + 8])
    assert len(start) >= min(len(whole), SIZE // 4 - 1)
    assert len(start) <= SIZE, "more than the text of the first SIZE bytes"  # any encoding: a byte or more a character
