"""An oracle for a plan's preview: for random plans (fixed seeds) mixing the steps whose effect
on a note's text the check foresees — creates, patches, property edits, an applied template (into
a note, or making one), a periodic note made from its template or appended to, then a move of the
note they link to, and a move of a note they made — validate_plan's effects and execute_plan's
confirmation equal what the confirmed run changed on disk: the confirmation's files are exactly
the files changed, each move's entry (`links_rewritten`, `files_changed`, `rewritten_in`) is the
move's own result, nothing is flagged an estimate; undo_last_plan restores every byte.

Before s75 an applied template and a periodic note made from its template were estimates: the
move's counts missed the links the template put in the note, and the entry said `estimate`."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

LINK = "[[Hub/Target]]"
VAULT = {
    "Hub/Target.md": "# Target\n",
    "Home.md": f"see {LINK}\n",
    "A.md": "# A\n\n## Links\n\nnone yet ^b1\n\n## End\n",
    "P.md": f'---\nup: "{LINK}"\n---\n# P\n',
    "Scratch.md": "# Scratch\n",
    "Templates/Linked.md": f"about {LINK}\n",
    "Templates/Up.md": f'---\nup: "{LINK}"\ntags: [t]\n---\n# {{{{title}}}}\n\n## S\n',
    "Templates/Day.md": f"# {{{{date}}}}\n\n## Log\n\nsee {LINK}\n",
    "Daily/2026-12-01.md": "# day\n\n## Log\n",
    ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "format": "YYYY-MM-DD", "template": "Day"}),
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
}
BIN = {"id": "bin", "tool": "delete_note", "args": {"path": "Scratch.md", "permanent": True}}  # asks a human


def _pool(r: random.Random, i: int) -> dict[str, Any]:
    """One random step (id `s<i>`) of the kinds the check foresees."""
    link = r.choice([LINK, "[[Home]]", "no link"])
    day = f"2026-12-0{r.randint(1, 3)}"
    steps: list[dict[str, Any]] = [
        {"tool": "create_note", "args": {"path": f"New/N{i}", "content": f"# N{i}\n\n## S\n\n{link}\n"}},
        {"tool": "patch_note", "args": {"path": "A", "heading": ["Links"], "content": link}},
        {"tool": "patch_note", "args": {"path": "A", "block": "b1", "content": link}},
        {"tool": "set_properties", "args": {"path": r.choice(["A", "P"]), "properties": {"see": link}}},
        {"tool": "delete_property", "args": {"path": "P", "key": "up"}},
        {"tool": "apply_template", "args": {"template": r.choice(["Linked", "Up"]), "path": r.choice(["A", "P"])}},
        {"tool": "apply_template", "args": {"template": r.choice(["Linked", "Up"]), "path": f"Made/T{i}"}},
        {"tool": "apply_template", "args": {"template": "Linked", "path": "A", "heading": ["End"]}},
        {"tool": "append_to_periodic_note", "args": {"date": day, "content": link}},
        {"tool": "append_to_periodic_note", "args": {"date": day, "content": link, "heading": ["Log"]}},
        {"tool": "create_periodic_note", "args": {"date": day}},
    ]
    return {"id": f"s{i}", "onError": "continue", **r.choice(steps)}


def _plan(seed: int) -> dict[str, Any]:
    r = random.Random(seed)
    steps = [_pool(r, i) for i in range(r.randint(2, 5))]
    move = {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "m"}
    steps.insert(r.randint(1, len(steps)), move)
    made = [s for s in steps if s["tool"] in ("create_note", "apply_template") and "/" in s["args"]["path"]]
    if made and r.random() < 0.5:  # a note the plan made moves too: the links to it are rewritten
        mover = r.choice(made)
        steps.append(
            {
                "id": "mv2",
                "tool": "move_note",
                "args": {"path": mover["args"]["path"], "new_path": "Moved/"},
                "captureAs": "m2",
            }
        )
    return {"goal": f"oracle {seed}", "steps": [*steps, BIN]}


async def _check(vg: Harness, plan: dict[str, Any]) -> None:
    start = vg.snapshot()
    checked = await vg.ok("validate_plan", plan=plan)
    assert checked["valid"], checked["problems"]
    estimates = [m for m in checked["effects"]["files_moved"] if m.get("estimate")]
    assert estimates == [], estimates
    asked = (await vg.err("execute_plan", "elicit_required", plan=plan))["details"]
    assert "estimated" not in asked["preview"] and "run time" not in asked["preview"], asked["preview"]
    before = vg.snapshot()
    run = await vg.confirmed("execute_plan", plan=plan)
    assert run["status"] == "done", run
    assert asked["files"] == sorted(vg.changed_since(before)), (asked["files"], sorted(vg.changed_since(before)))
    results = {s["id"]: s.get("result") for s in run["steps"]}
    for moved in checked["effects"]["files_moved"]:
        step = "mv" if moved["from"] == "Hub/Target.md" else "mv2"
        result = results[step]
        assert result is not None, run
        assert (moved["rewritten_in"], moved["links_rewritten"], moved["files_changed"]) == (
            sorted(i["path"] for i in result["items"]),
            result["links_rewritten"],
            result["notes_rewritten"],
        ), (step, moved, result)
    await vg.confirmed("undo_last_plan")
    assert vg.snapshot() == start


@pytest.mark.parametrize("seed", range(16))
async def test_a_random_plans_preview_is_what_its_run_changes(make_vault: Callable[..., Path], seed: int) -> None:
    plan = _plan(seed)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await _check(vg, plan)


PLANTED: dict[str, list[dict[str, Any]]] = {
    "a daily note made from its template, then the target moved": [
        {"id": "d", "tool": "create_periodic_note", "args": {"date": "2026-12-05"}},
    ],
    "a daily note made from its template and appended under its heading": [
        {"id": "d", "tool": "append_to_periodic_note",
         "args": {"date": "2026-12-05", "content": LINK, "heading": ["Log"]}},
    ],
    "a daily note there already, create_periodic_note leaves it": [
        {"id": "d", "tool": "create_periodic_note", "args": {"date": "2026-12-01"}},
    ],
    "a template made into a note, then that note moved": [
        {"id": "t", "tool": "apply_template", "args": {"template": "Up", "path": "Made/T"}},
        {"id": "p", "tool": "patch_note",
         "args": {"path": "$steps.t.path", "heading": ["T", "S"], "content": "[[Home]]"}},
        {"id": "mv2", "tool": "move_note", "args": {"path": "$steps.t.path", "new_path": "Moved/"}, "captureAs": "m2"},
    ],
    "a daily note made, a template applied into it by its result, then appended": [
        {"id": "d", "tool": "create_periodic_note", "args": {"date": "2026-12-05"}},
        {"id": "t", "tool": "apply_template",
         "args": {"template": "Up", "path": "$steps.d.path", "heading": ["2026-12-05", "Log"]}},
        {"id": "a", "tool": "append_to_periodic_note", "args": {"date": "2026-12-05", "content": f"x {LINK}"}},
    ],
}  # fmt: skip


async def test_create_periodic_note_of_a_note_there_is_still_checked_against_the_path_acl(
    make_vault: Callable[..., Path],
) -> None:
    """The call asks to write the note even when it is there already (and then changes nothing):
    a path the ACL denies is its refusal, reported up front, never a change listed."""
    acl = {"prefix_rules": [{"path": "Daily", "write": "deny"}]}
    plan = {"goal": "today", "steps": [{"id": "d", "tool": "create_periodic_note", "args": {"date": "2026-12-01"}}]}
    async with started(make_vault(VAULT), acl=acl) as vg:
        await vg.err("create_periodic_note", "acl_denied", date="2026-12-01")
        checked = await vg.ok("validate_plan", plan=plan)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("d", "acl_denied")], checked
        assert checked["effects"]["files_modified"] == [], checked["effects"]


@pytest.mark.parametrize("name", list(PLANTED))
async def test_a_planted_plans_preview_is_what_its_run_changes(make_vault: Callable[..., Path], name: str) -> None:
    move = {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "m"}
    plan = {"goal": name, "steps": [*PLANTED[name], move, BIN]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await _check(vg, plan)
