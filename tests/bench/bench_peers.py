"""vaultgate next to peer MCP servers over stdio: start-up, reads and memory, side by side.

    python -m tests.bench.bench_peers [--rounds 5] [--reads 50] [--notes 10000] [--peers DIR] [--src DIR]

Every server is spawned by the same client (the MCP SDK's `Client` over stdio, the era today's
hosts speak: `initialize` first) on the same generated vault (tests/bench/workload.py). Per round
each server is started in turn (the order rotates, so load drifts hit every server alike):
spawn → `initialize` answered, spawn → first `tools/list` answered, then the same `--reads` notes
(typical sizes, around the median) read one after another, with the peak RSS of the server's
process tree sampled every 20 ms. vaultgate's index is built once before the rounds (cold, from
an empty cache: its time and peak RSS are reported as `index_cold`); the rounds start it warm.

Peers are the npm packages `obsidian-mcp`, `mcp-obsidian` and `@bitbonsai/mcpvault`, used when
found under `--peers` (default `$VAULTGATE_BENCH_DIR/peers`), installed there with
`npm install --prefix DIR obsidian-mcp mcp-obsidian @bitbonsai/mcpvault` (never into the
repository). obsidian-mcp refuses vaults under /tmp: set `VAULTGATE_BENCH_DIR` elsewhere.
`--src DIR` (repeatable) runs vaultgate from another source tree too (`vaultgate@DIR`), to
compare commits in one run. The JSON gives each figure per server and vaultgate's ratio to the best peer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.bench.common import BENCH_ENV, WORKDIR, forget_index, percentile, report, standard_vault, summary_ms

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Server:
    name: str
    command: str
    args: list[str]
    read: Callable[[str], tuple[str, dict[str, Any]]]  # note path -> (tool, arguments)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    samples: dict[str, list[float]] = field(default_factory=lambda: {"initialize": [], "tools_list": [], "read": []})
    peak_rss_mb: float = 0.0


def vaultgate(vault: Path, src: Path, name: str = "vaultgate") -> Server:
    env = {**BENCH_ENV, "PYTHONPATH": str(src), "VAULTGATE_LOG__LEVEL": "warning"}
    argv = ["-m", "service", "stdio", str(vault)]
    # cwd: `python -m` finds a `service` package in the current folder before PYTHONPATH.
    return Server(name, sys.executable, argv, lambda p: ("read_note", {"path": p}), env, cwd=str(src))


def peers(vault: Path, folder: Path) -> list[Server]:
    bin_dir = folder / "node_modules" / ".bin"
    table = [
        Server("mcp-obsidian", str(bin_dir / "mcp-obsidian"), [str(vault)], lambda p: ("read_notes", {"paths": [p]})),
        Server(
            "obsidian-mcp", str(bin_dir / "obsidian-mcp"), [str(vault)], lambda p: ("read-note", _by_folder(vault, p))
        ),
        Server("mcpvault", str(bin_dir / "mcpvault"), [str(vault)], lambda p: ("read_note", {"path": p})),
    ]
    return [s for s in table if Path(s.command).exists()]


def _by_folder(vault: Path, path: str) -> dict[str, Any]:
    """obsidian-mcp names a note by vault name, file name and folder."""
    folder, _, name = path.rpartition("/")
    return {"vault": vault.name, "filename": name, **({"folder": folder} if folder else {})}


def tree_rss_mb(root: int) -> float:
    """Resident memory of all descendants of a process, itself excluded (from /proc, following
    each thread's `children` list: no scan of every process, so sampling stays cheap)."""
    total, todo = 0, _children(root)
    while todo:
        pid = todo.pop()
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
        todo.extend(_children(pid))
    return total / 1024


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            found += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
    except OSError:
        pass
    return found


async def sample_rss(server: Server, stop: asyncio.Event) -> None:
    me = os.getpid()
    while not stop.is_set():
        server.peak_rss_mb = max(server.peak_rss_mb, tree_rss_mb(me))  # this process spawns only the server
        await asyncio.sleep(0.02)


async def one_round(server: Server, paths: list[str]) -> None:
    params = StdioServerParameters(
        command=server.command, args=server.args, env={**os.environ, **server.env}, cwd=server.cwd
    )
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(server, stop))
    try:
        t0 = time.perf_counter()
        async with Client(params, mode="legacy") as client:
            t_init = time.perf_counter()
            await client.list_tools()
            t_list = time.perf_counter()
            server.samples["initialize"].append(t_init - t0)
            server.samples["tools_list"].append(t_list - t0)
            for path in paths[:3]:  # warm-up: first-call costs are the start's, not the read's
                await client.call_tool(*server.read(path))
            for path in paths:
                tool, arguments = server.read(path)
                t = time.perf_counter()
                result = await client.call_tool(tool, arguments)
                server.samples["read"].append(time.perf_counter() - t)
                if result.is_error:
                    raise RuntimeError(f"{server.name}: {tool} {path} failed: {result.content}")
    finally:
        stop.set()
        await sampler


