"""A plan's preview foresees what delete_observations, delete_relations, delete_entities,
supersede_observation and merge_observations write into entity notes (A2 s77 item 5, left): before,
any of them made the entity note's text unforeseen, so a later move's entry said `estimate` and
counted the links as the disk held them (an observation the plan deleted still counted; one a
merge brought in missed). The check now composes the note's text with the tools' own changes
(`service.tools.memory.planned`: `drop_observations` + `mend_history`, `drop_relations` to the link
the check found for each target, `superseded_in`, `carried` over the merged entity's note as the
plan's earlier steps leave it).

Two oracles, through the dispatch chain: the move's entry is the move's own result, nothing is an
estimate, the confirmation's files are the files changed and undo restores every byte
(`test_plan_preview_oracle._check`); and the text the check composed for each entity note is the
text the run then wrote, but for new block ids and times (a plan whose only move is of a note no
entity links, so the entity notes end as the check read them)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.plans import check
from service.tools.sessions import plan_rewrites
from tests.conftest import Harness, started
from tests.tools.sessions.test_plan_memory_texts_foreseen import _observe
from tests.tools.sessions.test_plan_preview_oracle import BIN, LINK, VAULT, _check

ANN = (
    "---\nname: Ann\nentityType: person\n---\n# Ann\n\nFree text [[Home]] stays.\n\n## Observations\n"
    f"- Likes tea ^m-1\n- Saw {LINK} ^m-2\n- Lives in Oslo ^m-3\n\n## Relations\n- visited [[Hub/Target]]\n"
)
BOB = (
    "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n"
    f"- Knows {LINK} ^b-1\n- Likes tea ^b-2\n\n## Relations\n- knows [[Memory/Ann]]\n"
)
MEMORY = {**VAULT, "Memory/Ann.md": ANN, "Memory/Bob.md": BOB, "Solo.md": "# Solo\n"}
MOVE = {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "m"}
SOLO = {"id": "mv", "tool": "move_note", "args": {"path": "Solo", "new_path": "Moved/"}}


def _forget(step: str, name: str, *texts: str) -> dict[str, Any]:
    return {
        "id": step,
        "tool": "delete_observations",
        "args": {"deletions": [{"entityName": name, "observations": list(texts)}]},
    }


def _unrelate(step: str, source: str, target: str, kind: str) -> dict[str, Any]:
    return {
        "id": step,
        "tool": "delete_relations",
        "args": {"relations": [{"from": source, "to": target, "relationType": kind}]},
    }


def _supersede(step: str, name: str, old: str, new: str) -> dict[str, Any]:
    return {
        "id": step,
        "tool": "supersede_observation",
        "args": {"entityName": name, "observation": old, "superseded_by": new, "valid_until": "2026-12"},
    }


MERGE = {"id": "g", "tool": "merge_observations", "args": {"entityName": "Ann", "mergedName": "Bob"}}
PLANTED: dict[str, list[dict[str, Any]]] = {
    "an observation linking it deleted": [_forget("d", "Ann", f"Saw {LINK}")],
    "one deleted by block id, another added then deleted": [
        _forget("d", "ann", "^m-2"), _observe("o", "Ann", f"Met at {LINK}"), _forget("d2", "Ann", f"Met at {LINK}"),
    ],
    "a relation to it deleted, as written in the note": [_unrelate("u", "Ann", "Hub/Target", "visited")],
    "a relation to it deleted by the note's bare name": [_unrelate("u", "Ann", "Target", "visited")],
    "a relation made, then deleted": [
        {"id": "r", "tool": "create_relations",
         "args": {"relations": [{"from": "Bob", "to": "Target", "relationType": "owns"}]}},
        _unrelate("u", "Bob", "Target", "owns"),
    ],
    "a relation to a missing target deleted (compared as written)": [_unrelate("u", "Ann", "Nowhere", "visited")],
    "a fact superseded by a new one linking it": [
        _observe("o", "Ann", f"Lives near {LINK}"), _supersede("s", "Ann", "Lives in Oslo", f"Lives near {LINK}"),
    ],
    "a superseding fact deleted: the older one current again": [
        _observe("o", "Ann", f"Lives near {LINK}"), _supersede("s", "Ann", "^m-3", f"Lives near {LINK}"),
        _forget("d", "Ann", f"Lives near {LINK}"),
    ],
    "an entity linking it deleted": [{"id": "x", "tool": "delete_entities", "args": {"entityNames": ["bob"]}}],
    "an entity merged into another, then deleted": [
        MERGE, {"id": "x", "tool": "delete_entities", "args": {"entityNames": ["Bob"]}},
    ],
    "an entity observed, merged, its copy then deleted": [
        _observe("o", "Bob", f"Later {LINK}"), MERGE, _forget("d", "Ann", f"Knows {LINK}"),
    ],
    "an entity made, observed, superseded, merged, deleted": [
        {"id": "e", "tool": "create_entities",
         "args": {"entities": [{"name": "Zed", "entityType": "thing", "observations": [f"Near {LINK}", "Old"]}]}},
        _observe("o", "Zed", "New"), _supersede("s", "Zed", "Old", "New"),
        {"id": "g", "tool": "merge_observations", "args": {"entityName": "Ann", "mergedName": "Zed"}},
        {"id": "x", "tool": "delete_entities", "args": {"entityNames": ["Zed"]}},
        _forget("d", "Ann", "Old"),
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", list(PLANTED))
async def test_a_memory_deletion_or_merge_is_foreseen_by_a_later_move(
    make_vault: Callable[..., Path], name: str
) -> None:
    plan = {"goal": name, "steps": [*PLANTED[name], MOVE, BIN]}
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        await _check(vg, plan)


_IDS = re.compile(r"\^[A-Za-z0-9-]+|\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)?")


def _bare(text: str | None) -> str | None:
    return None if text is None else _IDS.sub("<id>", text)


def composing(monkeypatch: pytest.MonkeyPatch) -> dict[str, str | None]:
    """The texts the plan check composes from now on (every note foreseen), by path."""
    composed: dict[str, str | None] = {}
    real = plan_rewrites.planned_reads

    def reads(*args: Any, **kwargs: Any) -> tuple[dict[str, str | None], set[str]]:
        read, unforeseen = real(*args, **kwargs)
        assert unforeseen == set(), unforeseen
        composed.update(read)
        return read, unforeseen

    monkeypatch.setattr(plan_rewrites, "planned_reads", reads)
    return composed


async def checked_and_run(vg: Harness, plan: dict[str, Any]) -> None:
    """validate_plan finds `plan` valid, then execute_plan (confirmed) runs it to the end."""
    checked = await vg.ok("validate_plan", plan=plan)
    assert checked["valid"], checked["problems"]
    run = await vg.confirmed("execute_plan", plan=plan)
    assert run["status"] == "done", run


def written_as_composed(vg: Harness, composed: dict[str, str | None]) -> None:
    """Each composed text is the file the run left (None: no file), but for block ids and times."""
    for rel, text in composed.items():
        there = vg.root / rel
        assert _bare(text) == _bare(there.read_text(encoding="utf-8") if there.exists() else None), rel


@pytest.mark.parametrize("name", list(PLANTED))
async def test_the_text_the_check_composed_is_what_the_run_wrote(
    make_vault: Callable[..., Path], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    composed = composing(monkeypatch)
    plan = {"goal": name, "steps": [*PLANTED[name], SOLO]}
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        await checked_and_run(vg, plan)
        memory = {rel: t for rel, t in composed.items() if rel.startswith("Memory/")}
        assert memory, composed
        written_as_composed(vg, memory)


ORDERED: dict[str, tuple[list[dict[str, Any]], str, str]] = {
    "a merge after an observation of the merged entity": (
        [_observe("o", "Bob", "Later fact"), MERGE], "g", "o",
    ),
    "an entity's deletion after the merge that reads it": (
        [MERGE, {"id": "x", "tool": "delete_entities", "args": {"entityNames": ["Bob"]}}], "x", "g",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(ORDERED))
async def test_a_merge_keeps_its_order_with_steps_changing_the_merged_note(
    make_vault: Callable[..., Path], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """merge_observations reads the merged entity's note, but the check counted only the kept one
    among the files it touches: a step changing the merged note (an observation of it, the
    delete_entities the plane's duplicate_entity plan runs after the merge) could run beside it
    (`schedule.run_after`), so the merge read the note before or after that step as it happened
    (found by the text oracle above: Bob's new observation missing from Ann's note once in a run)."""
    steps, later, earlier = ORDERED[name]
    graphs: list[dict[str, set[str]]] = []
    real = check.run_after

    def after(*args: Any) -> dict[str, set[str]]:
        graphs.append(real(*args))
        return graphs[-1]

    monkeypatch.setattr(check, "run_after", after)
    plan = {"goal": name, "steps": [*steps, BIN]}
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert earlier in graphs[-1][later], graphs[-1]
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        ann = (vg.root / "Memory/Ann.md").read_text(encoding="utf-8")
        assert f"Knows {LINK}" in ann and ("Later fact" in ann) == (earlier == "o"), ann
