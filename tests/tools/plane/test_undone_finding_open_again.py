"""A finding whose plan run is undone is open again, through the dispatch chain (U10 s94): before,
it stayed `applied` until the next run found it again — list_findings left it out, and
apply_finding refused it ("the finding is applied") with a hint to undo what was already undone.
Undoing that undo (a redo) marks it applied again; an auto-applied finding reopens the same way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.plane.test_plane import PLANTED, findings, of_kind, run


async def test_an_undone_finding_is_open_again_and_applies_again(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates"])
        [dup] = of_kind(await findings(vg), "duplicate")
        before = vg.read("Memory/Ann.md")
        applied = await vg.ok("apply_finding", finding_id=dup["id"])
        undone = await vg.confirmed("undo_last_plan")
        assert undone["run_id"] == applied["run"]["run_id"] and vg.read("Memory/Ann.md") == before
        [again] = of_kind(await findings(vg), "duplicate")  # open again, before any new run
        assert again["id"] == dup["id"] and again["status"] == "open"
        redone = await vg.confirmed("undo_last_plan", run_id=undone["undo_run_id"])  # the redo
        assert redone["restored"] == ["Memory/Ann.md"] and vg.read("Memory/Ann.md") != before
        assert of_kind(await findings(vg), "duplicate") == []
        [item] = of_kind(await findings(vg, status="applied"), "duplicate")
        assert item["id"] == dup["id"]
        await vg.confirmed("undo_last_plan", run_id=redone["undo_run_id"])  # undone once more: open
        assert vg.read("Memory/Ann.md") == before
        assert (await vg.ok("apply_finding", finding_id=dup["id"]))["status"] == "applied"
        assert "likes green tea in the morning." not in vg.read("Memory/Ann.md")


async def test_an_auto_applied_finding_undone_by_its_run_id_is_open_again(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED), plane={"auto_apply": ["duplicate"]}) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates"])
        [dup] = of_kind(await findings(vg, status="applied"), "duplicate")
        await vg.confirmed("undo_last_plan", run_id=dup["detail"]["applied_run_id"])
        [again] = of_kind(await findings(vg), "duplicate")
        assert again["id"] == dup["id"] and "likes green tea in the morning." in vg.read("Memory/Ann.md")


async def test_undoing_another_plan_leaves_an_applied_finding_applied(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates"])
        [dup] = of_kind(await findings(vg), "duplicate")
        await vg.ok("apply_finding", finding_id=dup["id"])
        note = {"id": "n", "tool": "create_note", "args": {"path": "Fresh", "content": "x"}}
        plan = {"goal": "a note", "steps": [note]}
        await vg.ok("execute_plan", plan=plan)
        await vg.confirmed("undo_last_plan")  # the newer run: the note made
        assert not (vg.root / "Fresh.md").exists()
        assert [i["id"] for i in of_kind(await findings(vg, status="applied"), "duplicate")] == [dup["id"]]


async def test_an_undo_that_leaves_the_findings_note_as_it_is_leaves_it_applied(
    make_vault: Callable[..., Path],
) -> None:
    """A person edited the note after the apply; the undo skips it (skip_conflicts): the duplicate
    stays deleted, so the finding stays applied."""
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates"])
        [dup] = of_kind(await findings(vg), "duplicate")
        await vg.ok("apply_finding", finding_id=dup["id"])
        note = vg.root / "Memory/Ann.md"
        note.write_text(note.read_text(encoding="utf-8") + "- Added by hand\n", encoding="utf-8")
        undone = await vg.confirmed("undo_last_plan", skip_conflicts=True)
        assert [c["path"] for c in undone["conflicts"]] == ["Memory/Ann.md"] and undone["restored"] == []
        assert [i["id"] for i in of_kind(await findings(vg, status="applied"), "duplicate")] == [dup["id"]]