async def cold_index(server: Server, vault: Path) -> dict[str, Any]:
    forget_index(vault)
    params = StdioServerParameters(
        command=server.command, args=server.args, env={**os.environ, **server.env}, cwd=server.cwd
    )
    stop = asyncio.Event()
    probe = Server("cold", "", [], server.read)
    sampler = asyncio.create_task(sample_rss(probe, stop))
    t0 = time.perf_counter()
    try:
        async with Client(params, mode="legacy") as client:
            while True:
                status = (await client.call_tool("index_status", {})).structured_content or {}
                if status.get("ready"):
                    break
                await asyncio.sleep(0.2)
            ready = time.perf_counter() - t0
    finally:
        stop.set()
        await sampler
    return {"ready_s": round(ready, 2), "peak_rss_mb": round(probe.peak_rss_mb, 1), "notes": status.get("notes")}


def typical_notes(meta: dict[str, Any], k: int, seed: int = 7) -> list[str]:
    """k notes around the median size (the typical read), fixed by the seed."""
    notes = sorted(meta["notes"], key=lambda n: n["bytes"])
    mid = len(notes) // 2
    window = notes[max(0, mid - 5 * k) : mid + 5 * k]
    return [n["path"] for n in random.Random(seed).sample(window, k)]


def figures(server: Server) -> dict[str, Any]:
    return {
        "initialize_ms": round(percentile([s * 1000 for s in server.samples["initialize"]], 50), 1),
        "tools_list_each_ms": [round(s * 1000) for s in server.samples["tools_list"]],
        "tools_list_ms": round(percentile([s * 1000 for s in server.samples["tools_list"]], 50), 1),
        "read": summary_ms(server.samples["read"]),
        "peak_rss_mb": round(server.peak_rss_mb, 1),
    }


def ratios(ours: dict[str, Any], others: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """vaultgate's figure over the best peer's (below 1: ahead)."""
    if not others:
        return {}
    picks = {
        "tools_list_ms": lambda f: f["tools_list_ms"],
        "initialize_ms": lambda f: f["initialize_ms"],
        "read_p50_ms": lambda f: f["read"]["p50_ms"],
        "read_p95_ms": lambda f: f["read"]["p95_ms"],
        "peak_rss_mb": lambda f: f["peak_rss_mb"],
    }
    out: dict[str, Any] = {}
    for label, pick in picks.items():
        best_name, best = min(((n, pick(f)) for n, f in others.items()), key=lambda item: item[1])
        out[label] = {"best_peer": best_name, "best": best, "ratio": round(pick(ours) / best, 2) if best else None}
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    vault, meta = standard_vault(args.notes)
    paths = typical_notes(meta, args.reads)
    ours = [vaultgate(vault, ROOT)] + [vaultgate(vault, src, f"vaultgate@{src}") for src in args.src]
    others = peers(vault, args.peers)
    cold = await cold_index(ours[0], vault) if not args.warm else None
    servers = ours + others
    for r in range(args.rounds):
        shift = r % len(servers)
        for server in servers[shift:] + servers[:shift]:
            await one_round(server, paths)
    table = {s.name: figures(s) for s in servers}
    load = os.getloadavg()
    return {
        "machine": {
            "cpus": os.cpu_count(),
            "load_avg_1_5_15": [round(x, 2) for x in load],
            "python": sys.version.split()[0],
        },
        "vault": {"notes": args.notes, "path": str(vault)},
        "rounds": args.rounds,
        "reads_per_round": args.reads,
        "index_cold": cold,
        "servers": table,
        "vaultgate_vs_best_peer": ratios(table["vaultgate"], {s.name: table[s.name] for s in others}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--peers", type=Path, default=WORKDIR / "peers", help="folder of the npm install")
    parser.add_argument("--src", type=Path, action="append", default=[], help="also run vaultgate from this tree")
    parser.add_argument("--warm", action="store_true", help="skip the cold index build")
    args = parser.parse_args()
    report("bench_peers", asyncio.run(run(args)))


if __name__ == "__main__":
    main()
