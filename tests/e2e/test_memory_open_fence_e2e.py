"""tests/tools/memory/test_observation_after_open_fence.py over HTTP with the SDK client (both
eras): add_observations on an entity note whose Observations end in a code fence that never closes
writes the observation where open_nodes lists it, before the block (before 6ae651f5: inside it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_observation_after_open_fence import BODIES, FM


async def test_an_observation_never_lands_in_an_open_fence_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    vault = make_vault({"Memory/Ann.md": FM + BODIES[0]})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await ok(c, "add_observations", observations=[{"entityName": "Ann", "contents": ["brand new fact"]}])
        nodes = await ok(c, "open_nodes", names=["Ann"])
        text = h.read("Memory/Ann.md")
        assert [o["text"] for o in nodes["entities"][0]["observations"]] == ["plays chess", "brand new fact"], text
        assert text.endswith("```\ncode line\n"), text
