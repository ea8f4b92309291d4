"""Foundation benchmark on the standard workload, through the real SDK client over HTTP.

    python -m tests.bench.bench_foundation [--notes 10000] [--calls 300]

Measures: server start → first successful tools/list (cold cache and warm restart), tools/list
latency, read_note p50/p95 at 1 and 16 concurrent clients with calls/s, the same shape against a
bare SDK server started with identical uvicorn settings — an `echo` tool and a `read_raw` tool
returning the same note bytes without vaultgate's pipeline (pipeline overhead with the payload
held equal) —, and the server's RSS. Prints JSON (see tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client

from tests.bench.common import (
    BENCH_ENV,
    ServerProcess,
    report,
    rss_mb,
    standard_vault,
    summary_ms,
    vaultgate_argv,
    wait_ready,
)

Call = Callable[[Client, int], Awaitable[Any]]


async def first_tools_list(server: ServerProcess) -> float:
    url = server.start()
    while True:
        try:
            async with Client(url, mode="legacy", cache=None) as client:
                await client.list_tools()
                return time.perf_counter() - server.t_spawn
        except Exception:  # noqa: BLE001 - keep polling until the server answers
            await asyncio.sleep(0.01)


async def run_clients(url: str, clients: int, calls: int, call: Call, mode: str = "legacy") -> dict[str, Any]:
    samples: list[float] = []
    errors = 0

    async def worker(worker_id: int) -> None:
        nonlocal errors
        async with Client(url, mode=mode, cache=None) as client:  # type: ignore[arg-type]
            await call(client, -1)  # warm the session
            for i in range(calls):
                t0 = time.perf_counter()
                result = await call(client, worker_id * calls + i)
                samples.append(time.perf_counter() - t0)
                if getattr(result, "is_error", False):
                    errors += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(clients)))
    wall = time.perf_counter() - t0
    return {**summary_ms(samples), "clients": clients, "errors": errors, "calls_per_s": round(len(samples) / wall, 1)}


async def main(notes: int, calls: int) -> None:
    vault, meta = standard_vault(notes)
    paths = [n["path"] if isinstance(n, dict) else n for n in meta.get("notes", [])]
    if not paths:
        paths = [p.relative_to(vault).as_posix() for p in vault.rglob("*.md")]
    rng = random.Random(7)
    sample = [rng.choice(paths) for _ in range(calls * 16 + 16)]

    async def read_note(client: Client, i: int) -> Any:
        return await client.call_tool("read_note", {"path": sample[i % len(sample)]})

    async def echo(client: Client, i: int) -> Any:
        return await client.call_tool("echo", {"text": "hello"})

    async def read_raw(client: Client, i: int) -> Any:
        return await client.call_tool("read_raw", {"path": sample[i % len(sample)]})

    async def list_tools(client: Client, i: int) -> Any:
        return await client.list_tools()

    shutil.rmtree(vault / ".vaultgate", ignore_errors=True)
    result: dict[str, Any] = {"notes": notes, "python": sys.version.split()[0]}

    cold = ServerProcess(vaultgate_argv(vault), env=BENCH_ENV)
    try:
        result["start_to_first_tools_list_cold_s"] = round(await first_tools_list(cold), 3)
        result["cold_index_ready_s"] = round(await wait_ready(cold.url), 3)
    finally:
        cold.stop()

    server = ServerProcess(vaultgate_argv(vault), env=BENCH_ENV)
    try:
        result["start_to_first_tools_list_warm_s"] = round(await first_tools_list(server), 3)
        url = server.url
        # Steady state: measure once the background index is complete (it competes for the GIL).
        result["warm_index_ready_s"] = round(await wait_ready(url), 3)
        result["tools_list"] = await run_clients(url, 1, max(50, calls // 3), list_tools)
        result["read_note_1_client"] = await run_clients(url, 1, calls, read_note)
        result["read_note_1_client_auto_mode"] = await run_clients(url, 1, calls // 2, read_note, mode="auto")
        result["read_note_16_clients"] = await run_clients(url, 16, max(20, calls // 8), read_note)
        result["server_rss_mb"] = rss_mb(server.pid)
    finally:
        server.stop()

    echo_server = ServerProcess([sys.executable, "-m", "tests.bench.echo_server", str(vault)])
    try:
        echo_url = echo_server.start()
        result["echo_1_client"] = await run_clients(echo_url, 1, calls, echo)
        result["echo_16_clients"] = await run_clients(echo_url, 16, max(20, calls // 8), echo)
        result["bare_read_1_client"] = await run_clients(echo_url, 1, calls, read_raw)
        result["bare_read_16_clients"] = await run_clients(echo_url, 16, max(20, calls // 8), read_raw)
    finally:
        echo_server.stop()

    for n in ("1_client", "16_clients"):
        for baseline in ("echo", "bare_read"):
            base = result[f"{baseline}_{n}"]["p50_ms"]
            result[f"read_note_vs_{baseline}_p50_overhead_{n}_pct"] = round(
                (result[f"read_note_{n}"]["p50_ms"] / base - 1) * 100, 1
            )
    result["targets"] = {"start_s": 1.0, "read_note_p50_ms_1_client": 5.0, "overhead_vs_echo_pct": 25}
    report("foundation", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.calls))
