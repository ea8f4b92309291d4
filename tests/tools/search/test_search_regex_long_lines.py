"""search_regex over huge lines and many matches, through the full dispatch chain: the work
around the engine (line numbers, line text, counting matches) stays within the budget (T6 #7:
a word at the end of a 20 MB line answered after 22-99 s against a 2 s budget)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_a_million_matches_end_at_the_budget_not_after_them(make_vault: Callable[..., Path]) -> None:
    # Each match is found at once by the engine, whose timeout never fires; the old loop spent
    # seconds per million matches on line numbers outside the budget and answered them all.
    async with started(make_vault({"Many.md": "a\n" * 1_000_000})) as vg:
        await vg.indexed()
        error = await vg.err("search_regex", "compute_budget_exceeded", pattern="a", budget_ms=10)
        assert error["details"]["budget_ms"] == 10


async def test_a_match_at_the_end_of_a_huge_line_is_listed_with_its_file_line(
    make_vault: Callable[..., Path],
) -> None:
    body = "---\ntags: [x]\n---\n# L\n\n" + "word " * 400_000 + "needle\nsecond needle line\n"
    # 2 MB: past the default [limits] max_indexed_note_chars (1 Mi), which would leave the end unindexed
    async with started(make_vault({"Line.md": body}), limits={"max_indexed_note_chars": 4 * 1024 * 1024}) as vg:
        await vg.indexed()
        out = await vg.ok("search_regex", pattern="needle")
        [hit] = out["items"]
        assert hit["match_count"] == 2
        first, second = hit["matches"]
        assert first["line"] == 6 and first["text"] == ("word " * 60)[:300] and first["spans"] == []
        assert second["line"] == 7 and second["text"] == "second needle line" and second["spans"] == [[7, 13]]


async def test_every_match_of_a_listed_line_is_marked_when_max_lines_is_reached(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Rows.md": "x and x and x\nx again\n"})) as vg:
        await vg.indexed()
        out = await vg.ok("search_regex", pattern=r"\bx\b", max_lines=1)
        [hit] = out["items"]
        assert hit["match_count"] == 4
        assert hit["matches"] == [{"line": 1, "text": "x and x and x", "spans": [[0, 1], [6, 7], [12, 13]]}]
