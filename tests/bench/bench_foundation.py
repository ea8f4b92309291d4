"""Foundation benchmark on the standard workload, through the real SDK client over HTTP.

    python -m tests.bench.bench_foundation [--notes 10000] [--calls 300] [--starts 5]

Measures, in one run:

- server start → first successful `tools/list` (spawn of `vaultgate serve` to the answer, the
  client ready beforehand): one cold start (no index yet) and `--starts` warm restarts (median,
  min, max);
- `tools/list` latency; `read_note` p50/p95 at 1 and 16 concurrent clients with calls/s; RSS;
- **pipeline overhead** (the issue's target): the same `echo` tool through vaultgate's full
  chain (`tests/bench/chain_server.py`: HTTP edge, every dispatch layer, audit) against a bare
  SDK server with identical uvicorn settings (`tests/bench/echo_server.py`), at 1 and 16 clients;
- `read_note` against the bare server's `read_raw`, which returns the same note bytes without
  vaultgate (what reading, parsing and the note's metadata add on top of the pipeline).

Each comparison runs both servers side by side and alternates rounds between them, so load from
other programs falls on both sides alike. Prints JSON (see tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.bench.common import (
    BENCH_ENV,
    ServerProcess,
    forget_index,
    report,
    rss_mb,
    standard_vault,
    summary_ms,
    vaultgate_argv,
    wait_ready,
)

Call = Callable[[Client, int], Awaitable[Any]]


async def first_tools_list(server: ServerProcess) -> float:
    """Seconds from spawning the server to the answer of its first tools/list.

    The client's HTTP stack (the very client `Client(url)` would build, whose TLS trust store
    alone takes ~25 ms to load) is set up before the spawn: what is timed is the server."""
    async with create_mcp_http_client() as http:
        url = server.start()
        while True:
            try:
                transport = streamable_http_client(url, http_client=http)
                async with Client(transport, mode="legacy", cache=None) as client:
                    await client.list_tools()
                    return time.perf_counter() - server.t_spawn
            except Exception:  # noqa: BLE001 - keep polling until the server answers
                await asyncio.sleep(0.01)


async def _samples(
    url: str, clients: int, calls: int, call: Call, mode: str = "legacy"
) -> tuple[list[float], float, int]:
    """Per-call latencies of `clients` concurrent sessions making `calls` calls each, the wall
    time of those calls (sessions opened and warmed first, then all released together), errors."""
    samples: list[float] = []
    errors = warmed = 0
    go = asyncio.Event()
    released = 0.0
    ends: list[float] = []

    async def worker(worker_id: int) -> None:
        nonlocal errors, warmed, released
        async with Client(url, mode=mode, cache=None) as client:
            await call(client, -1)  # warm the session (the client also fetches the tool list)
            warmed += 1
            if warmed == clients:
                released = time.perf_counter()
                go.set()
            await go.wait()
            for i in range(calls):
                t0 = time.perf_counter()
                result = await call(client, worker_id * calls + i)
                samples.append(time.perf_counter() - t0)
                if getattr(result, "is_error", False):
                    errors += 1
            ends.append(time.perf_counter())

    await asyncio.gather(*(worker(w) for w in range(clients)))
    return samples, max(ends) - released, errors


def _summary(samples: list[float], wall: float, errors: int, clients: int) -> dict[str, Any]:
    return {**summary_ms(samples), "clients": clients, "errors": errors, "calls_per_s": round(len(samples) / wall, 1)}


async def run_clients(url: str, clients: int, calls: int, call: Call, mode: str = "legacy") -> dict[str, Any]:
    samples, wall, errors = await _samples(url, clients, calls, call, mode)
    return _summary(samples, wall, errors, clients)


async def run_side_by_side(
    sides: dict[str, tuple[str, Call]], clients: int, calls: int, rounds: int = 4
) -> dict[str, dict[str, Any]]:
    """The same load against several servers, alternating rounds (A, B, A, B, …) so that
    whatever else the machine does at the time weighs on every side alike."""
    collected: dict[str, tuple[list[float], float, int]] = {name: ([], 0.0, 0) for name in sides}
    per_round = max(1, calls // rounds)
    for _ in range(rounds):
        for name, (url, call) in sides.items():
            samples, wall, errors = await _samples(url, clients, per_round, call)
            old = collected[name]
            collected[name] = (old[0] + samples, old[1] + wall, old[2] + errors)
    return {name: _summary(s, w, e, clients) for name, (s, w, e) in collected.items()}


def _overhead_pct(measured: dict[str, Any], baseline: dict[str, Any]) -> float:
    return round((float(measured["p50_ms"]) / float(baseline["p50_ms"]) - 1) * 100, 1)


async def main(notes: int, calls: int, starts: int) -> None:
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

    forget_index(vault)
    result: dict[str, Any] = {"notes": notes, "python": sys.version.split()[0]}
    many = max(20, calls // 8)  # calls per client with 16 clients

    # The bare server runs from here on (idle until measured); one tools/list against it first
    # takes the client's own first-use costs out of the cold start below.
    bare = ServerProcess([sys.executable, "-m", "tests.bench.echo_server", str(vault)])
    try:
        bare_url = bare.start()
        await run_clients(bare_url, 1, 1, list_tools)

        cold = ServerProcess(vaultgate_argv(vault), env=BENCH_ENV)
        try:
            result["start_to_first_tools_list_cold_s"] = round(await first_tools_list(cold), 3)
            result["cold_index_ready_s"] = round(await wait_ready(cold.url), 3)
        finally:
            cold.stop()

        warm: list[float] = []
        for _ in range(starts):
            probe = ServerProcess(vaultgate_argv(vault), env=BENCH_ENV)
            try:
                warm.append(round(await first_tools_list(probe), 3))
                await wait_ready(probe.url)  # the next start finds a complete index
            finally:
                probe.stop()
        result["start_to_first_tools_list_warm_s"] = {
            "median": round(statistics.median(warm), 3),
            "min": min(warm),
            "max": max(warm),
            "starts": warm,
        }

        server = ServerProcess(vaultgate_argv(vault), env=BENCH_ENV)
        try:
            url = server.start()
            # Steady state: measure once the background index is complete (it competes for the GIL).
            result["warm_index_ready_s"] = round(await wait_ready(url), 3)
            result["tools_list"] = await run_clients(url, 1, max(50, calls // 3), list_tools)
            for n, per_client in ((1, calls), (16, many)):
                both = await run_side_by_side({"vg": (url, read_note), "bare": (bare_url, read_raw)}, n, per_client)
                suffix = "1_client" if n == 1 else "16_clients"
                result[f"read_note_{suffix}"] = both["vg"]
                result[f"bare_read_{suffix}"] = both["bare"]
            result["read_note_1_client_auto_mode"] = await run_clients(url, 1, calls // 2, read_note, mode="auto")
            result["server_rss_mb"] = rss_mb(server.pid)
            server.stop()

            chain = ServerProcess([sys.executable, "-m", "tests.bench.chain_server", str(vault)], env=BENCH_ENV)
            try:
                chain_url = chain.start()
                await wait_ready(chain_url)
                for n, per_client in ((1, calls), (16, many)):
                    both = await run_side_by_side({"chain": (chain_url, echo), "bare": (bare_url, echo)}, n, per_client)
                    suffix = "1_client" if n == 1 else "16_clients"
                    result[f"chain_echo_{suffix}"] = both["chain"]
                    result[f"bare_echo_{suffix}"] = both["bare"]
            finally:
                chain.stop()
        finally:
            server.stop()
    finally:
        bare.stop()

    for suffix in ("1_client", "16_clients"):
        # The figure: the same tool through the full pipeline vs a bare SDK server.
        result[f"pipeline_overhead_p50_{suffix}_pct"] = _overhead_pct(
            result[f"chain_echo_{suffix}"], result[f"bare_echo_{suffix}"]
        )
        # What read_note costs beyond moving the same bytes through a bare SDK tool.
        result[f"read_note_vs_bare_read_p50_{suffix}_pct"] = _overhead_pct(
            result[f"read_note_{suffix}"], result[f"bare_read_{suffix}"]
        )
    targets = {"start_s": 1.0, "read_note_p50_ms_1_client": 5.0, "pipeline_overhead_pct": 25}
    result["targets"] = targets
    result["targets_met"] = {
        "start (warm median)": result["start_to_first_tools_list_warm_s"]["median"] <= targets["start_s"],
        "read_note_p50_1_client": result["read_note_1_client"]["p50_ms"] <= targets["read_note_p50_ms_1_client"],
        "pipeline_overhead_1_client": result["pipeline_overhead_p50_1_client_pct"] <= targets["pipeline_overhead_pct"],
        "pipeline_overhead_16_clients": result["pipeline_overhead_p50_16_clients_pct"]
        <= targets["pipeline_overhead_pct"],
    }
    report("foundation", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--starts", type=int, default=5, help="warm restarts timed to the first tools/list")
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.calls, ns.starts))
