"""read_note of a note named by its path stats the file once: the size `find_note` saw when it
found it there decides the note's answer budget and whether it is read off the loop.

Before, a plain read stat'ed the note three times before opening it (`find_note`'s `is_file`,
the budget's `VaultFiles.stat`, `offloop.read`'s size): two syscalls of ~10 on the answer's path
of every read over stdio (issue 39). A note found by name, not by its path, is stat'ed as before."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

NOTE = "---\ntags: [trip]\n---\n# Trip\n\nSee [[Packing]].\n"
BIG = "# Big\n\n" + "words and more words\n" * 2_000


async def _read(vg: Harness, monkeypatch: pytest.MonkeyPatch, path: str) -> tuple[dict[str, Any], int]:
    """read_note's answer for `path`, and how many `os.stat` calls it made on Trip.md."""
    seen: list[str] = []
    real = os.stat

    def counting(target: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if isinstance(target, str | os.PathLike) and os.fspath(target).endswith("Trip.md"):
            seen.append(os.fspath(target))
        return real(target, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(os, "stat", counting)
        out = await vg.ok("read_note", path=path)
    return out, len(seen)


async def test_a_note_read_by_its_path_is_stated_once_and_answered_as_its_file_is(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Plans/Trip.md": NOTE, "Packing.md": "# Packing\n"})
    async with started(root) as vg:
        await vg.indexed()
        out, stats = await _read(vg, monkeypatch, "Plans/Trip")
        st = (root / "Plans/Trip.md").stat()
        assert stats == 1
        assert (out["path"], out["content"]) == ("Plans/Trip.md", NOTE)
        assert (out["size"], out["mtime"]) == (st.st_size, st.st_mtime)
        assert (out["tags"], out["links"], out["total_lines"]) == (["trip"], ["Packing"], 6)
        by_name, _ = await _read(vg, monkeypatch, "Trip")  # found by name: its stat is made as before
        assert by_name == out


async def test_a_note_over_the_budget_found_by_its_path_is_refused_unread_and_read_by_parts(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Big.md": BIG}), governor={"max_response_bytes": 16_384}) as vg:
        error = await vg.err("read_note", "overflow", path="Big.md")
        assert error["details"]["bytes"] >= len(BIG)
        part = await vg.ok("read_note", path="Big.md", start_line=3, end_line=4)
        assert part["content"] == "words and more words\n" * 2 and part["size"] == len(BIG)
