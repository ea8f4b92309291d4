"""tests/tools/memory/test_entity_names_that_show_nothing.py over HTTP with the SDK client (both
eras): create_entities of `Ann\\u200b` beside the entity Ann is `validation_error` (`looks_like`,
naming Ann), nothing made; before A4 s95 it made a second entity every reader showed as "Ann"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.memory.test_entity_names_that_show_nothing import ANN


async def test_a_name_that_shows_as_an_entity_is_refused_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Memory/Ann.md": ANN})) as (url, h), Client(url, mode=mode) as c:
        refused = await error(c, "create_entities", entities=[{"name": "Ann\u200b", "entityType": "person"}])
        assert (refused["code"], refused["details"]["reason"], refused["details"]["entity"]) == (
            "validation_error",
            "looks_like",
            "Ann",
        )
        assert not (h.root / "Memory/Ann~200B.md").exists()
        assert [e["name"] for e in (await ok(c, "read_memory_graph"))["entities"]] == ["Ann"]
