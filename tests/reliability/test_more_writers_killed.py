"""kill -9 in, or right after, the write of one file by writers test_newest_writers_killed.py does
not cover, then a new server on the same data folder (tests/reliability/writes_killed.py's `call`
scenario: the call runs through the dispatch chain and the process SIGKILLs itself):

- rename_tag and replace_text (journaled, all or nothing over several notes) killed in a note's
  write or right after it: the start rolls the cut call back, every byte as before, and the call
  then runs whole;
- process_capture (into an entity, a note or a new note) and promote_experience write the vault
  first and their record outside it after: killed in the write, the vault is as it was and the
  capture (experience) still pending; killed right after it, the call done again files the text
  once (no second copy) and records it as filed (promoted), the inbox item marked;
- set_task_status, append_to_periodic_note (a note made from its template) and add_bookmark, one
  file each: killed in the write, the file is as it was (or absent); right after it, whole, with
  no temp file left;
- rewrite_links (journaled), apply_template, supersede_observation and merge_observations: the
  vault as it was, or (one file, killed after it) as the call leaves it; the call done again
  then leaves the vault as an uninterrupted call leaves a copy of it.
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.memory.model import parse
from tests.conftest import Harness, snapshot, started
from tests.killed import run_until_killed
from tests.reliability.test_newest_writers_killed import swept

MODULE = "tests.reliability.writes_killed"

TAG_VAULT: dict[str, str] = {
    "Home.md": "# Home\n",
    "A.md": "---\ntags: [proj, other]\n---\n# A\n\nabout #proj here\n",
    "B.md": "# B\n\n- [ ] a task #proj/sub\n",
    "C.md": "# C\n\nno tag, only proj in text\n",
}
RENAME_TAG = {"old": "proj", "new": "work", "dry_run": False}
REPLACE = {"find": "proj", "replace": "PROJ", "dry_run": False}

PERSON = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- met at the fair ^a1\n"
MEMORY_VAULT: dict[str, str] = {"Home.md": "# Home\n", "Notes/log.md": "# Log\n\n## Filed\n", "Memory/Ann.md": PERSON}

TASK_NOTE = "# Tasks\n\n- [ ] write the report\n- [ ] call Bob\n"
PERIODIC_VAULT: dict[str, str] = {
    "Home.md": "# Home\n",
    "Templates/Daily.md": "# {{date}}\n\n## Log\n",
    ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "template": "Templates/Daily"}),
    "Tasks.md": TASK_NOTE,
}


async def killed_in(root: Path, rel: str, tool: str, args: dict[str, Any]) -> None:
    call = json.dumps({"tool": tool, "args": args})
    assert await run_until_killed(MODULE, str(root), "call", rel, call) == -signal.SIGKILL


def temps(root: Path) -> list[str]:
    return [k for k in snapshot(root) if k.endswith(".vgtmp")]


async def rolled_back(vg: Harness) -> None:
    rows: list[Any] = await vg.app.state.fetchall("SELECT kind, status FROM plan_runs ORDER BY started_at")
    assert [tuple(r) for r in rows] == [("bulk", "interrupted"), ("undo", "done")], rows


@pytest.mark.parametrize("rel", ["A.md", "B.md", "after:A.md", "after:B.md"])
async def test_a_rename_tag_killed_in_a_write_is_rolled_back_whole(make_vault: Callable[..., Path], rel: str) -> None:
    root = make_vault(TAG_VAULT)
    before = snapshot(root)
    await killed_in(root, rel, "rename_tag", RENAME_TAG)
    if rel.startswith("after:"):
        assert (root / rel.removeprefix("after:")).read_bytes() != before[rel.removeprefix("after:")]
    async with started(root) as vg:
        await rolled_back(vg)
        assert swept(root, rel, together=("A.md", "B.md")) == before  # its rewrites, written at once
        await vg.indexed()
        await vg.confirmed("rename_tag", **RENAME_TAG)
        assert "tags: [work, other]" in vg.read("A.md") and "#work here" in vg.read("A.md")
        assert "#work/sub" in vg.read("B.md") and vg.read("C.md") == TAG_VAULT["C.md"]


@pytest.mark.parametrize("rel", ["B.md", "C.md", "after:B.md"])
async def test_a_replace_text_killed_in_a_write_is_rolled_back_whole(make_vault: Callable[..., Path], rel: str) -> None:
    root = make_vault(TAG_VAULT)
    before = snapshot(root)
    await killed_in(root, rel, "replace_text", REPLACE)
    async with started(root) as vg:
        await rolled_back(vg)
        assert swept(root, rel, together=("A.md", "B.md", "C.md")) == before  # its rewrites, written at once
        await vg.indexed()
        await vg.confirmed("replace_text", **REPLACE)
        assert "#PROJ/sub" in vg.read("B.md") and "only PROJ in text" in vg.read("C.md")


def observations(root: Path) -> list[str]:
    return [o.text for o in parse((root / "Memory/Ann.md").read_text(encoding="utf-8")).observations]


FILINGS: dict[str, dict[str, Any]] = {
    "entity": {"action": "entity", "target": "Ann"},
    "note": {"action": "note", "target": "Notes/log", "heading": "Filed"},
    "new_note": {"action": "new_note", "target": "Notes/cello"},
}
FILED_REL = {"entity": "Memory/Ann.md", "note": "Notes/log.md", "new_note": "Notes/cello.md"}


@pytest.mark.parametrize("after", [False, True])
@pytest.mark.parametrize("action", sorted(FILINGS))
async def test_a_process_capture_killed_at_its_filing_files_the_capture_once(
    make_vault: Callable[..., Path], action: str, after: bool
) -> None:
    root = make_vault(MEMORY_VAULT)
    async with started(root) as vg:
        cap = (await vg.ok("capture", text="plays the cello"))["id"]
    before = snapshot(root)
    rel = FILED_REL[action]
    await killed_in(root, ("after:" if after else "") + rel, "process_capture", {"capture_id": cap, **FILINGS[action]})
    async with started(root) as vg:
        if after:
            assert "plays the cello" in vg.read(rel)
        else:
            assert swept(root, rel) == before  # the vault as it was
        assert not temps(root)
        pending = await vg.ok("list_captures")
        assert [i["id"] for i in pending["items"]] == [cap], pending  # not recorded as filed
        filed = await vg.ok("process_capture", capture_id=cap, **FILINGS[action])  # done again
        assert filed["status"] == "filed" and filed["path"] == rel and filed["inbox_marked"], filed
        assert vg.read(rel).count("plays the cello") == 1, vg.read(rel)
        assert f"^{filed['block_link'].rpartition('^')[2].rstrip(']')}" in vg.read(rel), filed
        assert "[status:: filed]" in vg.read("Memory/Inbox.md")
        assert (await vg.ok("list_captures"))["items"] == []
    if action == "entity":
        assert observations(root) == ["met at the fair", "plays the cello"]


@pytest.mark.parametrize("after", [False, True])
async def test_a_promote_experience_killed_at_its_write_promotes_it_once(
    make_vault: Callable[..., Path], after: bool
) -> None:
    root = make_vault(MEMORY_VAULT)
    async with started(root) as vg:
        made = await vg.ok("record_experience", kind="worked", text="Ann answers mail fast")
        exp = made["experience"]["id"]
    before = snapshot(root)
    rel = "Memory/Ann.md"
    await killed_in(
        root, ("after:" if after else "") + rel, "promote_experience", {"experience_id": exp, "entity": "Ann"}
    )
    async with started(root) as vg:
        if not after:
            assert swept(root, rel) == before
        assert not temps(root)
        listed = await vg.ok("list_experiences", promoted=False)
        assert [e["id"] for e in listed["items"]] == [exp], listed  # not recorded as promoted
        out = await vg.confirmed("promote_experience", experience_id=exp, entity="Ann")
        assert out["path"] == rel, out
        assert [e["promoted_to"] for e in (await vg.ok("list_experiences"))["items"]] == ["Ann"]
        assert observations(root) == ["met at the fair", "Ann answers mail fast"]
        again = await vg.call("promote_experience", experience_id=exp, entity="Ann")
        assert again.is_error and again.structured is not None, again  # promoted once
        assert again.structured["error"]["code"] == "conflict", again.structured


SINGLE: dict[str, tuple[str, str, dict[str, Any]]] = {
    "task": ("Tasks.md", "set_task_status", {"path": "Tasks", "line": 4, "status": "x", "expected_text": "call Bob"}),
    "periodic": ("Daily/2026-01-05.md", "append_to_periodic_note", {"date": "2026-01-05", "content": "- ran\n"}),
    "bookmark": (".obsidian/bookmarks.json", "add_bookmark", {"type": "file", "path": "Home.md"}),
}


@pytest.mark.parametrize("after", [False, True])
@pytest.mark.parametrize("writer", sorted(SINGLE))
async def test_a_one_file_writer_killed_leaves_the_file_as_it_was_or_whole(
    make_vault: Callable[..., Path], writer: str, after: bool
) -> None:
    root = make_vault(PERIODIC_VAULT)
    before = snapshot(root)
    rel, tool, args = SINGLE[writer]
    await killed_in(root, ("after:" if after else "") + rel, tool, args)
    if after:
        assert not temps(root) and (root / rel).read_bytes() != before.get(rel)
    async with started(root) as vg:
        if not after:
            left = swept(root, rel)
            if writer == "periodic":  # a create's new folder is made before the file (left empty, see R8.md)
                assert left.pop("Daily/") == b""
            assert left == before
            await vg.ok(tool, **args)  # the call, done again, succeeds
        if writer == "task":
            assert vg.read(rel).startswith("# Tasks\n\n- [ ] write the report\n- [x] call Bob"), vg.read(rel)
            await vg.settled()
            listed = await vg.ok("list_tasks", note="Tasks", status=["done"])
            assert [t["description"] for t in listed["items"]] == ["call Bob"], listed
        elif writer == "periodic":
            assert vg.read(rel) == "# 2026-01-05\n\n## Log\n- ran\n", vg.read(rel)
            got = await vg.ok("get_periodic_note", date="2026-01-05")
            assert got["exists"], got
        else:
            listed = await vg.ok("list_bookmarks")
            assert [b.get("path") for b in listed["items"]] == ["Home.md"], listed
            assert re.search(r'"path":\s*"Home\.md"', vg.read(rel))


OTHERS_VAULT: dict[str, str] = {
    "Home.md": "# Home\n\nSee [[Old]] and [[Old|the old one]].\n",
    "Notes/a.md": "# a\n\n[[Old#Part]] here\n",
    "Old.md": "# Old\n",
    "New.md": "# New\n",
    "Templates/Meeting.md": "# {{title}}\n\n## Notes\n",
    "Memory/Ann.md": PERSON.replace("- met at the fair ^a1\n", "- lives in Oslo ^a1\n- lives in Bergen ^a2\n"),
    "Memory/Ann Lee.md": "---\nname: Ann Lee\nentityType: person\n---\n# Ann Lee\n\n## Observations\n- sings ^l1\n",
}
OTHERS: dict[str, tuple[list[str], str, dict[str, Any]]] = {  # the files to kill the call in, the call
    "rewrite_links": (
        ["Home.md", "Notes/a.md"],
        "rewrite_links",
        {"old_target": "Old", "new_target": "New", "dry_run": False},
    ),
    "apply_template": (["Notes/meeting.md"], "apply_template", {"template": "Meeting", "path": "Notes/meeting"}),
    "supersede": (
        ["Memory/Ann.md"],
        "supersede_observation",
        {"entityName": "Ann", "observation": "^a1", "superseded_by": "lives in Bergen"},
    ),
    "merge": (["Memory/Ann.md"], "merge_observations", {"entityName": "Ann", "mergedName": "Ann Lee"}),
}
_STAMPS = re.compile(rb"\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)?")


def _vault_only(files: dict[str, bytes]) -> dict[str, bytes]:
    """The vault's own files, times written into entity notes left out (`updated`)."""
    return {k: _STAMPS.sub(b"<t>", v) for k, v in files.items() if not k.startswith(".vaultgate")}


