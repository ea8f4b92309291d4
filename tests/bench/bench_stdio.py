"""What one `read_note` costs over stdio: the SDK client against `vaultgate stdio`, this checkout
with the fast path (`[protocol] fast_calls`) on and off and (with `--old DIR`) another source
tree, alternating A B C A B C.

    python -m tests.bench.bench_stdio [--old DIR] [--notes 10000] [--reads 50] [--rounds 6]

Each server runs from its own copy of the standard workload with its own index folder and stays
up for the whole run (one client session each). Once every index is ready and the servers idle,
each round gives each server `--reads` sequential reads of typical notes (the median-sized
window of `bench_peers.typical_notes`, after a warm-up). Recorded per read: the wall time at the
client, the client's own CPU (`time.thread_time`), and the server's CPU over the read
(`thread_cpu_ns`, all its threads: the figure that survives a loaded machine). Reported: medians
per server, and each one's ratio to `--old` (or to the fast path off). Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.bench.bench_peers import typical_notes
from tests.bench.common import BENCH_ENV, WORKDIR, report, standard_vault, thread_cpu_ns

ROOT = Path(__file__).resolve().parents[2]


def _children() -> set[int]:
    found: set[int] = set()
    for tid in os.listdir(f"/proc/{os.getpid()}/task"):
        with contextlib.suppress(OSError):
            found |= {int(c) for c in Path(f"/proc/{os.getpid()}/task/{tid}/children").read_text().split()}
    return found


async def _open(stack: contextlib.AsyncExitStack, name: str, src: Path, source: Path, fast: bool) -> tuple[Any, int]:
    """A client session with a server of `src` on its own copy of `source`; (client, server pid)."""
    home = WORKDIR / f"stdio-{name}"
    shutil.rmtree(home, ignore_errors=True)
    vault = home / "vault"
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".vaultgate"))
    env = {
        **os.environ,
        **BENCH_ENV,
        "PYTHONPATH": str(src),
        "PYTHONSAFEPATH": "1",
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
        "VAULTGATE_LOG__LEVEL": "warning",
    }
    if src == ROOT:  # the setting of this tree
        env["VAULTGATE_PROTOCOL__FAST_CALLS"] = "true" if fast else "false"
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(vault)], env=env)
    before = _children()
    client = await stack.enter_async_context(Client(params, mode="legacy"))
    (pid,) = _children() - before
    for _ in range(3000):  # the 10k index takes well under ten minutes
        if ((await client.call_tool("index_status", {})).structured_content or {}).get("ready"):
            return client, pid
        await asyncio.sleep(0.2)
    raise TimeoutError(f"{name}: the index never became ready")


async def _idle(pid: int, limit_s: float = 300.0) -> None:
    """Until the server spends under 5 % of a core (index follow-up work done)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        cpu0 = thread_cpu_ns(pid)
        await asyncio.sleep(1)
        if thread_cpu_ns(pid) - cpu0 < 50e6:
            return


async def _batch(client: Any, pid: int, paths: list[str]) -> dict[str, list[float]]:
    for path in paths[:10]:
        await client.call_tool("read_note", {"path": path})
    out: dict[str, list[float]] = {"wall": [], "client_cpu": [], "server_cpu": []}
    for path in paths:
        s0, c0, t0 = thread_cpu_ns(pid), time.thread_time(), time.perf_counter()
        result = await client.call_tool("read_note", {"path": path})
        out["wall"].append(time.perf_counter() - t0)
        out["client_cpu"].append(time.thread_time() - c0)
        out["server_cpu"].append((thread_cpu_ns(pid) - s0) / 1e9)
        if result.is_error:
            raise RuntimeError(f"read_note {path} failed: {result.structured_content}")
    return out


async def main(old: Path | None, notes: int, reads: int, rounds: int) -> None:
    source, meta = standard_vault(notes)
    paths = typical_notes(meta, reads)
    sides: dict[str, tuple[Path, bool]] = {"new": (ROOT, True), "new_sdk_path": (ROOT, False)}
    if old is not None:
        sides["old"] = (old, False)
    samples: dict[str, dict[str, list[float]]] = {n: {"wall": [], "client_cpu": [], "server_cpu": []} for n in sides}
    loads = [os.getloadavg()[0]]
    async with contextlib.AsyncExitStack() as stack:
        servers = {name: await _open(stack, name, src, source, fast) for name, (src, fast) in sides.items()}
        for _, pid in servers.values():
            await _idle(pid)
        for r in range(rounds):
            names = list(servers)
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                client, pid = servers[name]
                for key, values in (await _batch(client, pid, paths)).items():
                    samples[name][key].extend(values)
            loads.append(os.getloadavg()[0])
    result: dict[str, Any] = {
        "notes": notes,
        "reads_per_round": reads,
        "rounds": rounds,
        "load_1min": [round(x, 2) for x in loads],
    }
    for name, figures in samples.items():
        result[name] = {f"{key}_p50_ms": round(statistics.median(v) * 1000, 3) for key, v in figures.items()}
    base = "old" if old is not None else "new_sdk_path"
    result["over_" + base] = {
        name: {key: round(result[name][key] / result[base][key], 3) for key in result[name]}
        for name in sides
        if name != base
    }
    if old is not None:
        result["old_src"] = str(old)
    report("stdio", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="also run a server from this source tree, alternating")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    asyncio.run(main(args.old, args.notes, args.reads, args.rounds))
