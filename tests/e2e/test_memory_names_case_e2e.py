"""A memory entity named in another letter case, end to end (real uvicorn, the SDK client, both
protocol eras): create_entities refuses it as a twin; the other tools take it for the entity
('steph ango' is 'Steph Ango', as note names are taken), names that fold alike answer
ambiguous_note, and a misspelt name is missed with the entity suggested."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok


async def test_an_entity_named_in_another_case_is_that_entity(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault()
    async with e2e(root, index={"watch": False}) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await _ok(c, "create_entities", entities=[{"name": "Steph Ango", "entityType": "person"}])
        twin = await _error(c, "create_entities", entities=[{"name": "STEPH ANGO", "entityType": "person"}])
        assert twin["code"] == "already_exists"
        added = await _ok(c, "add_observations", observations=[{"entityName": "steph ango", "contents": ["CEO"]}])
        assert added["results"][0]["added"] == 1 and "- CEO " in (root / "Memory" / "Steph Ango.md").read_text()
        opened = await _ok(c, "open_nodes", names=["STEPH ANGO"])
        assert [e["name"] for e in opened["entities"]] == ["Steph Ango"]
        missed = await _error(c, "add_observations", observations=[{"entityName": "STEF ANGO", "contents": ["x"]}])
        assert missed["code"] == "note_not_found" and missed["details"]["suggestions"] == ["Steph Ango"]
        (root / "Memory" / "STEPH ANGO 2.md").write_text("---\nname: STEPH ANGO\nentityType: person\n---\n")
        both = await _error(c, "add_observations", observations=[{"entityName": "steph ango", "contents": ["x"]}])
        assert both["code"] == "ambiguous_note" and both["details"]["candidates"] == ["STEPH ANGO", "Steph Ango"]
