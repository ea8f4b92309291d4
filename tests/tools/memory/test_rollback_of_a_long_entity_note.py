"""create_entities is all or nothing: when a later entity fails, the entity notes it made are
removed again. One over `[limits] max_note_bytes` is removed without being read whole for the
call's undo journal (its create's record is withdrawn once it is gone, S88 J3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.errors import Conflict
from service.memory.store import EntityStore
from tests.conftest import started
from tests.whole_reads import spy

LIMITS = {"max_note_bytes": 4096, "max_indexed_note_chars": 2048}
FACTS = [f"fact {i}: " + "plain words " * 40 for i in range(12)]  # ~6 KB of observations


async def test_a_long_entity_note_made_is_taken_back_unread_when_a_later_one_fails(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    create = EntityStore.create

    async def failing(self: EntityStore, entity: Any) -> Any:
        if entity.name == "Second":
            raise Conflict("another program saved it meanwhile", details={"path": entity.name})
        return await create(self, entity)

    async with started(make_vault({"Home.md": "# Home\n"}), limits=LIMITS, index={"watch": False}) as vg:
        reads = spy(monkeypatch)
        monkeypatch.setattr(EntityStore, "create", failing)
        entities = [
            {"name": "First", "entityType": "topic", "observations": FACTS},
            {"name": "Second", "entityType": "topic", "observations": ["one"]},
        ]
        await vg.err("create_entities", "conflict", entities=entities)
        assert not [p for p in vg.root.rglob("First*.md")], list(vg.root.rglob("*.md"))
        assert not [r for r in reads if r.endswith("First.md")], reads
        rows = await vg.app.state.fetchall("SELECT kind, path FROM plan_journal")
        assert not [r for r in rows if str(r[1]).endswith("First.md")], rows
