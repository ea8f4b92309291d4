"""The observe layer counts every call, success or failure, on the app's own registry."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from service.obs.metrics import Metrics
from tests.conftest import Harness, started


def _sample(metrics: Metrics, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(metrics.render().decode()):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


async def test_successful_call_increments_ok_counter_and_histogram(vg: Harness) -> None:
    metrics: Metrics = vg.app.services.extensions["metrics"]
    before = _sample(metrics, "vaultgate_tool_calls_total", tool="list_notes", status="ok")
    await vg.ok("list_notes")
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="list_notes", status="ok") == before + 1
    assert _sample(metrics, "vaultgate_tool_call_duration_seconds_count", tool="list_notes") >= 1


async def test_failed_call_is_counted_with_its_error_code(vg: Harness) -> None:
    metrics: Metrics = vg.app.services.extensions["metrics"]
    await vg.err("read_note", "note_not_found", path="does/not/exist.md")
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="read_note", status="note_not_found") == 1


async def test_unknown_tool_is_still_observed(vg: Harness) -> None:
    metrics: Metrics = vg.app.services.extensions["metrics"]
    await vg.err("no_such_tool", "not_found")
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="no_such_tool", status="not_found") == 1


def test_each_metrics_instance_has_its_own_registry() -> None:
    a, b = Metrics(), Metrics()
    a.calls.labels(vault="v", tool="t", status="ok").inc()
    assert _sample(a, "vaultgate_tool_calls_total", tool="t") == 1
    assert _sample(b, "vaultgate_tool_calls_total", tool="t") == 0


async def test_policy_outcomes_move_their_counters(make_vault: Callable[..., Path]) -> None:
    throttle = {"classes": {"read": {"rate_per_minute": 1, "burst": 2}}}
    async with started(make_vault({"A.md": "# A\n"}), throttle=throttle) as vg:
        metrics: Metrics = vg.app.services.extensions["metrics"]
        await vg.ok("append_note", path="A", content="x\n", idempotency_key="k1")
        await vg.ok("append_note", path="A", content="x\n", idempotency_key="k1")  # replayed
        await vg.confirmed("delete_note", path="A", permanent=True)  # one trip, one consumption
        await vg.ok("list_notes")
        await vg.ok("list_notes")
        await vg.err("list_notes", "throttled")
    assert _sample(metrics, "vaultgate_idempotency_replays_total", tool="append_note") == 1
    assert _sample(metrics, "vaultgate_confirmation_trips_total", tool="delete_note") == 1
    assert _sample(metrics, "vaultgate_confirmation_consumptions_total", tool="delete_note") == 1
    assert _sample(metrics, "vaultgate_throttle_hits_total", tool="list_notes", vault="main") == 1
