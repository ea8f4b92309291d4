"""E2E (both eras, SDK client over real HTTP): suggest_links suggests, for a name two notes share,
the note its suggested link names: the one at the vault's top before the one beside the mention."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.graph.test_mention_of_a_name_at_the_top import VAULT


async def test_a_mention_is_suggested_as_its_link_names_it(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            top = await ok(client, "suggest_links", {"path": "Notes/Src.md"})
            assert [(i["target"], i["link"]) for i in top["items"]] == [("Idea.md", "[[Idea]]")], top
            beside = await ok(client, "suggest_links", {"path": "Notes/Uses.md"})
            assert [(i["target"], i["link"]) for i in beside["items"]] == [("Notes/Plan.md", "[[Plan]]")], beside
