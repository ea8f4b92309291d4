"""Note bytes to text (`service.vault.decoding`): UTF-8 exactly, other encodings detected, never a
failure, and nothing SQLite or JSON would refuse."""

from __future__ import annotations

import json

import pytest

from service.vault.decoding import decode_note, is_utf8_name, printable_name


def test_valid_utf8_is_decoded_exactly_and_a_bom_stays() -> None:
    data = "\ufeff---\ntitle: Café\n---\n# Café ✓\n".encode()
    decoded = decode_note(data)
    assert decoded.encoding == "utf-8"
    assert decoded.text.encode() == data


@pytest.mark.parametrize(
    ("data", "encoding", "text"),
    [
        (b"# Caf\xe9\n\nna\xefve r\xe9sum\xe9\n", "cp1252", "# Café\n\nnaïve résumé\n"),
        (b"\x93quoted\x94 \x80 5", "cp1252", "\u201cquoted\u201d \u20ac 5"),
        (b"caf\xe9 \x81", "latin-1", "café \x81"),  # 0x81 is undefined in cp1252
        ("# Café\n".encode("utf-16"), "utf-16-le", "# Café\n"),
        (b"\xfe\xff" + "# Café\n".encode("utf-16-be"), "utf-16-be", "# Café\n"),
        (b"\xff\xfe\x00\x00" + "# Café\n".encode("utf-32-le"), "utf-32-le", "# Café\n"),
    ],
)
def test_bytes_that_are_not_utf8_are_read_with_the_encoding_they_are_in(data: bytes, encoding: str, text: str) -> None:
    decoded = decode_note(data)
    assert (decoded.encoding, decoded.text) == (encoding, text)


def test_mostly_utf8_with_a_broken_sequence_keeps_the_utf8_and_replaces_the_break() -> None:
    data = "Grüße aus Köln, ".encode() + b"\xe2\x82" + " schön".encode()  # a euro sign cut short
    decoded = decode_note(data)
    assert decoded.encoding == "utf-8-replaced"
    assert decoded.text == "Grüße aus Köln, \ufffd schön"


@pytest.mark.parametrize("data", [b"\xff" * 9, b"\xed\xa0\x80", b"\xff\xfe\x00\xd8", bytes(range(256))])
def test_any_bytes_give_text_that_sqlite_and_json_accept(data: bytes) -> None:
    text = decode_note(data).text
    text.encode("utf-8")  # no lone surrogates
    assert json.loads(json.dumps(text)) == text


def test_a_name_that_is_not_utf8_is_recognised_and_shown_escaped() -> None:
    name = b"Caf\xe9/r\xe9sum\xe9.md".decode("utf-8", errors="surrogateescape")  # as os.listdir gives it
    assert not is_utf8_name(name)
    assert is_utf8_name("Café/résumé.md")
    assert printable_name(name) == "Caf\\xe9/r\\xe9sum\\xe9.md"
