"""A 2026-07-28 client against a 2025-era one over Streamable HTTP: the SDK's own `Client` in
`mode="auto"` (sessionless, the envelope in every request) and `mode="legacy"` (a session),
`read_note` and `search_text` p50 at the client and server CPU per call, on the standard 10k
workload. Give code roots (a `git worktree` of an older commit, this checkout) to serve each from
its own copy of the code, all up at once and measured in turn, round after round.

    python -m tests.bench.bench_modern_http [--calls 300] [--rounds 3] [ROOT ...]
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from tests.bench.common import (
    percentile,
    report,
    roots_args,
    round_medians,
    served_roots,
    standard_vault,
    thread_cpu_ns,
)

CALLS = {"read_note": None, "search_text": {"query": "garden", "limit": 10}}


async def measure(url: str, pid: int, mode: str, note: str, calls: int) -> dict[str, Any]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    out: dict[str, Any] = {}
    async with httpx2.AsyncClient() as http, Client(streamable_http_client(url, http_client=http), mode=mode) as c:
        for name, args in CALLS.items():
            arguments = args if args is not None else {"path": note}
            for _ in range(20):
                await c.call_tool(name, arguments)
            samples = []
            cpu0 = thread_cpu_ns(pid)
            for _ in range(calls):
                t0 = time.perf_counter()
                result = await c.call_tool(name, arguments)
                samples.append((time.perf_counter() - t0) * 1000)
            assert not result.is_error, result
            cpu = (thread_cpu_ns(pid) - cpu0) / calls / 1e6
            out[name] = {"p50_ms": round(percentile(samples, 50), 3), "server_cpu_ms": round(cpu, 3)}
    return out


async def run(roots: list[str], calls: int, rounds: int) -> dict[str, Any]:
    vault, meta = standard_vault()
    note = meta["notes"][0]["path"]
    runs: dict[str, list[dict[str, Any]]] = {}
    async with served_roots(roots, vault) as servers:
        for _ in range(rounds):
            for root, server, url in servers:
                for mode in ("legacy", "auto"):
                    runs.setdefault(f"{root} {mode}", []).append(await measure(url, server.pid, mode, note, calls))
    return {"calls": calls, "rounds": rounds, "load": os.getloadavg()[0], "medians": round_medians(runs), "runs": runs}


def main() -> None:
    roots, calls, rounds = roots_args(__doc__ or "", calls=300)
    report("modern_http", asyncio.run(run(roots, calls, rounds)))


if __name__ == "__main__":
    main()
