"""A delete of a note over `[limits] max_note_bytes` inside a plan (journaled for its undo).

To the trash it is a rename: journaled as one `move` with the note's stamp (size, mtime, inode:
`service.vault.journal.record_long_move`), never its bytes, and undo_last_plan brings it back from
the trash unread, or lists a conflict when the trashed file changed or is gone. A permanent delete
could be undone only with its bytes: refused (`compute_budget_exceeded`) before anything is
written, by validate_plan, the plan's dry run and the run alike. Outside a plan delete_note is not
journaled and reads nothing, permanent or not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text, no link\n" for i in range(400))  # ~11 KB, no '['
SIZE = len(LONG.encode())
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}
NEAR = "# Near\n" + "y" * (LIMIT - 100) + "\n"  # under the bound until a step appends to it
VAULT = {"Home.md": "# Home\n", "Inbox/Long.md": LONG, "Small.md": "# Small\n", "Near.md": NEAR}


@pytest.fixture
def whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return spy(monkeypatch)


def _plan(permanent: bool = False) -> dict[str, Any]:
    args: dict[str, Any] = {"path": "Inbox/Long", **({"permanent": True} if permanent else {})}
    return {"goal": "drop the long note", "steps": [{"id": "rm", "tool": "delete_note", "args": args}]}


async def _run(vg: Harness, plan: dict[str, Any]) -> dict[str, Any]:
    first = await vg.call("execute_plan", plan=plan)
    assert first.structured is not None
    if first.is_error and first.structured["error"]["code"] == "elicit_required":
        return await vg.confirmed("execute_plan", plan=plan)
    assert not first.is_error, first.structured
    return first.structured


async def _journal(vg: Harness) -> list[tuple[Any, ...]]:
    rows = await vg.app.state.fetchall(
        "SELECT kind, path, dst, prior IS NULL, new_etag FROM plan_journal ORDER BY run_id, seq"
    )
    return [tuple(r) for r in rows]


async def test_a_long_note_trashed_in_a_plan_is_journaled_unread_and_undone(
    make_vault: Callable[..., Path], whole_reads: list[str]
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await vg.indexed(60)
        whole_reads.clear()
        run = await _run(vg, _plan())
        assert run["status"] == "done", run
        assert not (vg.root / "Inbox/Long.md").exists() and (vg.root / ".trash/Inbox/Long.md").read_text() == LONG
        [(kind, path, dst, no_prior, stamp)] = [r for r in await _journal(vg) if r[0] != "folder"]
        assert (kind, path, dst, no_prior) == ("move", "Inbox/Long.md", ".trash/Inbox/Long.md", True)
        assert stamp.startswith(f"stat:{SIZE}:")
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == [] and "Inbox/Long.md" in out["restored"], out
        assert vg.read("Inbox/Long.md") == LONG and not (vg.root / ".trash/Inbox/Long.md").exists()
        await vg.confirmed("undo_last_plan", run_id=out["undo_run_id"])  # the redo: back to the trash, checked alike
        assert not (vg.root / "Inbox/Long.md").exists() and (vg.root / ".trash/Inbox/Long.md").read_text() == LONG
        assert not [r for r in whole_reads if r.endswith("Long.md")], whole_reads


@pytest.mark.parametrize("since", ["edited", "gone"])
async def test_a_trashed_long_note_changed_since_is_a_conflict_and_stays(
    make_vault: Callable[..., Path], since: str
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await vg.indexed(60)
        await _run(vg, _plan())
        trashed = vg.root / ".trash/Inbox/Long.md"
        if since == "edited":
            trashed.write_text(LONG + "more\n", encoding="utf-8")
        else:
            trashed.unlink()
        error = await vg.err("undo_last_plan", "conflict")
        [conflict] = error["details"]["conflicts"]
        assert conflict["path"] == ".trash/Inbox/Long.md" and conflict["expected_etag"].startswith(f"stat:{SIZE}:")
        assert not (vg.root / "Inbox/Long.md").exists()
        assert (trashed.read_text() == LONG + "more\n") if since == "edited" else not trashed.exists()


async def test_a_permanent_delete_of_a_long_note_in_a_plan_is_refused_before_anything_is_written(
    make_vault: Callable[..., Path], whole_reads: list[str]
) -> None:
    async with started(make_vault(VAULT), limits=LIMITS, index={"watch": False}) as vg:
        await vg.indexed(60)
        before = vg.snapshot()
        whole_reads.clear()
        checked = await vg.ok("validate_plan", plan=_plan(permanent=True))
        [problem] = checked["problems"]
        assert problem["code"] == "compute_budget_exceeded", problem
        details = {"path": "Inbox/Long.md", "size": SIZE, "limit": "note_bytes", "max_note_bytes": LIMIT}
        assert problem["details"] == details
        assert (
            "max_note_bytes" in problem["hint"] and "trash" in problem["hint"] and "outside a plan" in problem["hint"]
        )
        dry = await vg.err("execute_plan", "validation_error", plan=_plan(permanent=True), dry_run=True)
        assert "compute_budget_exceeded" in str(dry), dry
        assert vg.snapshot() == before
        # the run's own refusal: a note that passes the bound when checked, and an earlier step grows past it
        grows = {
            "goal": "grow it, then drop it",
            "steps": [
                {"id": "add", "tool": "append_note", "args": {"path": "Near", "content": "x" * 200}},
                {"id": "rm", "tool": "delete_note", "args": {"path": "Near", "permanent": True}},
            ],
        }
        assert (await vg.ok("validate_plan", plan=grows))["problems"] == []
        run = await _run(vg, grows)
        [step] = [s for s in run["steps"] if s["id"] == "rm"]
        assert run["status"] == "failed" and [e["code"] for e in step["errors"]] == ["compute_budget_exceeded"], run
        assert "'Near.md' is" in step["errors"][0]["message"] and "for its undo" in step["errors"][0]["message"]
        assert vg.read("Near.md").startswith(NEAR) and (vg.root / "Near.md").stat().st_size > LIMIT  # appended, kept
        assert [r for r in await _journal(vg) if r[1].endswith("Long.md")] == []
        assert not [r for r in whole_reads if r.endswith("Long.md")], whole_reads


async def test_outside_a_plan_delete_note_reads_nothing_permanent_or_not(
    make_vault: Callable[..., Path], whole_reads: list[str]
) -> None:
    async with started(make_vault({**VAULT, "Other.md": LONG}), limits=LIMITS, index={"watch": False}) as vg:
        await vg.indexed(60)
        whole_reads.clear()
        await vg.confirmed("delete_note", path="Inbox/Long", permanent=True)
        out = await vg.ok("delete_note", path="Other")
        assert not (vg.root / "Inbox/Long.md").exists() and (vg.root / out["trash_path"]).read_text() == LONG
        assert not [r for r in whole_reads if r.endswith(("Long.md", "Other.md"))], whole_reads
        assert await _journal(vg) == []
