"""Observability overhead: read_note in-process with the observe layer's sinks off and on.

Run: `python -m tests.bench.bench_observe [--notes 200] [--calls 2000]`. One small generated
vault, the full dispatch chain in-process (no HTTP, so the layer's own cost is visible):
- `bare`: audit rows and the CloudEvents spool off (metrics only, always on);
- `audit`: event_log rows + spool (the default);
- `audit+session`: also a workspace session open, so every call is mirrored to a JSONL trace;
- `audit+session+otel`: also a SERVER span per call into an in-memory exporter.
Reports p50/p95 per call (ms) and the events written, after waiting for the writers to drain.
Prints JSON (tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from service.obs.tracing import Tracing
from service.settings import OtelSettings
from tests.bench.common import report, standard_vault, summary_ms
from tests.conftest import started


async def measure(root: Path, paths: list[str], calls: int, variant: str) -> dict[str, Any]:
    overrides: dict[str, Any] = {"throttle": {"enabled": False}}
    if variant == "bare":
        overrides |= {"audit": {"enabled": False}, "events": {"spool": False}}
    async with started(root, **overrides) as vg:
        await vg.indexed()
        if "otel" in variant:
            tracing = Tracing(OtelSettings(), exporter=InMemorySpanExporter())
            vg.app.tracing.provider, vg.app.tracing.tracer = tracing.provider, tracing.tracer
        if "session" in variant:
            await vg.ok("start_session", name="bench")
        await vg.ok("read_note", path=paths[0])
        samples: list[float] = []
        for i in range(calls):
            t0 = time.perf_counter()
            await vg.ok("read_note", path=paths[i % len(paths)])
            samples.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        await vg.app.audit.drained()
        await vg.app.sessions.drained()
        drain_ms = (time.perf_counter() - t0) * 1000
        rows = await vg.app.services.db.fetchone("SELECT count(*) FROM event_log")
        if "session" in variant:
            await vg.ok("end_session")
    return {**summary_ms(samples), "drain_ms": round(drain_ms, 1), "event_log_rows": rows[0]}


async def main(notes: int, calls: int) -> None:
    source, _ = standard_vault(notes)
    paths = sorted(str(p.relative_to(source)) for p in source.rglob("*.md"))[:200]
    result: dict[str, Any] = {"notes": notes, "calls": calls}
    for variant in ("bare", "audit", "audit+session", "audit+session+otel"):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "vault"
            shutil.copytree(source, root)
            result[variant] = await measure(root, paths, calls, variant)
    base = result["bare"]["p50_ms"]
    result["p50_overhead_ms"] = {v: round(result[v]["p50_ms"] - base, 3) for v in result if isinstance(result[v], dict)}
    report("bench_observe", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--calls", type=int, default=2000)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.calls))
