"""A note whose text alone is more than an answer may hold (`[governor] max_response_bytes`; a
50 MB note of one line) is refused by read_note before it is read (the whole note) or before
its answer is built (a line range, a section, the body): `overflow` with the text's size and a
way forward. Before, read_note read the 50 MB note, built its ~100 MB answer and only then did
the governor refuse it (tracemalloc peak 150 MB a call, 0 MB now for the whole note). read_notes
answers such a note with a per-note `overflow` error and reads the others, where the whole call
was refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

LIMIT = 4096
LINE = "x" * 20_000  # one line, alone more than the answer may hold (it is sent twice)
FILES = {"Line.md": LINE, "Tail.md": "# T\n\nshort\n\n## Long\n\n" + LINE + "\n", "Small.md": "# S\n"}


async def test_read_note_refuses_the_whole_note_without_reading_it(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault(FILES), governor={"max_response_bytes": LIMIT}) as vg:
        files = next(iter(vg.app.vaults.values())).files
        read = files.read
        reads: list[str] = []

        def counted(vp: Any) -> Any:
            reads.append(vp.rel)
            return read(vp)

        monkeypatch.setattr(files, "read", counted)
        error = await vg.err("read_note", "overflow", path="Line")
        assert error["details"] == {"bytes": len(LINE), "limit": LIMIT, "tool": "read_note"}
        assert "line range" in error["hint"] and reads == []


@pytest.mark.parametrize(
    "args", [{"path": "Line", "start_line": 1, "end_line": 1}, {"path": "Tail#Long"}, {"path": "Line", "part": "body"}]
)
async def test_read_note_refuses_a_part_too_long_before_its_answer(
    make_vault: Callable[..., Path], args: dict[str, Any]
) -> None:
    async with started(make_vault(FILES), governor={"max_response_bytes": LIMIT}) as vg:
        error = await vg.err("read_note", "overflow", **args)
        assert error["details"]["tool"] == "read_note" and error["details"]["bytes"] >= 2 * len(LINE)
        assert "line range" in error["hint"]
        shown = await vg.ok("read_note", path="Tail", start_line=3, end_line=3)  # a part that fits is read
        assert (shown["content"], shown["start_line"], shown["end_line"]) == ("short\n", 3, 3)


async def test_read_notes_answers_a_note_too_long_with_its_own_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), governor={"max_response_bytes": LIMIT}) as vg:
        answer = await vg.ok("read_notes", paths=["Small", "Line", "Tail#Long"])
        small, line, tail = answer["items"]
        assert small["content"] == "# S\n" and answer["next_cursor"] is None
        assert line["error"]["code"] == "overflow" and line["error"]["details"]["bytes"] == len(LINE)
        assert tail["error"]["code"] == "overflow" and tail["path"] == "Tail#Long"
