"""A dry-run vault's preview of a memory call that needs an entity not there answers the call's own
`note_not_found` (a relation's target found nowhere: its `validation_error`), not a preview of a
change (s76: add_observations, delete_observations, create_relations and delete_relations of a name
that is no entity, a relation to a name that is neither an entity nor a note, and delete_entities
with missing_ok false, previewed `dry_run: true` creating or changing Memory/<name>.md while the real
call refuses). The tools' `static_check` (`service.tools.memory.prechecks`) finds the entity as
the call does; an entity there is still previewed. Through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.sessions.test_plan_memory_entities_found import ANN, _needing


async def test_a_dry_run_preview_refuses_a_missing_entity_as_the_call_does(make_vault: Callable[..., Path]) -> None:
    files = {"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN}
    real = make_vault(files)
    dry = make_vault(files)
    to_nobody = {"relations": [{"from": "Ann", "to": "Nobody", "relationType": "knows"}]}  # a target nowhere
    calls = [*_needing("Nobody"), ("create_relations", to_nobody)]
    async with started(real) as vg:
        direct = [(await vg.call(tool, **args)).structured for tool, args in calls]
    async with started(dry, vaults=[{"id": "main", "path": dry, "write_mode": "dry-run"}]) as vg:
        start = vg.snapshot()
        for (tool, args), answer in zip(calls, direct, strict=True):
            out = await vg.call(tool, **args)
            assert out.is_error and out.structured == answer, (tool, out.structured, answer)
        for tool, args in _needing("Ann")[:3]:  # an entity there: previewed, nothing changed
            previewed = await vg.ok(tool, **args)
            assert previewed["dry_run"] is True and previewed["effects"]["files_modified"] == ["Memory/Ann.md"]
        assert vg.snapshot() == start
