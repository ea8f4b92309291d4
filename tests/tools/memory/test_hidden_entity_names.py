"""A memory entity whose note the path ACL hides is no entity of that name for the caller (T2 s61
#6): its name (the `name` property of a note whose file name differs, as after a person renamed
it) answers as an absent name does — `missing` in open_nodes, `note_not_found` with no path from the
tools that change an entity, and create_entities / memory_store make the caller's own note
`Memory/<name>.md` — never acl_denied naming the hidden note."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

BOSS = '---\nname: "Chief"\nentityType: "person"\n---\n# Chief\n\n## Observations\n- Chief is under investigation\n'
ACL = {"prefix_rules": [{"path": "Memory/Boss.md", "read": "deny", "write": "deny"}]}


async def test_a_hidden_entity_name_answers_as_an_absent_one(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Boss.md": BOSS}), acl=ACL) as vg:
        assert (await vg.ok("open_nodes", names=["Chief"]))["missing"] == ["Chief"]
        for name in ("Chief", "Nobody"):  # the same answer for the hidden name and an absent one
            for tool, args in (
                ("add_observations", {"observations": [{"entityName": name, "contents": ["x"]}]}),
                ("delete_observations", {"deletions": [{"entityName": name, "observations": ["x"]}]}),
                ("create_relations", {"relations": [{"from": name, "to": "Other", "relationType": "knows"}]}),
            ):
                result = await vg.call(tool, **args)
                text = json.dumps(result.structured)
                assert result.is_error and "Boss" not in text and "acl_denied" not in text, (tool, text)
        for name in ("Chief", "Nobody"):  # a plan's check: the caller's own note, refused as the call is
            step = {"id": "a", "tool": "add_observations"}
            step["args"] = {"observations": [{"entityName": name, "contents": ["x"]}]}
            checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]})
            assert [(p["code"], f"Memory/{name}.md" in p["message"]) for p in checked["problems"]] == [
                ("note_not_found", True)
            ], checked
            assert checked["effects"]["files_created"] == [] and "Boss" not in json.dumps(checked), checked
        before = vg.read("Memory/Boss.md")
        made = await vg.ok("create_entities", entities=[{"name": "Chief", "entityType": "person"}])
        assert [e["path"] for e in made["created"]] == ["Memory/Chief.md"]
        stored = await vg.ok("memory_store", key="Chief", value="Likes tea")
        assert stored["path"] == "Memory/Chief.md"
        assert vg.read("Memory/Boss.md") == before
        opened = await vg.ok("open_nodes", names=["Chief"])
        assert [e["path"] for e in opened["entities"]] == ["Memory/Chief.md"]


async def test_a_dry_run_vault_previews_the_callers_own_note(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Memory/Boss.md": BOSS})
    vault = {"id": "main", "path": root, "write_mode": "dry-run", "acl": ACL}
    async with started(root, vaults=[vault]) as vg:
        answers = []
        for name in ("Chief", "Nobody"):  # refused as the real call refuses both (s76: it previewed a change)
            out = await vg.err(
                "add_observations", "note_not_found", observations=[{"entityName": name, "contents": ["x"]}]
            )
            assert "Boss" not in json.dumps(out), out
            answers.append(json.dumps(out).replace(name, "NAME"))
        assert answers[0] == answers[1]


async def test_a_name_whose_own_note_the_acl_closes_is_missing_and_the_others_answered(
    make_vault: Callable[..., Path],
) -> None:
    """open_nodes of a name whose computed note (Memory/Boss.md) the ACL closes refused the whole
    call (acl_denied), the caller's other names unanswered (U10 s94): it is `missing`, as an absent
    one, and the answer names no hidden note."""
    files = {"Memory/Boss.md": BOSS, "Memory/Ann.md": "# Ann\n\n## Observations\n- Likes tea\n"}
    async with started(make_vault(files), acl=ACL) as vg:
        opened = await vg.ok("open_nodes", names=["Ann", "Boss", "Nobody"])
        assert [e["path"] for e in opened["entities"]] == ["Memory/Ann.md"]
        assert opened["missing"] == ["Boss", "Nobody"]
        assert "investigation" not in json.dumps(opened)
