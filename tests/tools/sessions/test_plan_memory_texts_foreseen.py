"""A plan's preview foresees what create_entities, add_observations and create_relations write
into entity notes (P6 s75, left): an observation, its `source` or a relation linking a note a later
step moves was an estimate — the move's counts missed the link the memory step put in the entity's
note, and the entry said `estimate`. The check now composes the entity note's text with the memory
tools' own functions (`service.tools.memory.planned`; a relation to the link the check found for its
target, as the call finds it), so the move's entry is the move's own result, the confirmation's
files are the files the run changed, and undo_last_plan restores every byte (the oracle of
tests/tools/sessions/test_plan_preview_oracle.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.tools.sessions.test_plan_preview_oracle import BIN, LINK, VAULT, _check

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-1\n\n## Relations\n"
MOVE = {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "m"}


def _observe(step: str, name: str, *texts: str, **more: Any) -> dict[str, Any]:
    batch = {"entityName": name, "contents": list(texts), **more}
    return {"id": step, "tool": "add_observations", "args": {"observations": [batch]}}


PLANTED: dict[str, list[dict[str, Any]]] = {
    "a new entity whose observation links the note moved": [
        {"id": "e", "tool": "create_entities",
         "args": {"entities": [{"name": "Bob", "entityType": "person", "observations": [f"Leads {LINK}", "Tall"]}]}},
    ],
    "an observation linking it added to an entity there": [_observe("o", "Ann", f"Met at {LINK}")],
    "its source links it, with a tag and a category": [
        _observe("o", "ann", "Works on the launch", source=LINK, tags=["work"], category="job"),
    ],
    "an entity made, then observed, then its own note moved": [
        {"id": "e", "tool": "create_entities", "args": {"entities": [{"name": "Zed", "entityType": "thing"}]}},
        _observe("o", "Zed", f"About {LINK}", "[[Home]] too"),
        {"id": "mv2", "tool": "move_note", "args": {"path": "Home", "new_path": "Moved/"}, "captureAs": "m2"},
    ],
    "two entities in one call, one observation a duplicate": [
        {"id": "o", "tool": "add_observations", "args": {"observations": [
            {"entityName": "Ann", "contents": ["Likes tea", f"Saw {LINK}"]},
            {"entityName": "Ann", "contents": [f"Saw {LINK}"]},
        ]}},
    ],
    "a relation to the note moved, by its bare name": [
        {"id": "r", "tool": "create_relations",
         "args": {"relations": [{"from": "Ann", "to": "Target", "relationType": "attended"}]}},
    ],
    "a relation to an entity the plan makes, whose note then moves": [
        {"id": "e", "tool": "create_entities", "args": {"entities": [{"name": "Zed", "entityType": "thing"}]}},
        {"id": "r", "tool": "create_relations", "args": {"relations": [
            {"from": "Ann", "to": "Zed", "relationType": "knows"},
            {"from": "Zed", "to": "Hub/Target", "relationType": "about"},
        ]}},
        {"id": "mv2", "tool": "move_note", "args": {"path": "Memory/Zed", "new_path": "People/"}, "captureAs": "m2"},
    ],
    "a relation to a note the plan makes, then that note moved": [
        {"id": "n", "tool": "create_note", "args": {"path": "Talks/Launch talk", "content": "# Talk\n"}},
        {"id": "r", "tool": "create_relations",
         "args": {"relations": [{"from": "Ann", "to": "Launch talk", "relationType": "gave"}]}},
        {"id": "mv2", "tool": "move_note", "args": {"path": "Talks/Launch talk", "new_path": "Moved/"},
         "captureAs": "m2"},
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", list(PLANTED))
async def test_a_memory_steps_links_are_foreseen_by_a_later_move(make_vault: Callable[..., Path], name: str) -> None:
    plan = {"goal": name, "steps": [*PLANTED[name], MOVE, BIN]}
    async with started(make_vault({**VAULT, "Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        await _check(vg, plan)
