"""A plan step naming an entity an earlier step made under another spelling (R6 s76 #2): the same
calls made one by one succeed (a memory tool finds an entity by its name in any letter case or
Unicode spelling), but validate_plan answered `note_not_found` for the later step and execute_plan
refused the plan: the check looked for the note of `zed` at `Memory/zed.md`, not at the
`Memory/Zed.md` the earlier step makes. Each pair is made three ways — one by one, validate_plan,
execute_plan — and all three must agree: the plan is valid, its run is done and leaves the vault
as the calls one by one do, and its preview is what the run changes (the preview oracle: the
confirmation's files are the files changed, undo_last_plan puts back every byte)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.tools.sessions.test_plan_preview_oracle import BIN, VAULT, _check

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-1\n\n## Relations\n"
FILES = {**VAULT, "Memory/Ann.md": ANN, "People/Carl.md": "# Carl\n"}


def _made(name: str) -> tuple[str, dict[str, Any]]:
    return "create_entities", {"entities": [{"name": name, "entityType": "person"}]}


def _observe(name: str, text: str) -> tuple[str, dict[str, Any]]:
    return "add_observations", {"observations": [{"entityName": name, "contents": [text]}]}


def _relate(source: str, target: str) -> tuple[str, dict[str, Any]]:
    return "create_relations", {"relations": [{"from": source, "to": target, "relationType": "knows"}]}


PAIRS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "made, then observed in lower case": [_made("Zed"), _observe("zed", "Plays chess")],
    "stored, then observed in lower case": [
        ("memory_store", {"key": "Kay", "value": "Lives in Oslo", "source": "a chat"}),
        _observe("kay", "Plays chess"),
    ],
    "made in NFC, then observed in NFD": [_made("Zoë"), _observe("Zoe\u0308", "Plays chess")],
    "made, then related from in lower case": [_made("Yan"), _relate("yan", "Carl")],
    "a note made, then related to by its name in lower case": [
        ("create_note", {"path": "Q/New One.md", "content": "x"}),
        _relate("Ann", "new one"),
    ],
    "made, then related to in lower case": [_made("Xi"), _relate("Ann", "xi")],
}

_CHURN = re.compile(r"^(created|updated): .*\n|\[recorded:: [^\]]*\]|\[by:: [^\]]*\]| \^m-[0-9a-z]+", re.M)


def _memory(vg: Harness) -> dict[str, str]:
    """The vault's memory notes and Q folder, without what differs from one write to the next."""
    out = {}
    for path in sorted([*(vg.root / "Memory").glob("*.md"), *(vg.root / "Q").glob("*.md")]):
        out[path.relative_to(vg.root).as_posix()] = _CHURN.sub("", path.read_text(encoding="utf-8"))
    return out


def _plan(name: str, *more: dict[str, Any]) -> dict[str, Any]:
    steps = [{"id": f"s{i}", "tool": tool, "args": args} for i, (tool, args) in enumerate(PAIRS[name])]
    return {"goal": name, "steps": [*steps, *more]}


@pytest.mark.parametrize("name", list(PAIRS))
async def test_a_plan_finds_an_entity_made_earlier_as_its_calls_do(make_vault: Callable[..., Path], name: str) -> None:
    async with started(make_vault(FILES, name="direct")) as vg:
        await vg.indexed()
        for tool, args in PAIRS[name]:
            await vg.ok(tool, **args)
        direct = _memory(vg)
    async with started(make_vault(FILES, name="planned")) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=_plan(name))
        assert checked["valid"] and checked["problems"] == [], checked["problems"]
        run = await vg.ok("execute_plan", plan=_plan(name))
        assert run["status"] == "done", run
        assert _memory(vg) == direct
    async with started(make_vault(FILES, name="oracle")) as vg:
        await vg.indexed()
        await _check(vg, _plan(name, BIN))