async def _call(vg: Harness, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    first = await vg.call(tool, **args)
    assert first.structured is not None
    if first.is_error and first.structured["error"]["code"] == "elicit_required":
        return await vg.confirmed(tool, **args)
    assert not first.is_error, first.structured
    return first.structured


@pytest.mark.parametrize("after", [False, True])
@pytest.mark.parametrize(("writer", "at"), [(w, i) for w, (rels, _, _) in OTHERS.items() for i in range(len(rels))])
async def test_another_writer_killed_recovers_to_its_run_whole_or_not_at_all(
    make_vault: Callable[..., Path], writer: str, at: int, after: bool
) -> None:
    """Killed in, or right after, a file's write: the next start leaves the vault as it was (the
    call not begun, or rolled back when it is journaled), or, after the one file of a call that
    writes one file, as the call leaves it; the call done again then leaves the vault as an
    uninterrupted call leaves a copy of it."""
    rels, tool, args = OTHERS[writer]
    reference = make_vault(OTHERS_VAULT)
    async with started(reference) as vg:
        await vg.indexed()
        await _call(vg, tool, args)
    whole = _vault_only(snapshot(reference))
    root = make_vault(OTHERS_VAULT)
    before = snapshot(root)
    rel = ("after:" if after else "") + rels[at]
    await killed_in(root, rel, tool, args)
    async with started(root) as vg:
        rows: list[Any] = await vg.app.state.fetchall("SELECT kind, status FROM plan_runs ORDER BY started_at")
        journaled = bool(rows)
        if journaled:
            assert [tuple(r) for r in rows] == [("bulk", "interrupted"), ("undo", "done")], rows
        if journaled or not after:
            assert swept(root, rel, together=tuple(rels) if writer == "rewrite_links" else ()) == before
            await vg.indexed()
            await _call(vg, tool, args)  # done again, whole
        assert not temps(root)
        assert _vault_only(snapshot(root)) == whole
