"""The observe layer never fails or blocks a call: broken sinks are counted and dropped."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started


class Broken:
    enabled = True

    def emit(self, event: dict[str, Any]) -> None:
        raise RuntimeError("sink down")

    def record(self, *args: Any) -> None:
        raise RuntimeError("exporter down")


async def test_a_raising_audit_sink_is_counted_and_the_call_still_succeeds(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        observe = vg.app.layers[0]
        observe.audit = Broken()  # type: ignore[attr-defined]
        out = await vg.ok("read_note", path="A")
        text = vg.app.metrics.render().decode()
    assert out["path"] == "A.md"
    assert 'vaultgate_observe_drops_total{sink="audit"} 1.0' in text
    assert 'vaultgate_tool_calls_total{status="ok",tool="read_note",vault="main"} 1.0' in text


async def test_a_full_audit_queue_drops_new_events_without_waiting(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"}), audit={"queue_size": 100}) as vg:
        sink = vg.app.audit
        for i in range(100):
            sink._queue.append({"filler": i})  # the writer has not run yet: the queue is full
        await vg.ok("read_note", path="A")
        text = vg.app.metrics.render().decode()
        sink._queue.clear()
    assert 'vaultgate_observe_drops_total{sink="audit"} 1.0' in text


async def test_a_raising_tracer_does_not_fail_the_call(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        vg.app.layers[0].tracing = Broken()  # type: ignore[attr-defined]
        await vg.err("read_note", "note_not_found", path="Nope")
        text = vg.app.metrics.render().decode()
    assert 'vaultgate_observe_drops_total{sink="audit"} 1.0' in text
