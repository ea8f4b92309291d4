"""A note much longer than the index reads is not held whole to index it (`reading._head_only`).

S1 s85: a 600 MB note took 2.4 GB to index (its bytes and its text at once), though the index
keeps only its first `[limits] max_indexed_note_chars` characters. Past `HEAD_FROM` bytes such a
note is read by its head, the content hash and the character count over the rest a chunk at a
time: the same etag, the same `capped` report and the same rows as a whole read gives.
Through the dispatch chain with a small limit (a patched `HEAD_FROM`); the memory bound on a
48 MiB note with tracemalloc (bytes held, not time).
"""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from service.indexer import reading
from service.indexer.caps import kept_text
from service.indexer.reading import read_note_checked
from service.vault.decoding import decode_note
from service.vault.etags import etag_of
from tests.conftest import started

WITHIN = 60.0
LIMIT = 2048
EARLY = "# Big\n\nearlyword café #early [[A]]\n- [ ] early task\n"
FILL = "".join(f"filler line {i} of plain words, naïve 東京 ✓\n" for i in range(2000))
LATE = "lateword #late [[B]]\n- [ ] late task\n"
BIG = EARLY + FILL + LATE
BASE = {"A.md": "# A\n\nalpha\n", "B.md": "# B\n\nbeta\n"}


@pytest.mark.parametrize(
    ("encoding", "data"),
    [
        ("utf-8", BIG.encode()),
        ("cp1252", (EARLY + FILL.replace("東京 ✓", "") + LATE).encode("cp1252")),
        ("utf-16-le", b"\xff\xfe" + BIG.encode("utf-16-le")),
        ("utf-8-replaced", BIG.encode()[:1000] + b"\xff" + BIG.encode()[1000:]),
    ],
)
def test_a_head_read_gives_what_a_whole_read_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoding: str, data: bytes
) -> None:
    (tmp_path / "Big.md").write_bytes(data)
    whole = read_note_checked(tmp_path, "Big.md")
    monkeypatch.setattr(reading, "HEAD_FROM", 4096)
    monkeypatch.setattr(reading, "max_chars", lambda: 100)  # the head: 4 * 100 + 4 bytes, then HEAD_FROM
    head = read_note_checked(tmp_path, "Big.md")
    assert isinstance(whole, reading.NoteInput) and isinstance(head, reading.NoteInput)
    text, named = decode_note(data)
    assert whole.encoding == head.encoding == named == encoding
    assert head.etag == whole.etag == etag_of(data)
    assert head.size == whole.size == len(data)
    assert head.whole_chars == whole.whole_chars == len(text)
    assert 100 < len(head.text) < len(text)  # the head, not the note
    assert kept_text(head.text, 100) == kept_text(whole.text, 100) == kept_text(text, 100)  # what the index keeps


def test_a_canvas_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = ('{"nodes": [' + ",".join(f'{{"id": "n{i}"}}' for i in range(2000)) + "]}").encode()
    (tmp_path / "Map.canvas").write_bytes(data)
    monkeypatch.setattr(reading, "HEAD_FROM", 4096)
    item = read_note_checked(tmp_path, "Map.canvas")
    assert isinstance(item, reading.NoteInput) and item.text == data.decode() and item.chars == -1


def test_a_48_mib_note_is_indexed_without_holding_it(tmp_path: Path) -> None:
    line = "a line of a long log, with a word or two more in it\n"
    data = (line * (48 * 1024 * 1024 // len(line))).encode()
    (tmp_path / "Log.md").write_bytes(data)
    (tmp_path / "Small.md").write_text("small\n")
    read_note_checked(tmp_path, "Small.md")  # what the first read imports is not the note's
    tracemalloc.start()
    try:
        item = read_note_checked(tmp_path, "Log.md")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(item, reading.NoteInput)
    assert item.etag == etag_of(data) and item.whole_chars == len(data) and item.size == len(data)
    # A whole read held its bytes and its text at once: over 96 MiB here.
    assert peak < 2 * reading.HEAD_FROM + 8 * 1024 * 1024, peak


async def test_a_long_note_read_by_its_head_is_indexed_as_a_whole_read_indexes_it(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "HEAD_FROM", 4096)  # BIG is ~100 KB: read by its head
    root = make_vault(BASE)
    async with started(root, limits={"max_indexed_note_chars": LIMIT}) as vg:
        await vg.indexed(WITHIN)
        (root / "Big.md").write_text(BIG, encoding="utf-8")  # saved by another program
        await vg.settled()

        async def found(word: str) -> list[str]:
            return [i["path"] for i in (await vg.ok("search_text", query=word))["items"]]

        for _ in range(int(WITHIN / 0.05)):
            if await found("earlyword"):
                break
            await asyncio.sleep(0.05)
        assert await found("earlyword") == ["Big.md"]
        assert await found("lateword") == []
        assert [b["path"] for b in (await vg.ok("get_backlinks", path="A"))["items"]] == ["Big.md"]
        [example] = (await vg.ok("index_status"))["file_warnings"]["examples"]
        kept = BIG.rfind("\n", 0, LIMIT) + 1
        assert example == {
            **example,
            "path": "Big.md",
            "detail": f"text {len(BIG)} chars > {LIMIT}: the first {kept} indexed",
        }
        # The etag the index holds is the file's: an edit guarded by it goes through.
        etag = (await vg.ok("read_note", path="Big", start_line=1, end_line=2))["etag"]
        assert etag == etag_of(BIG.encode())
        await vg.ok("append_note", path="Big", content="appendedword\n", expected_etag=etag)
        assert (root / "Big.md").read_text(encoding="utf-8") == BIG + "appendedword\n"
