"""A dry-run vault's preview of every memory tool that changes something agrees with the call
itself: for each, arguments the call refuses (the preview answers the call's own error, code and
reason) and arguments it takes (the preview is a preview), the preview writing nothing. Before
s79 the preview asked only whether the entity was there: it said `dry_run: true` for a supersede of
an observation the entity never held, a merge onto a block id taken (or of one entity with itself,
or of none), an empty observation, fact, capture or experience, a relation of an entity to itself, a
case twin of an entity, a capture not there or with no target, a capture filed into an entity or a
note not there or as a new note over one there, an experience not there, while the call refused
each (`service.tools.memory.previews`, `prechecks.arguments`). The call needing a human's
confirmation (delete_entities, promote_experience) is confirmed, then compared. Through the dispatch
chain, one vault started in each mode in turn."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.memory import TOOLS
from tests.conftest import Harness, started

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Lives in Oslo ^o1\n- Likes tea ^o2\n"
BOB = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- Plays chess ^o1\n"  # Ann's ^o1
CY = "---\nname: Cy\nentityType: person\n---\n# Cy\n\n## Observations\n- Reads books ^c1\n"
FILES = {"Home.md": "# Home\n", "Memory/Ann.md": ANN, "Memory/Bob.md": BOB, "Memory/Cy.md": CY}
NEEDS_A_HUMAN = {"delete_entities", "promote_experience"}

# tool -> (arguments refused, with the error's code and reason), (arguments taken)
CASES: dict[str, tuple[list[tuple[dict[str, Any], str, str | None]], list[dict[str, Any]]]] = {
    "memory_store": (
        [({"key": "Ann", "value": "   "}, "validation_error", "empty")], [{"key": "Ann", "value": "Has a cat"}]
    ),
    "create_entities": (
        [
            ({"entities": [{"name": "ann", "entityType": "t"}]}, "already_exists", None),  # Ann's case twin
            ({"entities": [{"name": "Dee", "entityType": "t", "observations": [" "]}]}, "validation_error", "empty"),
        ],
        [{"entities": [{"name": "Dee", "entityType": "t", "observations": ["x"]}, {"name": "Ann", "entityType": "t"}]}],
    ),
    "add_observations": (
        [
            ({"observations": [{"entityName": "Ann", "contents": ["   "]}]}, "validation_error", "empty"),
            ({"observations": [{"entityName": "Nobody", "contents": ["x"]}]}, "note_not_found", None),
        ],
        [{"observations": [{"entityName": "Ann", "contents": ["Has a dog"]}]}],
    ),
    "delete_observations": (
        [({"deletions": [{"entityName": "Nobody", "observations": ["x"]}]}, "note_not_found", None)],
        [{"deletions": [{"entityName": "Ann", "observations": ["Likes tea", "Never said"]}]}],
    ),
    "supersede_observation": (
        [
            ({"entityName": "Ann", "observation": "Never said", "superseded_by": "Likes tea"}, "note_not_found", None),
            ({"entityName": "Ann", "observation": "Likes tea", "superseded_by": "^o2"}, "validation_error", None),
            ({"entityName": "Nobody", "observation": "x", "superseded_by": "y"}, "note_not_found", None),
        ],
        [{"entityName": "Ann", "observation": "Lives in Oslo", "superseded_by": "Likes tea"}],
    ),
    "merge_observations": (
        [
            ({"entityName": "Ann", "mergedName": "Bob"}, "validation_error", "block_id_taken"),
            ({"entityName": "Ann", "mergedName": "ann"}, "validation_error", "same_entity"),
            ({"entityName": "Ann", "mergedName": "Nobody"}, "note_not_found", None),
        ],
        [{"entityName": "Ann", "mergedName": "Cy"}],
    ),
    "create_relations": (
        [
            ({"relations": [{"from": "Ann", "to": "ann", "relationType": "is"}]}, "validation_error", "self_relation"),
            ({"relations": [{"from": "Ann", "to": "Nowhere", "relationType": "is"}]}, "validation_error",
             "unknown_endpoint"),
        ],
        [{"relations": [{"from": "Ann", "to": "Cy", "relationType": "knows"}]}],
    ),
    "delete_relations": (
        [({"relations": [{"from": "Nobody", "to": "Cy", "relationType": "knows"}]}, "note_not_found", None)],
        [{"relations": [{"from": "Ann", "to": "Cy", "relationType": "knows"}]}],
    ),
    "delete_entities": (
        [({"entityNames": ["Nobody"], "missing_ok": False}, "note_not_found", None)],
        [{"entityNames": ["Cy", "Nobody"]}],
    ),
    "capture": ([({"text": "  \n "}, "validation_error", "empty")], [{"text": "hello"}]),
    "process_capture": (
        [
            ({"capture_id": "cap-0000000000", "action": "entity", "target": "Ann"}, "not_found", None),
            ({"capture_id": "$CAP", "action": "entity"}, "validation_error", "missing"),
            ({"capture_id": "$CAP", "action": "entity", "target": "Nobody"}, "note_not_found", None),
            ({"capture_id": "$CAP", "action": "note", "target": "Nowhere"}, "note_not_found", None),
            ({"capture_id": "$CAP", "action": "new_note", "target": "Home"}, "already_exists", None),
            ({"capture_id": "$DONE", "action": "discard"}, "conflict", None),
        ],
        [
            {"capture_id": "$CAP", "action": "entity", "target": "Ann"},
            {"capture_id": "$CAP", "action": "note", "target": "Home", "heading": "Later"},
        ],
    ),
    "record_experience": (
        [({"kind": "worked", "text": " "}, "validation_error", "empty")], [{"kind": "note", "text": "ok"}]
    ),
    "promote_experience": (
        [
            ({"experience_id": "exp-000000000000", "entity": "Ann"}, "not_found", None),
            ({"experience_id": "$EXP", "entity": "Nobody"}, "note_not_found", None),
        ],
        [{"experience_id": "$EXP", "entity": "Ann"}],
    ),
}  # fmt: skip
ROWS = [
    pytest.param(tool, args, code, reason, id=f"{tool}-refused-{n}")
    for tool, (refused, _taken) in CASES.items()
    for n, (args, code, reason) in enumerate(refused)
] + [
    pytest.param(tool, args, None, None, id=f"{tool}-taken-{n}")
    for tool, (_refused, taken) in CASES.items()
    for n, args in enumerate(taken)
]


def test_every_memory_tool_that_changes_something_is_in_the_table() -> None:
    assert {spec.name for spec in TOOLS if spec.mutating} == set(CASES)


def _outcome(structured: dict[str, Any] | None, is_error: bool) -> tuple[str, str | None]:
    assert structured is not None
    if not is_error:
        return "ok", None
    error = structured["error"]
    return error["code"], error["details"].get("reason")


async def _called(vg: Harness, tool: str, args: dict[str, Any]) -> tuple[str, str | None]:
    out = await vg.call(tool, **args)
    if tool in NEEDS_A_HUMAN and out.is_error and out.structured["error"]["code"] == "elicit_required":
        await vg.confirmed(tool, **args)
        return "ok", None
    return _outcome(out.structured, out.is_error)


@pytest.mark.parametrize(("tool", "given", "code", "reason"), ROWS)
async def test_a_dry_run_preview_answers_what_the_call_then_does(
    make_vault: Callable[..., Path], tool: str, given: dict[str, Any], code: str | None, reason: str | None
) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:  # a capture, one processed, an experience: in the stores, not in the files
        ids = {
            "$CAP": (await vg.ok("capture", text="Ann likes jazz"))["id"],
            "$EXP": (await vg.ok("record_experience", kind="worked", text="Ann likes jazz"))["experience"]["id"],
            "$DONE": (await vg.ok("capture", text="done"))["id"],
        }
        await vg.ok("process_capture", capture_id=ids["$DONE"], action="discard")
    text = json.dumps(given)
    for key, value in ids.items():
        text = text.replace(key, value)
    args = json.loads(text)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        before = vg.snapshot()
        previewed = await vg.call(tool, **args)
        assert vg.snapshot() == before  # the preview wrote nothing
        preview = _outcome(previewed.structured, previewed.is_error)
        if preview == ("ok", None):
            assert previewed.structured is not None and previewed.structured["dry_run"] is True
    async with started(root) as vg:
        called = await _called(vg, tool, args)
    assert preview == called, (preview, called)
    assert called == (("ok", None) if code is None else (code, reason))  # the row is what it says
