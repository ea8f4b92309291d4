"""get_active_note while Obsidian shows a file whose bytes are no text, of a kind no extension
tells (a .zip, a .docx, a .sqlite, a .bin), through the whole dispatch chain against the Local REST
API stand-in (tests/tools/bridges/standin.py).

The plugin reads the active file as text whatever it is (`cachedRead`: UTF-8, each byte that is
none becoming U+FFFD, a NUL kept), and 2c5dc148 left out the content of images, audio, video and
PDFs only: the bytes of an archive or a database came back as the note's text. It is now null for
a file that read_attachment would not take for text (a NUL in its first 8 KiB, or bytes that are
no UTF-8), and `kind` says what the file is. A text file keeps its text, also one that holds the
character U+FFFD itself (its bytes on disk decide), and so does a note."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import FILES, api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

ZIP = b"PK\x03\x04\x14\x00\x00\x00\x08\x00\x8b\x9c\xa1Zword/document.xml\xed\xbd\x07`"
SQLITE = b"SQLite format 3\x00\x10\x00\x01\x01\x00@  \x00\x00\x00\x02"
NO_NUL = b"\x89\xc3\x28\xa0\xa1\xe2\x28\xa1 opaque \xf0\x90\x28\xbc bytes"  # not UTF-8, no NUL
BINARY = [("Files/Backup.zip", ZIP), ("Files/Report.docx", ZIP), ("Data/app.sqlite", SQLITE), ("blob.bin", NO_NUL)]
TEXT = [
    ("Files/notes.log", b"started\nstopped\n", "text"),
    ("Files/replaced.txt", "a \ufffd in the text itself\n".encode(), "text"),
    ("Files/export.dat", b"plain words, no extension we know\n", "other"),
]


def _as_obsidian_reads(path: str, data: bytes) -> dict[str, object]:
    """The NoteJson the plugin sends for the file: its bytes read as Node reads them as UTF-8."""
    return {
        "path": path,
        "content": data.decode("utf-8", errors="replace"),
        "frontmatter": {},
        "tags": [],
        "stat": None,
    }


@pytest.mark.parametrize(("path", "data"), BINARY)
async def test_a_binary_file_in_focus_has_no_text(
    make_vault: Callable[..., Path], tmp_path: Path, path: str, data: bytes
) -> None:
    obsidian = Obsidian(active=_as_obsidian_reads(path, data), metadata_wait_s=0.0)
    async with bridged(make_vault, tmp_path, obsidian, files={**FILES, path: data}) as (vg, _):
        out = await vg.ok("get_active_note")
    assert out["active"] is True and out["path"] == path and out["content"] is None, out
    assert out["kind"] == "other", out


@pytest.mark.parametrize(("path", "data", "kind"), TEXT)
async def test_a_text_file_in_focus_keeps_its_text(
    make_vault: Callable[..., Path], tmp_path: Path, path: str, data: bytes, kind: str
) -> None:
    obsidian = Obsidian(active=_as_obsidian_reads(path, data), metadata_wait_s=0.0)
    async with bridged(make_vault, tmp_path, obsidian, files={**FILES, path: data}) as (vg, _):
        out = await vg.ok("get_active_note")
    assert out["kind"] == kind and out["content"] == data.decode(), out


async def test_a_note_is_text_whatever_it_holds(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    text = "# Odd\n\nA \ufffd and a \x00 in a note.\n"
    active = {"path": "Odd.md", "content": text, "frontmatter": {}, "tags": [], "stat": None}
    async with bridged(make_vault, tmp_path, Obsidian(active=active), files={**FILES, "Odd.md": text}) as (vg, _):
        out = await vg.ok("get_active_note")
    assert out["kind"] == "note" and out["content"] == text, out
