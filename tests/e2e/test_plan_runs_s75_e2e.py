"""Session 75's plan-journal changes over real HTTP with the SDK client (both eras): get_plan_run
of an undo run and of a bulk call's run answers its step whole (was internal_error); an HTTP
server started while another server process is inside an all-or-nothing call leaves that call
alone (was: rolled it back under the live call), and rolls it back once that process is killed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import ok
from tests.killed import held
from tests.tools.notes.test_bulk_killed import FILES

PLAN = {"goal": "g", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "A.md", "content": "a"}}]}
STEP = {"status": "ok", "failed_calls": 0, "errors": []}


async def test_get_plan_run_of_an_undo_run_and_a_bulk_run_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    vault = make_vault({"Home.md": "# Home\n"})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        run = await ok(client, "execute_plan", plan=PLAN)
        token = await h.token_for("undo_last_plan", run_id=run["run_id"])
        undone = await ok(client, "undo_last_plan", run_id=run["run_id"], elicit_token=token)
        got = await ok(client, "get_plan_run", run_id=undone["undo_run_id"])
        [step] = got["steps"]
        assert got["status"] == "done" and {k: step[k] for k in STEP} == STEP and step["id"] == "undo"
        await ok(client, "bulk_create_notes", notes=[{"path": f"B/{i}.md", "content": "b"} for i in range(2)])
        [bulk] = await h.app.state.fetchall("SELECT id FROM plan_runs WHERE kind = 'bulk'")
        got = await ok(client, "get_plan_run", run_id=bulk[0])
        [step] = got["steps"]
        assert got["status"] == "done" and {k: step[k] for k in STEP} == STEP and step["id"] == "bulk"


async def test_an_http_server_leaves_another_live_servers_bulk_call_alone(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str
) -> None:
    root = make_vault(FILES)
    before = snapshot(root)
    async with held("tests.bulk_killed", root, tmp_path / "held") as proc:
        async with e2e(root) as (url, h):
            await h.indexed()
            async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
                listed = {i["path"] for i in (await ok(client, "list_notes", limit=50))["items"]}
                assert "Bulk/Sub/n1.md" in listed  # the live call's notes, left as they are
            assert (root / "Existing.md").read_text() == "# Replaced\n"
        proc.kill()  # kill -9 mid-call: the next start rolls it back
    async with e2e(root) as (url, h):
        assert snapshot(root) == before
        await h.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            listed = sorted(i["path"] for i in (await ok(client, "list_notes"))["items"])
            assert listed == ["Existing.md", "Other.md"]
