"""Audit rows, the CloudEvents spool, push failures that never fail a call, and OTel spans."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from service.obs.tracing import Tracing
from service.settings import OtelSettings
from tests.conftest import started


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_every_call_leaves_one_audit_row_without_raw_arguments(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await vg.ok("append_note", path="A", content="secret words\n")
        await vg.err("read_note", "note_not_found", path="Nope")
        await vg.app.audit.drained()
        rows = await vg.app.services.state.fetchall(
            "SELECT tool, status, error_code, args_hash, transport, caller_hash, vault_id FROM event_log ORDER BY id"
        )
        assert [(r[0], r[1], r[2]) for r in rows] == [
            ("append_note", "ok", None),
            ("read_note", "error", "note_not_found"),
        ]
        assert all(len(r[3]) == 32 and r[4] == "inproc" and len(r[5]) == 16 and r[6] == "main" for r in rows)
        dump = json.dumps([list(r) for r in await vg.app.services.state.fetchall("SELECT * FROM event_log")])
        assert "secret words" not in dump and "Nope" not in dump


async def test_cloudevents_spool_per_vault_per_day(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    async with started(root) as vg:
        await vg.ok("read_note", path="A")
        await vg.app.audit.drained()
        files = list((vg.app.settings.data_dir() / "events" / "main").glob("*.jsonl"))
        assert not (root / ".vaultgate").exists()  # nothing of ours in the vault
        assert len(files) == 1
        event = json.loads(files[0].read_text().splitlines()[0])
        assert event["specversion"] == "1.0" and event["type"] == "dev.vaultgate.tool.call"
        assert event["source"] == "vaultgate://main" and event["subject"] == "read_note"
        assert event["time"].endswith("Z") and event["data"]["status"] == "ok"


async def test_a_failing_push_drops_and_counts_but_never_fails_the_call(make_vault: Callable[..., Path]) -> None:
    events = {"push_url": f"http://127.0.0.1:{_free_port()}/events", "push_timeout_seconds": 0.5}
    async with started(make_vault({"A.md": "# A\n"}), events=events) as vg:
        for _ in range(3):
            await vg.ok("read_note", path="A")
        await vg.app.audit.drained()
        text = vg.app.metrics.render().decode()
        assert 'vaultgate_observe_drops_total{sink="push"}' in text
        count = await vg.app.services.state.fetchone("SELECT count(*) FROM event_log")
        assert count[0] == 3  # the other sinks still got the events


async def test_one_server_span_per_call_with_attributes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        exporter = InMemorySpanExporter()
        tracing = Tracing(OtelSettings(), exporter=exporter)
        vg.app.tracing.provider, vg.app.tracing.tracer = tracing.provider, tracing.tracer
        await vg.ok("read_note", path="A")
        await vg.err("read_note", "path_invalid", path="../x")
        spans = exporter.get_finished_spans()
        assert [s.name for s in spans] == ["tools/call read_note", "tools/call read_note"]
        ok, bad = spans
        assert ok.kind.name == "SERVER" and ok.attributes["vaultgate.status"] == "ok"
        assert ok.attributes["vaultgate.vault"] == "main" and len(str(ok.attributes["vaultgate.caller_hash"])) == 16
        assert bad.attributes["vaultgate.error_code"] == "path_invalid" and bad.status.status_code.name == "ERROR"
        assert ok.attributes["vaultgate.confirmation"] == "" and ok.attributes["vaultgate.overflow_bytes"] == 0


async def test_spans_carry_the_confirmation_used_and_the_overflow_size(make_vault: Callable[..., Path]) -> None:
    big = "# Big\n\n" + "x" * 5000 + "\n"
    async with started(make_vault({"A.md": "# A\n", "Big.md": big}), governor={"max_response_bytes": 2048}) as vg:
        exporter = InMemorySpanExporter()
        tracing = Tracing(OtelSettings(), exporter=exporter)
        vg.app.tracing.provider, vg.app.tracing.tracer = tracing.provider, tracing.tracer
        await vg.confirmed("delete_note", path="A", permanent=True)
        await vg.err("read_note", "overflow", path="Big")
        asked, confirmed, overflowed = exporter.get_finished_spans()
        assert asked.attributes["vaultgate.error_code"] == "elicit_required"
        assert confirmed.attributes["vaultgate.confirmation"] == "token"
        assert confirmed.attributes["vaultgate.status"] == "ok"
        assert overflowed.attributes["vaultgate.error_code"] == "overflow"
        assert int(overflowed.attributes["vaultgate.overflow_bytes"]) > 5000


def test_no_endpoint_means_no_tracer() -> None:
    assert Tracing(OtelSettings()).enabled is False
