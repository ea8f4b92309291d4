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
    metrics: Metrics = vg.app.services.metrics
    before = _sample(metrics, "vaultgate_tool_calls_total", tool="list_notes", status="ok")
    await vg.ok("list_notes")
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="list_notes", status="ok") == before + 1
    assert _sample(metrics, "vaultgate_tool_call_duration_seconds_count", tool="list_notes") >= 1


async def test_failed_call_is_counted_with_its_error_code(vg: Harness) -> None:
    metrics: Metrics = vg.app.services.metrics
    await vg.err("read_note", "note_not_found", path="does/not/exist.md")
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="read_note", status="note_not_found") == 1


async def test_unknown_tool_is_still_observed(vg: Harness) -> None:
    """...under fixed labels: callers cannot mint new series with made-up tool or vault names."""
    metrics: Metrics = vg.app.services.metrics
    await vg.err("no_such_tool", "not_found")
    await vg.err("no_such_tool_either", "not_found", vault="main")
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="unknown", status="not_found", vault="") == 1
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="unknown", status="not_found", vault="main") == 1
    await vg.err("read_note", "vault_not_found", path="A", vault="made-up-vault-1")
    await vg.err("read_note", "vault_not_found", path="A", vault="made-up-vault-2")
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="read_note", vault="unknown") == 2
    await vg.err("read_note", "validation_error", vault="main")  # failed before resolving: a known id is kept
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="read_note", vault="main") == 1
    text = metrics.render().decode()
    assert "no_such_tool" not in text and "made-up-vault" not in text


async def test_an_input_request_counts_as_input_required_and_a_trip(make_vault: Callable[..., Path]) -> None:
    from types import SimpleNamespace

    import mcp_types as types
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    session = SimpleNamespace(
        protocol_version=MODERN_PROTOCOL_VERSIONS[0],
        client_capabilities=types.ClientCapabilities(elicitation=types.ElicitationCapability()),
    )
    request = SimpleNamespace(session=session, request_id=1)
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        metrics: Metrics = vg.app.services.metrics
        args = {"path": "A", "permanent": True}
        result = await vg.app.dispatcher.call("delete_note", args, principal=vg.principal, request=request)
        assert result.input_required is not None
        assert _sample(metrics, "vaultgate_tool_calls_total", tool="delete_note", status="input_required") == 1
        assert _sample(metrics, "vaultgate_tool_calls_total", tool="delete_note", status="ok") == 0
        assert _sample(metrics, "vaultgate_confirmation_trips_total", tool="delete_note") == 1


async def test_a_failing_spool_drops_and_counts_each_event_and_the_calls_succeed(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the spool folder should be\n")
    async with started(make_vault({"A.md": "# A\n"}), events={"spool_dir": str(blocker)}) as vg:
        metrics: Metrics = vg.app.services.metrics
        for _ in range(3):
            assert (await vg.ok("read_note", path="A"))["path"] == "A.md"
        await vg.app.audit.drained()
        assert _sample(metrics, "vaultgate_observe_drops_total", sink="spool") == 3
        assert _sample(metrics, "vaultgate_observe_drops_total", sink="audit") == 0
        rows = await vg.app.services.state.fetchall("SELECT count(*) FROM event_log", ())
        assert rows[0][0] == 3  # the other sinks still got every event


async def test_index_backlog_and_lag_gauges_appear_and_move(make_vault: Callable[..., Path]) -> None:
    from service.indexer.runner import BATCH, indexer_of

    notes = {f"N/{i:03}.md": f"# {i}\n" for i in range(900)}  # several batches of up to BATCH
    async with started(make_vault(notes)) as vg:
        await vg.indexed()
        app = vg.app
        metrics: Metrics = app.services.metrics
        await app.refresh_gauges()
        assert _sample(metrics, "vaultgate_index_notes", vault="main") == 900
        assert _sample(metrics, "vaultgate_index_backlog", vault="main") == 0
        assert _sample(metrics, "vaultgate_index_lag_seconds", vault="main") == 0
        seen: list[tuple[float, float]] = []

        async def sample(done: int, total: int) -> None:
            await app.refresh_gauges()
            backlog = _sample(metrics, "vaultgate_index_backlog", vault="main")
            seen.append((backlog, _sample(metrics, "vaultgate_index_lag_seconds", vault="main")))

        indexer = indexer_of(app.vaults["main"])
        assert indexer is not None
        await indexer.reconcile(full=True, progress=sample)
        assert [b for b, _ in seen] == [max(0, 900 - BATCH * k) for k in range(1, -(-900 // BATCH) + 1)]
        assert all(lag > 0 for backlog, lag in seen if backlog) and seen[-1][1] == 0


def test_each_metrics_instance_has_its_own_registry() -> None:
    a, b = Metrics(), Metrics()
    a.calls.labels(vault="v", tool="t", status="ok").inc()
    assert _sample(a, "vaultgate_tool_calls_total", tool="t") == 1
    assert _sample(b, "vaultgate_tool_calls_total", tool="t") == 0


async def test_policy_outcomes_move_their_counters(make_vault: Callable[..., Path]) -> None:
    throttle = {"classes": {"read": {"rate_per_minute": 1, "burst": 2}}}
    async with started(make_vault({"A.md": "# A\n"}), throttle=throttle) as vg:
        metrics: Metrics = vg.app.services.metrics
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


async def test_a_confirmation_through_the_facade_is_one_trip_and_one_consumption(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"A.md": "# A\n"}), tool_facade={"mode": "triad"}) as vg:
        metrics: Metrics = vg.app.services.metrics
        args = {"name": "delete_note", "arguments": {"path": "A", "permanent": True}}
        await vg.err("call_capability", "elicit_required", **args)
        token = await vg.token_for("delete_note", path="A", permanent=True)  # a second trip, direct
        await vg.ok("call_capability", **args, elicit_token=token)
        assert not (vg.root / "A.md").exists()
    assert _sample(metrics, "vaultgate_confirmation_trips_total", tool="delete_note") == 2
    assert _sample(metrics, "vaultgate_confirmation_trips_total", tool="call_capability") == 0
    assert _sample(metrics, "vaultgate_confirmation_consumptions_total", tool="delete_note") == 1
    assert _sample(metrics, "vaultgate_confirmation_consumptions_total", tool="call_capability") == 0
    # both calls still count as calls of each tool (the facade call and the call it made)
    assert _sample(metrics, "vaultgate_tool_calls_total", tool="call_capability", status="elicit_required") == 1
