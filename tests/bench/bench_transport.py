"""What one call costs over Streamable HTTP: `read_note` through the SDK client, in both protocol
eras, on this checkout and (with `--old DIR`) on another source tree, alternating A B A B.

    python -m tests.bench.bench_transport [--old DIR] [--notes 1000] [--calls 200] [--rounds 4]

Each server runs from its own copy of the standard workload with its own index folder. Per round
and era, one client makes `--calls` sequential `read_note` calls (after a warm-up) and the
benchmark records each call's wall time at the client and the server's CPU time over the batch
(`thread_cpu_ns`, summed over its threads: the figure that survives a loaded machine). Reported:
p50 at the client and server CPU per call, per server and era (medians over rounds), and the ratio
of this checkout to `--old`. Also the response content type a plain call got. Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.bench.common import (
    BENCH_ENV,
    WORKDIR,
    ServerProcess,
    percentile,
    report,
    standard_vault,
    thread_cpu_ns,
    vaultgate_argv,
    wait_ready,
)

ROOT = Path(__file__).resolve().parents[2]
ERAS = ("legacy", "auto")


class _Seen:
    """Records the content type of each POST answer the client gets."""

    def __init__(self) -> None:
        self.types: list[str] = []

    async def __call__(self, response: httpx2.Response) -> None:
        if response.request.method == "POST" and response.status_code == 200:
            self.types.append(response.headers.get("content-type", "").split(";")[0])


def _start(name: str, src: Path, source_vault: Path) -> ServerProcess:
    home = WORKDIR / f"transport-{name}"
    shutil.rmtree(home, ignore_errors=True)
    vault = home / "vault"
    shutil.copytree(source_vault, vault, ignore=shutil.ignore_patterns(".vaultgate"))
    env = {
        **BENCH_ENV,
        "PYTHONPATH": str(src),
        "PYTHONSAFEPATH": "1",  # `python -m` would put the working directory (this checkout) first
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
    }
    server = ServerProcess(vaultgate_argv(vault), env=env)
    server.start()
    return server


async def _batch(url: str, pid: int, era: str, paths: list[str], calls: int) -> dict[str, Any]:
    seen = _Seen()
    http = httpx2.AsyncClient(event_hooks={"response": [seen]})
    async with Client(streamable_http_client(url, http_client=http), mode=era, cache=None) as client:
        for path in paths[:20]:  # warm-up: caches, the session, the connection
            await client.call_tool("read_note", {"path": path})
        seen.types.clear()
        walls: list[float] = []
        cpu0 = thread_cpu_ns(pid)
        for i in range(calls):
            t0 = time.perf_counter()
            result = await client.call_tool("read_note", {"path": paths[i % len(paths)]})
            walls.append(time.perf_counter() - t0)
            if result.is_error:
                raise RuntimeError(f"read_note failed: {result.structured_content}")
        cpu = thread_cpu_ns(pid) - cpu0
    return {
        "p50_ms": percentile([w * 1000 for w in walls], 50),
        "cpu_ms_per_call": cpu / calls / 1e6,
        "content_types": sorted(set(seen.types)),
    }


async def main(old: Path | None, notes: int, calls: int, rounds: int) -> None:
    source, _ = standard_vault(notes)
    paths = sorted(p.relative_to(source).as_posix() for p in source.rglob("*.md"))
    random.Random(7).shuffle(paths)
    sides = {"new": ROOT, **({"old": old} if old is not None else {})}
    servers = {name: _start(name, src, source) for name, src in sides.items()}
    samples: dict[str, dict[str, list[dict[str, Any]]]] = {n: {e: [] for e in ERAS} for n in sides}
    try:
        for server in servers.values():
            await wait_ready(server.url)
        for r in range(rounds):
            order = list(servers) if r % 2 == 0 else list(reversed(servers))
            for era in ERAS:
                for name in order:
                    server = servers[name]
                    samples[name][era].append(await _batch(server.url, server.pid, era, paths, calls))
    finally:
        for server in servers.values():
            server.stop()
    result: dict[str, Any] = {"notes": notes, "calls_per_batch": calls, "rounds": rounds, "load": os.getloadavg()[0]}
    for name in sides:
        result[name] = {
            era: {
                "read_p50_ms": round(statistics.median(b["p50_ms"] for b in batches), 3),
                "server_cpu_ms_per_call": round(statistics.median(b["cpu_ms_per_call"] for b in batches), 3),
                "content_types": sorted({t for b in batches for t in b["content_types"]}),
            }
            for era, batches in samples[name].items()
        }
    if old is not None:
        result["old_src"] = str(old)
        result["new_over_old"] = {
            era: {
                key: round(result["new"][era][key] / result["old"][era][key], 3)
                for key in ("read_p50_ms", "server_cpu_ms_per_call")
            }
            for era in ERAS
        }
    report("transport", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="also run a server from this source tree, alternating")
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    asyncio.run(main(args.old, args.notes, args.calls, args.rounds))
