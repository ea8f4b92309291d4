"""get_outline by pages reads the note once: its later pages come from the reading kept for the
note's version (`Services.outlines`, by etag), checked by hashing the file.

Before: each page read and outlined the whole note again (its headings' links looked for on the
page only), so paging a note of 3,000 headings at limit 500 fed its 9,000 lines to the outliner
six times (s73 L1's finding: 10 reads of a 10,000-heading note at limit 1,000). Now once, whole or
read by its lines; a note changed between pages still answers stale_cursor, and outlining it
again pages the new version."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.markdown.outline_reading import OutlineReading
from tests.conftest import Harness, started

NOTE = "# Top\n\n" + "".join(f"## Heading {i}\n\nline {i} ^b{i}\n\n" for i in range(3000))


async def _pages(vg: Harness, **args: Any) -> list[dict[str, Any]]:
    pages = [await vg.ok("get_outline", **args)]
    while cursor := pages[-1].get("next_cursor"):
        pages.append(await vg.ok("get_outline", **args, cursor=cursor))
    return pages


@pytest.mark.parametrize("budget", [256 << 10, 64 << 10], ids=["whole", "by-lines"])
async def test_the_pages_of_an_outline_read_the_note_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    taken: list[int] = []
    take = OutlineReading.take

    def counting(self: OutlineReading, no: int, line: str, body_line: int) -> None:
        taken.append(no)
        take(self, no, line, body_line)

    monkeypatch.setattr(OutlineReading, "take", counting)
    lines, limit = NOTE.count("\n") + 1, 100 if budget == 64 << 10 else 500
    async with started(make_vault({"Big.md": NOTE}), governor={"max_response_bytes": budget}) as vg:
        assert (len(NOTE) > budget) == (budget == 64 << 10)
        pages = await _pages(vg, path="Big", limit=limit)
        assert len(pages) == (31 if budget == 64 << 10 else 7)
        headings = [h["text"] for p in pages for h in p["headings"]]
        assert headings == ["Top", *(f"Heading {i}" for i in range(3000))]
        assert [b["id"] for p in pages for b in p["blocks"]] == [f"b{i}" for i in range(3000)]
        assert [h["link"] for p in pages for h in p["headings"]][1:] == headings[1:]
        assert len(taken) == lines  # every line once, not once per page
        first = pages[0]
        await vg.ok("append_note", path="Big", content="## Late\n")
        stale = await vg.err("get_outline", "validation_error", path="Big", cursor=first["next_cursor"])
        assert stale["details"]["reason"] == "stale_cursor"
        again = await _pages(vg, path="Big", limit=limit)
        assert [h["text"] for p in again for h in p["headings"]][-2:] == ["Heading 2999", "Late"]


async def test_the_kept_readings_belong_to_the_app_that_read_them(make_vault: Callable[..., Path]) -> None:
    """The readings were a module-level cache shared by every app in the process (`_KEPT`); they
    are the app's now (`Services.outlines`, built in `service.app`), gone with it."""
    vault = make_vault({"Big.md": NOTE})
    async with started(vault) as first:
        await first.ok("get_outline", path="Big", limit=100)
        assert len(first.app.services.outlines) == 1
        async with started(vault) as second:
            assert len(second.app.services.outlines) == 0
            pages = await _pages(second, path="Big", limit=1000)
            assert len(pages) == 4 and len(second.app.services.outlines) == 1
        assert len(first.app.services.outlines) == 1
