"""The SDK's own `Client` over stdio in `mode="legacy"` (an `initialize` handshake) and in its default
`mode="auto"` (2026-07-28 against vaultgate): a listed tool (`search_text`) and tools the lean list
does not show (`note_info`, `query_base`: the client lists the tools again before each such call, to
check its answer against the tool's output schema), p50 at the client and the server's CPU per call,
on the standard 10k workload. Give code roots (a `git worktree` of an older commit, this checkout)
to serve each from its own copy of the code; the servers are all up at once and measured in turn,
round after round.

    python -m tests.bench.bench_stdio_modes [--calls 200] [--rounds 3] [ROOT ...]

Each server has its own index folder (`VAULTGATE_BENCH_DIR`/stdio-modes-N-MODE) over the same vault
(read-only calls). Prints JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.bench.bench_bases import PROPERTY_FILTER
from tests.bench.bench_stdio import _children, _idle
from tests.bench.common import (
    BENCH_ENV,
    WORKDIR,
    percentile,
    report,
    roots_args,
    round_medians,
    standard_vault,
    thread_cpu_ns,
)
from tests.bench.workload_words import STATUSES

MODES = ("legacy", "auto")


def calls(note: str) -> dict[str, dict[str, Any]]:
    return {
        "search_text": {"query": "garden", "limit": 10},
        "note_info": {"path": note},
        "query_base": {"yaml": PROPERTY_FILTER.replace("STATUS", STATUSES[1]), "limit": 50},
    }


async def _open(stack: contextlib.AsyncExitStack, n: int, root: str, vault: Path, mode: str) -> tuple[Any, int]:
    home = WORKDIR / f"stdio-modes-{n}-{mode}"
    env = {
        **os.environ,
        **BENCH_ENV,
        "PYTHONPATH": root,
        "PYTHONSAFEPATH": "1",  # `-m` would put the working folder (maybe another checkout) first
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
        "VAULTGATE_LOG__LEVEL": "warning",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(vault)], env=env)
    before = _children()
    client = await stack.enter_async_context(Client(params, mode=mode))  # type: ignore[arg-type]
    (pid,) = _children() - before
    for _ in range(3000):
        if ((await client.call_tool("index_status", {})).structured_content or {}).get("ready"):
            return client, pid
        await asyncio.sleep(0.2)
    raise TimeoutError(f"{root} {mode}: the index never became ready")


async def measure(client: Any, pid: int, table: dict[str, dict[str, Any]], n: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, arguments in table.items():
        for _ in range(10):
            await client.call_tool(name, arguments)
        samples = []
        cpu0 = thread_cpu_ns(pid)
        for _ in range(n):
            t0 = time.perf_counter()
            result = await client.call_tool(name, arguments)
            samples.append((time.perf_counter() - t0) * 1000)
        if result.is_error:
            raise RuntimeError(f"{name}: {result.structured_content}")
        cpu = (thread_cpu_ns(pid) - cpu0) / n / 1e6
        out[name] = {"p50_ms": round(percentile(samples, 50), 3), "server_cpu_ms": round(cpu, 3)}
    return out


async def run(roots: list[str], n: int, rounds: int) -> dict[str, Any]:
    vault, meta = standard_vault()
    table = calls(meta["notes"][0]["path"])
    loads = [os.getloadavg()[0]]
    runs: dict[str, list[dict[str, Any]]] = {}
    async with contextlib.AsyncExitStack() as stack:
        servers = {}
        for i, root in enumerate(roots):
            for mode in MODES:
                servers[f"{root} {mode}"] = await _open(stack, i, root, vault, mode)
        for _, pid in servers.values():
            await _idle(pid)
        for _ in range(rounds):
            for key, (client, pid) in servers.items():
                runs.setdefault(key, []).append(await measure(client, pid, table, n))
            loads.append(os.getloadavg()[0])
    return {
        "calls": n,
        "rounds": rounds,
        "load_1min": [round(x, 2) for x in loads],
        "medians": round_medians(runs),
        "runs": runs,
    }


def main() -> None:
    roots, n, rounds = roots_args(__doc__ or "", calls=200)
    report("stdio_modes", asyncio.run(run(roots, n, rounds)))


if __name__ == "__main__":
    main()
