"""A plan's create_relations step with one relation from an entity named as written and one from
a name an earlier step's result gives, over HTTP with the SDK client: validate_plan lists the
note the written relation changes, and execute_plan's confirmation names it, says a run-time
step may change more, and the confirmed run changes no note of the vault it did not list.
Before, the step was `unresolved` with files_modified [] while the run changed
`Memory/Steph Ango.md` (found by a user pass)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

STEPH = "---\nname: Steph Ango\nentityType: person\n---\n# Steph Ango\n\n## Observations\n- Likes tea\n\n## Relations\n"
VAULT = {"Memory/Steph Ango.md": STEPH, "Scratch.md": "# Scratch\n"}
PLAN: dict[str, Any] = {
    "goal": "record Obsidian and who made it",
    "steps": [
        {"id": "e", "tool": "create_entities", "args": {"entities": [{"name": "Obsidian", "entityType": "app"}]}},
        {
            "id": "r",
            "tool": "create_relations",
            "args": {
                "relations": [
                    {"from": "Steph Ango", "to": "Obsidian", "relationType": "made"},
                    {"from": "$steps.e.created[0].name", "to": "Steph Ango", "relationType": "made by"},
                ]
            },
            "dependsOn": ["e"],
        },
        {"id": "bin", "tool": "delete_note", "args": {"path": "Scratch.md", "permanent": True}},  # asks a human
    ],
}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


async def test_a_relation_named_as_written_is_in_the_confirmation(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=PLAN)
            assert checked["valid"], checked["problems"]
            assert checked["effects"]["files_modified"] == ["Memory/Steph Ango.md"], checked["effects"]
            assert checked["effects"]["unresolved"] == ["r"]
            asked = await error(c, "execute_plan", plan=PLAN)
            assert asked["code"] == "elicit_required", asked
            files = set(asked["details"]["files"])
            assert {"Memory/Steph Ango.md", "Memory/Obsidian.md", "Scratch.md"} == files, files
            assert "some steps change files known only at run time" in asked["details"]["preview"]
            before = {k: v for k, v in _files(h.root).items() if not k.startswith(".")}
            token = await h.token_for("execute_plan", plan=PLAN)
            run = await ok(c, "execute_plan", plan=PLAN, elicit_token=token)
            assert run["status"] == "done", run
            after = {k: v for k, v in _files(h.root).items() if not k.startswith(".")}
            changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
            assert changed == files, sorted(changed)
            assert b"Obsidian" in after["Memory/Steph Ango.md"]  # the relation as written
