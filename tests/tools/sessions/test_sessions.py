"""Workspace sessions: calls of an open session are mirrored to a JSONL trace in the vault."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.types import Principal
from tests.conftest import Harness, started


def _lines(root: Path, rel: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / rel).read_text(encoding="utf-8").splitlines()]


async def test_calls_in_a_session_are_traced_success_and_failure(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        started_ = await vg.ok("start_session", name="Weekly review: notes!")
        await vg.ok("read_note", path="A")
        await vg.err("read_note", "note_not_found", path="Nope")
        ended = await vg.ok("end_session")
        await vg.ok("read_note", path="A")  # after the session: not traced
        await vg.app.sessions.drained()
        await vg.app.audit.drained()
        rows = await vg.app.services.state.fetchall("SELECT tool, session_id FROM event_log ORDER BY id")
        lines = _lines(vg.root, started_["path"])
        session_row = await vg.app.services.state.fetchone("SELECT ended_at, calls FROM agent_sessions")
    sid = started_["session_id"]
    assert started_["path"].startswith("Agent Sessions/") and started_["path"].endswith(
        f"Weekly review notes {sid[:8]}.jsonl"
    )
    assert started_["obsidian_url"].startswith("obsidian://open?")
    assert lines[0]["type"] == "session.started" and lines[0]["name"] == "Weekly review: notes!"
    assert [(x["tool"], x["status"], x["error_code"]) for x in lines[1:]] == [
        ("start_session", "ok", None),
        ("read_note", "ok", None),
        ("read_note", "error", "note_not_found"),
        ("end_session", "ok", None),
    ]
    assert all(x["session_id"] == sid for x in lines[1:]) and "Nope" not in json.dumps(lines)
    assert [r[1] for r in rows] == [sid, sid, sid, sid, None]
    assert ended["calls"] == 4 and ended["session_id"] == sid and session_row[0] is not None


async def test_sessions_belong_to_their_caller(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        mine = await vg.ok("start_session", name="mine")
        vg.principal = Principal.local("someone-else")
        await vg.ok("read_note", path="A")
        await vg.err("end_session", "not_found")
        vg.principal = Principal.local("test")
        await vg.app.sessions.drained()
        lines = _lines(vg.root, mine["path"])
    assert [x.get("tool") for x in lines[1:]] == ["start_session"]


@pytest.mark.covers("start_session", "success")
@pytest.mark.covers("start_session", "failure")
async def test_second_start_is_a_conflict_and_creates_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault()) as vg:
        first = await vg.ok("start_session", name="one")
        traces = vg.app.services.sessions
        await traces.drained()  # the first call's own trace line (written off the call path)
        before = vg.snapshot()
        error = await vg.err("start_session", "conflict", name="two")
        await traces.drained()
        after = vg.snapshot()
        assert error["details"]["session_id"] == first["session_id"]
        # nothing made; only the open session's trace changed: the refused call is traced into it
        assert set(after) == set(before)
        assert {k for k in after if after[k] != before[k]} <= {f"{vg.root.name}/{first['path']}"}


@pytest.mark.covers("end_session", "failure")
async def test_end_session_without_one_or_with_a_wrong_id_fails(vg: Harness) -> None:
    before = vg.snapshot()
    await vg.err("end_session", "not_found")
    await vg.ok("start_session", name="s")
    await vg.err("end_session", "not_found", session_id="not-this-one")
    assert set(vg.snapshot()) - set(before) != set()  # only the trace file was created


async def test_a_trace_folder_the_caller_may_not_write_is_refused(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Agent Sessions", "write": "deny"}]}
    async with started(make_vault({"A.md": "# A\n"}), acl=acl) as vg:
        before = vg.snapshot()
        await vg.err("start_session", "acl_denied", name="x")
        assert vg.snapshot() == before
        count = await vg.app.services.state.fetchone("SELECT count(*) FROM agent_sessions")
        assert count[0] == 0


async def test_an_open_session_survives_a_restart(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    async with started(root) as vg:
        session = await vg.ok("start_session", name="long")
    async with started(root) as vg:
        await vg.ok("read_note", path="A")
        ended = await vg.ok("end_session")
        await vg.app.sessions.drained()
    assert ended["session_id"] == session["session_id"] and ended["calls"] == 3
    assert [x.get("tool") for x in _lines(root, session["path"])[1:]] == ["start_session", "read_note", "end_session"]


async def test_a_failing_trace_write_is_counted_and_never_fails_the_call(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        session = await vg.ok("start_session", name="s")
        await vg.app.sessions.drained()
        trace = vg.root / session["path"]
        trace.unlink()
        trace.mkdir()  # appending to a directory fails
        await vg.ok("read_note", path="A")
        await vg.app.sessions.drained()
        text = vg.app.metrics.render().decode()
    assert 'vaultgate_observe_drops_total{sink="trace"} 1.0' in text


async def test_shutdown_writes_every_pending_audit_event_and_trace_line(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    async with started(root) as vg:
        session = await vg.ok("start_session", name="s")
        for _ in range(20):
            await vg.ok("read_note", path="A")
    async with started(root) as vg:
        count = await vg.app.services.state.fetchone("SELECT count(*) FROM event_log WHERE tool = 'read_note'")
    assert count[0] == 20
    assert len(_lines(root, session["path"])) == 1 + 21


async def test_the_maintenance_sweep_trims_old_traces_and_ended_sessions(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        old = await vg.ok("start_session", name="old")
        await vg.ok("end_session")
        await vg.app.sessions.drained()
        report = await vg.app.maintenance.sweep_once(now=time.time() + 31 * 86_400)
        rows = await vg.app.services.state.fetchone("SELECT count(*) FROM agent_sessions")
        assert not (vg.root / old["path"]).exists() and (vg.root / "A.md").exists()
    assert report["session_traces_deleted"] == 1 and report["sessions_trimmed"] == 1 and rows[0] == 0
