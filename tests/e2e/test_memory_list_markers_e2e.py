"""tests/tools/memory/test_memory_list_markers.py over HTTP with the SDK client (both eras): an
entity note whose observations a person wrote as `-\t…`, `* …` or a numbered list lists them, an
observation stated again is a duplicate, a new one continues the person's list (the next number)
and delete_observations removes the person's line (before s78: none listed, the fact written
again as `- …`, delete_observations answered not_found)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_memory_list_markers import ANN, HEAD, TAIL

EVE = HEAD + "-\tLikes tea\n1. Reads ^e-1\n2) Plays chess\n" + TAIL.format(rel="* knows [[Memory/Ann]]")


async def test_every_list_form_is_an_observation_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    vault = make_vault({"Memory/Eve.md": EVE, "Memory/Ann.md": ANN})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        opened = await ok(c, "open_nodes", names=["Eve"])
        texts = [o["text"] for o in opened["entities"][0]["observations"]]
        assert texts == ["Likes tea", "Reads", "Plays chess"], opened
        assert {"from": "Eve", "to": "Ann", "relationType": "knows"} in opened["relations"], opened
        added = await ok(c, "add_observations", observations=[{"entityName": "Eve", "contents": ["likes tea", "Naps"]}])
        assert added["results"][0]["skipped_duplicates"] == ["likes tea"], added
        assert "\n2) Plays chess\n3) Naps [" in h.read("Memory/Eve.md")
        gone = await ok(c, "delete_observations", deletions=[{"entityName": "Eve", "observations": ["Likes tea"]}])
        assert (gone["deleted"], gone["not_found"]) == (1, []), gone
        assert "Likes tea" not in h.read("Memory/Eve.md")
