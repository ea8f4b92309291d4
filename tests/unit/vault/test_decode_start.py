"""`decode_start` reads a note's start as `decode_note` reads it in the whole note: the encoding
is the whole note's (review R3 s63 #9: one Latin-1 byte past the start made the index read the
note as cp1252 while the start alone read as UTF-8), and is the text of the start only, not of the
whole note (review R1 s64 F5: a start that is UTF-8 with a bad byte later returned the whole note,
which the name lookup then parsed)."""

from __future__ import annotations

import io

import pytest

from service.vault.decoding import _encoding_of, decode_note, decode_start

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


MB = 1 << 20
LONG = {  # past one read of the rest (1 MiB), a character split between two of them
    "cp1252 from the start": b"name: Zo\xe9\n" + (b"caf\xe9 " + b"x" * 90 + b"\n") * 30_000,
    "cp1252, an undefined byte late: latin-1": b"Zo\xe9\n" + b"y" * (2 * MB) + b"\x81\n",
    "utf-8 with a bad byte each 1 MiB, replaced": "Zoé\n".encode() + ("é".encode() * (MB // 2 - 3) + b"\xff") * 3,
    "utf-8 mostly, a character cut by a read": "Zoé\n".encode() + b"a" * (MB - 5) + "é€".encode() * 9 + b"\xff",
    "utf-16 with a mark, long": b"\xff\xfe" + "name: Zoé\n".encode("utf-16-le") * 150_000,
}


class Bounded(io.BytesIO):
    """A file that refuses to be read whole: every read asks for at most `most` bytes."""

    def __init__(self, data: bytes, most: int) -> None:
        super().__init__(data)
        self.most = most

    def read(self, size: int | None = -1, /) -> bytes:
        assert size is not None and 0 <= size <= self.most, f"a read of {size} bytes"
        return super().read(size)


@pytest.mark.parametrize("data", list(LONG.values()), ids=list(LONG))
def test_a_long_note_not_utf_8_is_decided_a_chunk_at_a_time(data: bytes) -> None:
    """The encoding of a note that is not UTF-8 is decided as `decode_note` decides it, without
    reading the note whole (a 600 MB cp1252 or UTF-16 note was read whole for its start)."""
    start = decode_start(Bounded(data, max(MB, SIZE)), SIZE)
    whole = decode_note(data).text
    assert whole.startswith(start) and len(start) >= SIZE // 4 - 1, (start, whole[: len(start) + 8])
    assert _encoding_of(Bounded(data, MB)) == decode_note(data).encoding
