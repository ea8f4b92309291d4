"""tests/tools/memory/test_section_headings_closed.py over HTTP with the SDK client (both eras): an
entity note whose sections a person headed `## Observations ##` / `##   Relations   #` lists their
items, and an added observation goes under the person's heading (before s77: none listed, and a
second `## Observations` section was appended)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_section_headings_closed import ANN, EVE


async def test_sections_with_closing_hashes_are_the_entitys_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    vault = make_vault({"Memory/Eve.md": EVE, "Memory/Ann.md": ANN})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        opened = await ok(c, "open_nodes", names=["Eve"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Likes tea"], opened
        await ok(c, "add_observations", observations=[{"entityName": "Eve", "contents": ["Plays chess"]}])
        text = h.read("Memory/Eve.md")
        assert "## Observations ##\n- Likes tea ^m-1\n- Plays chess" in text and text.count("Observations") == 1, text
