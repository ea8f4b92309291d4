"""Action plans through the full dispatch chain: validate, execute, undo back to the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.types import Principal
from tests.conftest import snapshot, started
from tests.long_changes import assert_progress
from tests.plan_vault import NOTES, big_plan, plan_files


@pytest.mark.covers("validate_plan", "success")
@pytest.mark.covers("execute_plan", "success")
@pytest.mark.covers("undo_last_plan", "success")
async def test_a_plan_over_60_notes_executes_and_undoes_to_identical_bytes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(plan_files())) as vg:
        await vg.indexed()
        before = snapshot(vg.root)
        checked = await vg.ok("validate_plan", plan=big_plan())
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert effects["estimated_steps"] == 1 + 10 + NOTES + 1 + NOTES + 5 + 5
        trash_copies = [f".trash/Old/o{i}.md" for i in range(5)]  # the 5 soft deletes' copies are new files
        assert effects["files_created"] == [*(f"New/c{i}.md" for i in range(10)), *trash_copies]
        assert effects["risk_level"] == "destructive"
        assert len(effects["files_modified"]) == NOTES + 1 and len(effects["files_deleted"]) == 5
        assert [m["from"] for m in effects["files_moved"]] == [f"Move/m{i}.md" for i in range(5)]
        assert all(m["links_rewritten"] and m["links_rewritten"] > 0 for m in effects["files_moved"])
        token = await vg.token_for("execute_plan", plan=big_plan(), effects_hash=checked["effects_hash"])
        seen: list[tuple[float, float | None, str | None]] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            seen.append((done, total, message))

        args = {"plan": big_plan(), "effects_hash": checked["effects_hash"], "elicit_token": token}
        result = await vg.app.dispatcher.call("execute_plan", args, principal=vg.principal, progress=progress)
        run = result.structured
        assert run is not None and run["status"] == "done", run
        assert run["calls_done"] == effects["estimated_steps"]
        assert_progress(seen)
        assert len(seen) == effects["estimated_steps"]  # one notification per call
        assert (vg.root / "Archive/m3.md").is_file() and not (vg.root / "Move/m3.md").exists()
        assert "[[Archive/m3]]" in (vg.root / "Notes/n03.md").read_text()
        assert "reviewed" in (vg.root / "Notes/n10.md").read_text()
        assert snapshot(vg.root) != before
        token = await vg.token_for("undo_last_plan")
        undone = await vg.ok("undo_last_plan", elicit_token=token)
        assert undone["run_id"] == run["run_id"] and not undone["conflicts"]
        assert snapshot(vg.root) == before


def _small_plan(**extra: object) -> dict[str, object]:
    return {
        "goal": "small",
        "steps": [
            {"id": "a", "tool": "create_note", "args": {"path": "A1", "content": "one\n"}},
            {"id": "b", "tool": "append_note", "args": {"path": "$steps.a.path", "content": "two"}},
        ],
        **extra,
    }


@pytest.mark.covers("validate_plan", "failure")
async def test_validation_lists_every_problem_with_its_step(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        bad = {
            "goal": "broken",
            "params": [{"name": "who", "type": "string"}],
            "steps": [
                {"id": "x", "tool": "no_such_tool"},
                {"id": "y", "tool": "create_note", "args": {"path": 5, "colour": "red"}},
                {"id": "z", "tool": "read_note", "args": {"path": "$steps.nowhere.path"}, "dependsOn": ["w"]},
                {"id": "p", "tool": "read_note", "args": {"path": "$steps.q.path"}},
                {"id": "q", "tool": "read_note", "args": {"path": "$steps.p.path"}},
                {"id": "e", "tool": "execute_plan", "args": {"plan": {}}},
                {"id": "v", "tool": "read_note", "args": {"path": "A", "vault": "other"}},
            ],
        }
        out = await vg.ok("validate_plan", plan=bad)
        codes = {(p["step"], p["code"]) for p in out["problems"]}
        assert not out["valid"]
        assert ("x", "unknown_tool") in codes and ("y", "validation_error") in codes
        assert ("z", "bad_reference") in codes and ("z", "unknown_step") in codes
        assert any(code == "cycle" for _, code in codes)
        assert ("e", "not_allowed") in codes and ("v", "not_allowed") in codes
        assert (None, "missing_param") in codes
        error = await vg.err("validate_plan", "validation_error", plan={"goal": "no steps"})
        assert error["details"]["problems"][0]["code"] == "schema"


@pytest.mark.covers("execute_plan", "failure")
async def test_an_invalid_or_stale_plan_is_refused_and_changes_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        before = snapshot(vg.root)
        bad = {"goal": "g", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "B", "bogus": 1}}]}
        error = await vg.err("execute_plan", "validation_error", plan=bad)
        assert error["details"]["problems"][0]["step"] == "a"
        checked = await vg.ok("validate_plan", plan=_small_plan())
        (vg.root / "A1.md").write_text("someone else\n")  # the plan's create would now fail: already_exists
        error = await vg.err("execute_plan", "conflict", plan=_small_plan(), effects_hash=checked["effects_hash"])
        effects = error["details"]["effects"]
        assert effects["files_modified"] == [] and effects["files_created"] == []
        assert [(f["step"], f["code"], f["path"], f["stops"]) for f in effects["failures"]] == [
            ("a", "already_exists", "A1.md", True)
        ]
        (vg.root / "A1.md").unlink()
        assert snapshot(vg.root) == before


@pytest.mark.covers("undo_last_plan", "failure")
async def test_undo_refuses_on_conflicts_lists_them_and_can_skip_them(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await vg.err("undo_last_plan", "not_found")
        before = snapshot(vg.root)
        run = await vg.ok("execute_plan", plan=_small_plan())
        assert run["status"] == "done" and vg.read("A1.md").startswith("one\n")
        plan2 = {"goal": "g2", "steps": [{"id": "c", "tool": "create_note", "args": {"path": "C1", "content": "c"}}]}
        run2 = await vg.ok("execute_plan", plan=plan2)
        (vg.root / "C1.md").write_text("edited by a human\n")
        error = await vg.err("undo_last_plan", "conflict")  # refused before a human is asked
        assert [c["path"] for c in error["details"]["conflicts"]] == ["C1.md"]
        assert vg.read("C1.md") == "edited by a human\n"
        dry = await vg.ok("undo_last_plan", dry_run=True, skip_conflicts=True)
        assert dry["dry_run"] and dry["restored"] == [] and dry["conflicts"][0]["path"] == "C1.md"
        out = await vg.confirmed("undo_last_plan", run_id=run2["run_id"], skip_conflicts=True)
        assert out["conflicts"][0]["path"] == "C1.md" and vg.read("C1.md") == "edited by a human\n"
        await vg.err("undo_last_plan", "conflict", run_id=run2["run_id"])  # already undone
        (vg.root / "C1.md").unlink()
        undone = await vg.confirmed("undo_last_plan", run_id=run["run_id"])
        assert undone["restored"] == ["A1.md"] and snapshot(vg.root) == before
        redo = await vg.confirmed("undo_last_plan")  # the newest run is that undo: undoing it redoes
        assert redo["run_id"] == undone["undo_run_id"] and (vg.root / "A1.md").is_file()


@pytest.mark.covers("get_plan_run", "success")
@pytest.mark.covers("get_plan_run", "failure")
async def test_get_plan_run_reports_finished_runs_of_the_caller_only(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        run = await vg.ok("execute_plan", plan=_small_plan())
        vg.app.plans.live.clear()  # as after a restart: read back from the journal
        got = await vg.ok("get_plan_run", run_id=run["run_id"])
        assert got["status"] == "done" and [s["status"] for s in got["steps"]] == ["ok", "ok"]
        await vg.err("get_plan_run", "not_found", run_id="nope")
        # another caller without the admin scope does not see it; an admin does (as undo_last_plan
        # {run_id} reverses it; Principal.local holds every scope, admin included)
        vg.principal = Principal("someone-else", frozenset({"read:vault", "write:vault"}))
        await vg.err("get_plan_run", "not_found", run_id=run["run_id"])
        vg.principal = Principal.local("an-admin")
        assert (await vg.ok("get_plan_run", run_id=run["run_id"]))["status"] == "done"


async def test_steps_of_a_confirmed_plan_are_not_asked_again_and_progress_is_reported(
    make_vault: Callable[..., Path],
) -> None:
    files = {f"D/d{i}.md": f"# d{i}\n" for i in range(5)}
    async with started(make_vault(files)) as vg:
        plan = {
            "goal": "delete five",
            "steps": [
                {
                    "id": "del",
                    "tool": "delete_note",
                    "foreach": sorted(files),
                    "args": {"path": "$item", "permanent": True},
                }
            ],
        }
        error = await vg.err("execute_plan", "elicit_required", plan=plan)
        assert "delete (5)" in error["details"]["preview"] and "risk: destructive" in error["details"]["preview"]
        token = await vg.token_for("execute_plan", plan=plan)
        seen: list[tuple[float, float | None, str | None]] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            seen.append((done, total, message))

        result = await vg.app.dispatcher.call(
            "execute_plan", {"plan": plan, "elicit_token": token}, principal=vg.principal, progress=progress
        )
        assert result.structured is not None and result.structured["status"] == "done", result.structured
        assert not any((vg.root / rel).exists() for rel in files)
        assert_progress(seen)
        assert [d for d, _, _ in seen] == [1, 2, 3, 4, 5]
        await vg.app.audit.drained()
        rows = await vg.app.services.state.fetchall("SELECT tool, confirmed FROM event_log WHERE tool = 'delete_note'")
        assert len(rows) == 5 and all(r[1] == 1 for r in rows)


async def test_a_plan_step_cannot_write_where_the_acl_denies(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Private", "write": "deny"}]}
    async with started(make_vault({"A.md": "# A\n"}), acl=acl) as vg:
        plan = {"goal": "g", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "Private/x"}}]}
        out = await vg.ok("validate_plan", plan=plan)
        assert [p["code"] for p in out["problems"]] == ["acl_denied"]
        await vg.err("execute_plan", "validation_error", plan=plan)
        assert not (vg.root / "Private").exists()


async def test_foreach_over_a_result_known_only_at_run_time(make_vault: Callable[..., Path]) -> None:
    """A list a read gives after the plan's first change is known only at run time; the paths
    a foreach create answers are known at validation (`$steps.make[*].path`, s73)."""
    make = {"id": "make", "tool": "create_note", "foreach": ["X/one", "X/two"], "args": {"path": "$item"}}
    more = {
        "id": "more",
        "tool": "append_note",
        "foreach": "$steps.find.items[*].path",
        "args": {"path": "$item", "content": "more"},
        "captureAs": "appended",
    }
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        plan = {
            "goal": "create then append to what was created",
            "steps": [make, {"id": "find", "tool": "list_notes", "args": {"folder": "X"}, "dependsOn": ["make"]}, more],
        }
        known = {"goal": "the same by the creates' paths", "steps": [make, {**more, "foreach": "$steps.make[*].path"}]}
        checked = await vg.ok("validate_plan", plan=known)
        assert checked["valid"] and checked["effects"]["unresolved"] == [], checked["effects"]
        assert checked["effects"]["files_created"] == ["X/one.md", "X/two.md"], checked["effects"]
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"] and checked["effects"]["unresolved"] == ["more"]
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done" and run["calls_done"] == 5 and run["calls_total"] == 5
        assert [r["path"] for r in run["steps"][2]["result"]] == ["X/one.md", "X/two.md"]
        assert vg.read("X/two.md").endswith("more")


async def test_a_missing_run_or_macro_is_explained_not_sent_to_tools_list(make_vault: Callable[..., Path]) -> None:
    from service.errors import ToolNotFound

    async with started(make_vault({"A.md": "# A\n"})) as vg:
        for tool, args, names in (
            ("undo_last_plan", {}, "run_id"),
            ("undo_last_plan", {"run_id": "nope"}, "execute_plan"),
            ("get_plan_run", {"run_id": "nope"}, "execute_plan"),
            ("cancel_plan", {"run_id": "nope"}, "execute_plan"),
            ("run_macro", {"name": "nope"}, "list_macros"),
            ("delete_macro", {"name": "nope"}, "list_macros"),
        ):
            error = await vg.err(tool, "not_found", **args)
            assert error["hint"] != ToolNotFound.default_hint and names in error["hint"], (tool, error["hint"])


async def test_an_edit_between_two_writes_of_a_run_is_a_conflict_found_before_anyone_is_asked(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.tools.properties import edit
    from service.vault import restore

    async with started(make_vault({"X.md": "# X\n"})) as vg:
        real_check_tag = edit.check_tag

        def a_human_appends_first(tag: str) -> str:  # add_tags checks its tags before it reads the note
            with (vg.root / "X.md").open("a") as note:
                note.write("a human's line\n")
            return real_check_tag(tag)

        monkeypatch.setattr(edit, "check_tag", a_human_appends_first)
        plan = {
            "goal": "interleave",
            "steps": [
                {"id": "a", "tool": "append_note", "args": {"path": "X", "content": "from the plan"}},
                {"id": "n", "tool": "create_note", "args": {"path": "N1", "content": "n\n"}},
                {"id": "t", "tool": "add_tags", "args": {"path": "X", "tags": ["done"]}, "dependsOn": ["a", "n"]},
            ],
        }
        run = await vg.ok("execute_plan", plan=plan)
        monkeypatch.undo()
        assert run["status"] == "done" and "a human's line" in vg.read("X.md")
        dry = await vg.ok("undo_last_plan", dry_run=True)
        assert [c["path"] for c in dry["conflicts"]] == ["X.md"] and dry["restored"] == ["N1.md"]
        error = await vg.err("undo_last_plan", "conflict")  # refused at once: no human asked to approve it
        assert [c["path"] for c in error["details"]["conflicts"]] == ["X.md"]
        x_now = vg.read("X.md")

        async def broken(*_args: object, **_kwargs: object) -> None:
            raise OSError(5, "the disk failed")

        monkeypatch.setattr(restore, "restore_file", broken)
        token = await vg.token_for("undo_last_plan", skip_conflicts=True)
        assert (await vg.call("undo_last_plan", skip_conflicts=True, elicit_token=token)).is_error
        monkeypatch.undo()
        again = await vg.ok("undo_last_plan", dry_run=True, skip_conflicts=True)
        assert again["run_id"] == run["run_id"]  # the failed undo changed nothing: the plan is still the one
        out = await vg.confirmed("undo_last_plan", skip_conflicts=True)
        assert out["run_id"] == run["run_id"] and out["restored"] == ["N1.md"]
        assert not (vg.root / "N1.md").exists() and vg.read("X.md") == x_now
        assert (await vg.ok("get_plan_run", run_id=run["run_id"]))["undone_by"] == out["undo_run_id"]
