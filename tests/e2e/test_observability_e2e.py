"""Observability over real HTTP with the SDK client, in both protocol eras: /metrics series move
with tool calls, admin tools and the audit log see HTTP calls, sessions trace them, and the
tool-call span joins the client's trace (W3C traceparent in `_meta`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared._httpx_utils import create_mcp_http_client
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from service.obs.tracing import Tracing
from service.settings import OtelSettings
from tests.conftest import e2e


async def _scrape(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    async with create_mcp_http_client() as http:
        response = await http.get(url.rsplit("/mcp", 1)[0] + "/metrics")
    assert response.status_code == 200
    return {
        (s.name, frozenset(s.labels.items())): float(s.value)
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def _value(series: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in series.items() if n == name and set(labels.items()) <= set(ls))


def _structured(result: Any) -> dict[str, Any]:
    assert result.structured_content is not None
    return dict(result.structured_content)


async def test_metrics_series_move_with_tool_calls(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"A.md": "# A\n"})) as (url, _):
        before = await _scrape(url)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            for _ in range(3):
                assert not (await client.call_tool("read_note", {"path": "A"})).is_error
            assert (await client.call_tool("read_note", {"path": "Nope"})).is_error
            tripped = await client.call_tool("reset_vault_cache", {})
        after = await _scrape(url)
    ok = {"tool": "read_note", "vault": "main", "status": "ok"}
    assert _value(after, "vaultgate_tool_calls_total", **ok) - _value(before, "vaultgate_tool_calls_total", **ok) == 3
    assert _value(after, "vaultgate_tool_calls_total", tool="read_note", status="note_not_found") == 1
    count = "vaultgate_tool_call_duration_seconds_count"
    assert _value(after, count, tool="read_note") - _value(before, count, tool="read_note") == 4
    assert _structured(tripped)["error"]["code"] == "elicit_required"
    assert _value(after, "vaultgate_confirmation_trips_total", tool="reset_vault_cache") == 1


@pytest.mark.covers("start_session", "success")
@pytest.mark.covers("end_session", "success")
@pytest.mark.covers("server_health", "success")
@pytest.mark.covers("get_metrics", "success")
@pytest.mark.covers("get_audit_log", "success")
async def test_admin_tools_audit_log_and_sessions_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"A.md": "# A\n"})) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        health = _structured(await client.call_tool("server_health", {}))
        session = _structured(await client.call_tool("start_session", {"name": "over http"}))
        await client.call_tool("read_note", {"path": "A"})
        await client.call_tool("read_note", {"path": "../escape"})
        ended = _structured(await client.call_tool("end_session", {}))
        log = _structured(await client.call_tool("get_audit_log", {"limit": 10}))
        metrics = _structured(await client.call_tool("get_metrics", {}))
        await harness.app.sessions.drained()
        trace = [json.loads(x) for x in (harness.root / session["path"]).read_text().splitlines()]
    assert health["versions"]["mcp"] and health["vaults"][0]["vault"] == "main"
    assert ended["calls"] == 4
    assert [(x["tool"], x["error_code"]) for x in trace[1:]] == [
        ("start_session", None),
        ("read_note", None),
        ("read_note", "path_invalid"),
        ("end_session", None),
    ]
    assert all(x["transport"] == "http" for x in trace[1:])
    tools = [row["tool"] for row in log["items"]]
    assert tools[:4] == ["end_session", "read_note", "read_note", "start_session"]
    assert {row["session_id"] for row in log["items"][:4]} == {session["session_id"]}
    assert "../escape" not in json.dumps(log)
    [read] = [i for i in metrics["items"] if i["tool"] == "read_note"]
    assert read["calls"] == 2 and read["errors"] == 1


async def test_tool_span_joins_the_clients_trace(make_vault: Callable[..., Path], mode: str) -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    parent = f"00-{trace_id}-00f067aa0ba902b7-01"
    async with e2e(make_vault({"A.md": "# A\n"})) as (url, harness):
        exporter = InMemorySpanExporter()
        tracing = Tracing(OtelSettings(), exporter=exporter)
        harness.app.tracing.provider, harness.app.tracing.tracer = tracing.provider, tracing.tracer
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            await client.call_tool("read_note", {"path": "A"}, meta={"traceparent": parent})
    [span] = [s for s in exporter.get_finished_spans() if s.name == "tools/call read_note"]
    assert span.kind.name == "SERVER" and span.attributes is not None
    assert span.attributes["vaultgate.status"] == "ok" and span.attributes["vaultgate.vault"] == "main"
    assert span.context is not None and format(span.context.trace_id, "032x") == trace_id
    assert span.parent is not None and format(span.parent.span_id, "016x") == "00f067aa0ba902b7"
