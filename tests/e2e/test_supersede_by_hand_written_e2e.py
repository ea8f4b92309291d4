"""tests/tools/memory/test_supersede_by_hand_written.py over HTTP with the SDK client (both eras):
superseding a fact by one a person wrote without a block id points the older at the newer's new
block id (before s78: `[superseded_by:: ^]`, a pointer to nothing, and the older fact read as current)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_supersede_by_hand_written import HEAD


async def test_a_hand_written_newer_fact_is_pointed_at_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    vault = make_vault({"Memory/Eve.md": HEAD + "- Likes tea\n- Likes coffee\n"})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        out = await ok(
            c, "supersede_observation", entityName="Eve", observation="Likes tea", superseded_by="Likes coffee"
        )
        assert out["superseded_by"], out
        assert f"- Likes coffee ^{out['superseded_by']}\n" in h.read("Memory/Eve.md")
        opened = await ok(c, "open_nodes", names=["Eve"])
        tea = next(o for o in opened["entities"][0]["observations"] if o["text"] == "Likes tea")
        assert tea["superseded_by"] == out["superseded_by"], tea
