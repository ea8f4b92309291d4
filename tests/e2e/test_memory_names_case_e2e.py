"""A memory entity named in another letter case, end to end (real uvicorn, the SDK client, both
protocol eras): create_entities refuses it as a twin, and the tools that miss it suggest it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok


async def test_an_entity_named_in_another_case_is_suggested(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(), index={"watch": False}) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await _ok(c, "create_entities", entities=[{"name": "Steph Ango", "entityType": "person"}])
        twin = await _error(c, "create_entities", entities=[{"name": "STEPH ANGO", "entityType": "person"}])
        assert twin["code"] == "already_exists"
        missed = await _error(c, "add_observations", observations=[{"entityName": "STEPH ANGO", "contents": ["CEO"]}])
        assert missed["code"] == "note_not_found" and missed["details"]["suggestions"] == ["Steph Ango"]
        name = missed["details"]["suggestions"][0]
        await _ok(c, "add_observations", observations=[{"entityName": name, "contents": ["CEO"]}])
