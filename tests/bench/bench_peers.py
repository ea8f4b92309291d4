"""vaultgate next to peer MCP servers over stdio: start-up, reads, search, freshness and memory.

    python -m tests.bench.bench_peers [--rounds 5] [--reads 50] [--queries 10] [--notes 10000] [--peers DIR] [--src DIR]

Every server is spawned by the same client (the MCP SDK's `Client` over stdio, the era today's
hosts speak: `initialize` first) on the same generated vault (tests/bench/workload.py). Per round
each server is started in turn (the order rotates, so load drifts hit every server alike):
spawn → `initialize` answered, spawn → first `tools/list` answered, spawn → first tool call (a
read) answered, then the same `--reads` notes (typical sizes, around the median) read one after
another (`read`: in vaultgate's case while its start-up work, index check and warm-ups, still
runs beside them), then, after a 3 s pause such as an agent's first turn takes, the same reads
again (`read_steady`), with the peak RSS of the server's process tree sampled every 20 ms. Then,
on the same connection: `--pings` pings (the transport's own round trip, the floor under every
call), `--queries` of the workload's 50 queries (the next ones each round) through each
server's full-text search (10 results where it takes a limit), and one write → searchable: a
new note whose name and body carry a fresh word is written with the server's own tool, then
searched for until a result names it (from the write's start; the note is removed from disk
after the round). mcp-obsidian searches file names only and cannot write: its
search figure is kept, its freshness is not measured. vaultgate's index is built once before the
rounds (cold, from an empty cache: its time and peak RSS are reported as `index_cold`), and
that server runs on until its embedding job has embedded every chunk (`embeddings_settled_s`;
with `--warm` this is all the step does): the rounds start vaultgate warm, as a user's server
that has run before, not one sharing the cores with its first embedding pass.

Peers are the npm packages `obsidian-mcp`, `mcp-obsidian` and `@bitbonsai/mcpvault`, used when
found under `--peers` (default `$VAULTGATE_BENCH_DIR/peers`), installed there with
`npm install --prefix DIR obsidian-mcp mcp-obsidian @bitbonsai/mcpvault` (never into the
repository), and the PyPI package `markdown-vault-mcp` (the one peer with an index: SQLite FTS5,
run in keyword mode without an embedding model) in a virtual environment of its own,
`python -m venv DIR/markdown-vault-mcp && DIR/markdown-vault-mcp/bin/pip install
markdown-vault-mcp`; its index (`DIR/markdown-vault-mcp-index`) is built from nothing before the
rounds with its `index` command (`peers_index_cold`). obsidian-mcp refuses vaults under /tmp:
set `VAULTGATE_BENCH_DIR` elsewhere. `--src DIR` (repeatable) runs vaultgate from another source
tree too (`vaultgate@DIR`), to compare commits in one run. The JSON gives each figure per server
and vaultgate's ratio to the best peer.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.bench.common import BENCH_ENV, WORKDIR, forget_index, percentile, report, standard_vault, summary_ms

ROOT = Path(__file__).resolve().parents[2]
Call = Callable[[str], tuple[str, dict[str, Any]]]
FRESH_LIMIT_S = 30.0
SETTLE_LIMIT_S = 3600.0  # the index and every embedding (~10 min at 10k notes on 2 cores)
STEADY_PAUSE_S = 3.0  # between the reads right after the start and the same reads again


@dataclass
class Server:
    name: str
    command: str
    args: list[str]
    read: Call  # note path -> (tool, arguments)
    search: Call  # query -> (tool, arguments)
    write: Callable[[str, str], tuple[str, dict[str, Any]]] | None = None  # (path, body) -> (tool, arguments)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    samples: dict[str, list[float]] = field(
        default_factory=lambda: {
            k: [] for k in ("initialize", "tools_list", "first_call", "read", "read_steady", "ping", "search", "fresh")
        }
    )
    peak_rss_mb: float = 0.0
    round_peaks_mb: list[float] = field(default_factory=list)  # each round's own peak, in order


def vaultgate(vault: Path, src: Path, name: str = "vaultgate") -> Server:
    env = {**BENCH_ENV, "PYTHONPATH": str(src), "VAULTGATE_LOG__LEVEL": "warning"}
    argv = ["-m", "service", "stdio", str(vault)]
    # cwd: `python -m` finds a `service` package in the current folder before PYTHONPATH.
    return Server(
        name,
        sys.executable,
        argv,
        lambda p: ("read_note", {"path": p}),
        lambda q: ("search_text", {"query": q, "limit": 10}),
        lambda p, body: ("create_note", {"path": p, "content": body}),
        env,
        cwd=str(src),
    )


def peers(vault: Path, folder: Path) -> list[Server]:
    bin_dir = folder / "node_modules" / ".bin"
    table = [
        Server(
            "mcp-obsidian",
            str(bin_dir / "mcp-obsidian"),
            [str(vault)],
            lambda p: ("read_notes", {"paths": [p]}),
            lambda q: ("search_notes", {"query": q}),  # file names only; no write tool
        ),
        Server(
            "obsidian-mcp",
            str(bin_dir / "obsidian-mcp"),
            [str(vault)],
            lambda p: ("read-note", _by_folder(vault, p)),
            lambda q: ("search-vault", {"vault": vault.name, "query": q}),
            lambda p, body: ("create-note", {**_by_folder(vault, p), "content": body}),
        ),
        Server(
            "mcpvault",
            str(bin_dir / "mcpvault"),
            [str(vault)],
            lambda p: ("read_note", {"path": p}),
            lambda q: ("search_notes", {"query": q, "limit": 10}),
            lambda p, body: ("write_note", {"path": p, "content": body}),
        ),
    ]
    table.append(markdown_vault_mcp(vault, folder))
    return [s for s in table if Path(s.command).exists()]


def markdown_vault_mcp(vault: Path, folder: Path) -> Server:
    """The PyPI peer with an index of its own (SQLite FTS5, keyword mode: no embedding model)."""
    env = {"MARKDOWN_VAULT_MCP_SOURCE_DIR": str(vault), "MARKDOWN_VAULT_MCP_INDEX_PATH": str(_mvm_index(folder))}
    return Server(
        "markdown-vault-mcp",
        str(folder / "markdown-vault-mcp" / "bin" / "markdown-vault-mcp"),
        ["serve"],
        lambda p: ("read", {"path": p}),
        lambda q: ("search", {"query": q, "limit": 10, "mode": "keyword"}),
        lambda p, body: ("write", {"path": p, "content": body}),
        env,
    )


def _mvm_index(folder: Path) -> Path:
    return folder / "markdown-vault-mcp-index" / "index.db"


def peer_index_cold(server: Server) -> dict[str, Any]:
    """markdown-vault-mcp's own index built from nothing with its `index` command (the time a
    start waits before its search answers from a full index), and that process's peak RSS."""
    index = Path(server.env["MARKDOWN_VAULT_MCP_INDEX_PATH"])
    shutil.rmtree(index.parent, ignore_errors=True)
    index.parent.mkdir(parents=True)
    t0 = time.perf_counter()
    child = subprocess.Popen(
        [server.command, "index"],
        env={**os.environ, **server.env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    peak_kib = 0
    while child.poll() is None:
        with contextlib.suppress(OSError, ValueError):
            status = Path(f"/proc/{child.pid}/status").read_text()
            hwm = [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")]
            peak_kib = max([peak_kib, *hwm])
        time.sleep(0.1)
    if child.returncode:
        raise RuntimeError(f"{server.name}: index exited {child.returncode}")
    return {"ready_s": round(time.perf_counter() - t0, 2), "peak_rss_mb": round(peak_kib / 1024, 1)}


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
        rss = tree_rss_mb(me)  # this process spawns only the server
        server.peak_rss_mb = max(server.peak_rss_mb, rss)
        if server.round_peaks_mb:
            server.round_peaks_mb[-1] = max(server.round_peaks_mb[-1], rss)
        await asyncio.sleep(0.02)


async def one_round(server: Server, paths: list[str], queries: list[str], pings: int, vault: Path) -> None:
    params = StdioServerParameters(
        command=server.command, args=server.args, env={**os.environ, **server.env}, cwd=server.cwd
    )
    stop = asyncio.Event()
    server.round_peaks_mb.append(0.0)
    sampler = asyncio.create_task(sample_rss(server, stop))
    try:
        t0 = time.perf_counter()
        async with Client(params, mode="legacy") as client:
            t_init = time.perf_counter()
            await client.list_tools()
            t_list = time.perf_counter()
            server.samples["initialize"].append(t_init - t0)
            server.samples["tools_list"].append(t_list - t0)
            for n, path in enumerate(paths[:3]):  # warm-up: first-call costs are the start's, not the read's
                await client.call_tool(*server.read(path))
                if n == 0:
                    server.samples["first_call"].append(time.perf_counter() - t0)
            for path in paths:
                tool, arguments = server.read(path)
                t = time.perf_counter()
                result = await client.call_tool(tool, arguments)
                server.samples["read"].append(time.perf_counter() - t)
                if result.is_error:
                    raise RuntimeError(f"{server.name}: {tool} {path} failed: {result.content}")
            await asyncio.sleep(STEADY_PAUSE_S)  # as an agent's first turn would: start-up work ends
            for path in paths:
                tool, arguments = server.read(path)
                t = time.perf_counter()
                await _call(client, server, tool, arguments)
                server.samples["read_steady"].append(time.perf_counter() - t)
            for _ in range(pings):
                t = time.perf_counter()
                await client.send_ping()
                server.samples["ping"].append(time.perf_counter() - t)
            for query in queries:
                t = time.perf_counter()
                await _call(client, server, *server.search(query))
                server.samples["search"].append(time.perf_counter() - t)
            if server.write is not None:
                fresh = await write_to_searchable(client, server, vault)
                server.samples["fresh"].append(fresh if fresh is not None else float("inf"))
    finally:
        stop.set()
        await sampler


async def _call(client: Client, server: Server, tool: str, arguments: dict[str, Any]) -> str:
    """Call a tool and return the text of its answer; a failed call stops the benchmark."""
    result = await client.call_tool(tool, arguments)
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    if result.is_error:
        raise RuntimeError(f"{server.name}: {tool} {arguments} failed: {text[:300]}")
    return text


async def write_to_searchable(client: Client, server: Server, vault: Path) -> float | None:
    """Seconds from the start of a write of a new note until the server's search names it (None:
    not within `FRESH_LIMIT_S`); the note carries a word found nowhere else in its name and body.
    The file is removed afterwards."""
    assert server.write is not None
    word = "fresh" + "".join(random.choice("bcdfghjklmnpqrstvwxz") for _ in range(10))
    path = f"Bench/{word}.md"
    try:
        t = time.perf_counter()
        await _call(client, server, *server.write(path, f"A note about {word}.\n"))
        while word not in await _call(client, server, *server.search(word)):
            if time.perf_counter() - t > FRESH_LIMIT_S:
                return None
            await asyncio.sleep(0.01)
        return time.perf_counter() - t
    finally:
        (vault / path).unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (vault / path).parent.rmdir()  # only when empty


async def cold_index(server: Server, vault: Path, *, cold: bool) -> dict[str, Any]:
    """Build vaultgate's index (from an empty cache when `cold`) and keep that server running until
    its embedding job has nothing left: the rounds then measure the server a user runs every day,
    not one whose first embedding pass shares the cores with the calls measured."""
    if cold:
        forget_index(vault)
    params = StdioServerParameters(
        command=server.command, args=server.args, env={**os.environ, **server.env}, cwd=server.cwd
    )
    stop = asyncio.Event()
    probe = Server("cold", "", [], server.read, server.search)
    sampler = asyncio.create_task(sample_rss(probe, stop))
    t0 = time.perf_counter()
    try:
        async with Client(params, mode="legacy") as client:
            status = await _wait_status(client, lambda s: bool(s.get("ready")))
            ready = time.perf_counter() - t0
            ready_rss = probe.peak_rss_mb
            status = await _wait_status(client, _settled)
            settled = time.perf_counter() - t0
    finally:
        stop.set()
        await sampler
    out: dict[str, Any] = {"notes": status.get("notes"), "embeddings_settled_s": round(settled, 1)}
    if cold:
        out |= {"ready_s": round(ready, 2), "peak_rss_mb": round(ready_rss, 1)}
    return out


async def _wait_status(client: Client, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.perf_counter() + SETTLE_LIMIT_S
    while True:
        status = (await client.call_tool("index_status", {})).structured_content or {}
        if done(status):
            return status
        if time.perf_counter() > deadline:
            raise TimeoutError(f"vaultgate: not settled within {SETTLE_LIMIT_S:.0f} s: {status}")
        await asyncio.sleep(0.5)


def _settled(status: dict[str, Any]) -> bool:
    """Every chunk embedded (or no embedding model configured)."""
    embeddings = status.get("embeddings")
    if embeddings is None:
        return True
    if embeddings.get("state") == "failed":
        raise RuntimeError(f"vaultgate: embedding failed: {embeddings.get('error')}")
    return embeddings.get("backlog") == 0 and embeddings.get("state") == "idle"


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
        "first_call_ms": round(percentile([s * 1000 for s in server.samples["first_call"]], 50), 1),
        "read": summary_ms(server.samples["read"]),
        "read_steady": summary_ms(server.samples["read_steady"]),
        "ping": summary_ms(server.samples["ping"]),
        "search": summary_ms(server.samples["search"]),
        "search_over_ping_p50": _over(server.samples["search"], server.samples["ping"]),
        "write_to_searchable": _fresh(server.samples["fresh"]),
        "peak_rss_mb": round(server.peak_rss_mb, 1),
        "peak_rss_each_round_mb": [round(p, 1) for p in server.round_peaks_mb],
    }


def _fresh(samples: list[float]) -> dict[str, Any] | None:
    """Write → searchable; a write never found within the limit counts in `missed`, not in the times."""
    if not samples:
        return None
    found = [s for s in samples if s != float("inf")]
    return {**(summary_ms(found) if found else {"n": 0}), "missed": len(samples) - len(found), "limit_s": FRESH_LIMIT_S}


def _over(samples: list[float], floor: list[float]) -> float | None:
    if not samples or not floor:
        return None
    return round(percentile(samples, 50) / percentile(floor, 50), 1)


def ratios(ours: dict[str, Any], others: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """vaultgate's figure over the best peer's (below 1: ahead)."""
    if not others:
        return {}
    picks: dict[str, Callable[[dict[str, Any]], Any]] = {
        "tools_list_ms": lambda f: f["tools_list_ms"],
        "initialize_ms": lambda f: f["initialize_ms"],
        "first_call_ms": lambda f: f["first_call_ms"],
        "read_p50_ms": lambda f: f["read"]["p50_ms"],
        "read_p95_ms": lambda f: f["read"]["p95_ms"],
        "read_steady_p50_ms": lambda f: f["read_steady"]["p50_ms"],
        "search_p50_ms": lambda f: f["search"]["p50_ms"] if f["search"] else None,
        "search_p95_ms": lambda f: f["search"]["p95_ms"] if f["search"] else None,
        "write_to_searchable_p50_ms": lambda f: (f["write_to_searchable"] or {}).get("p50_ms"),
        "peak_rss_mb": lambda f: f["peak_rss_mb"],
    }
    out: dict[str, Any] = {}
    for label, pick in picks.items():
        known = [(n, pick(f)) for n, f in others.items() if pick(f) is not None]
        if not known or pick(ours) is None:
            continue
        best_name, best = min(known, key=lambda item: item[1])
        out[label] = {"best_peer": best_name, "best": best, "ratio": round(pick(ours) / best, 2) if best else None}
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    vault, meta = standard_vault(args.notes)
    paths = typical_notes(meta, args.reads)
    queries = [q["q"] for q in meta["queries"]]
    ours = [vaultgate(vault, ROOT)] + [vaultgate(vault, src, f"vaultgate@{src}") for src in args.src]
    others = peers(vault, args.peers)
    cold = await cold_index(ours[0], vault, cold=not args.warm)
    peers_cold = {s.name: peer_index_cold(s) for s in others if s.name == "markdown-vault-mcp" and not args.warm}
    servers = ours + others
    for r in range(args.rounds):
        shift = r % len(servers)
        for server in servers[shift:] + servers[:shift]:
            picked = [queries[(r * args.queries + i) % len(queries)] for i in range(args.queries)]
            await one_round(server, paths, picked, args.pings, vault)
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
        "queries_per_round": args.queries,
        "index_cold": cold,
        "peers_index_cold": peers_cold,
        "servers": table,
        "vaultgate_vs_best_peer": ratios(table["vaultgate"], {s.name: table[s.name] for s in others}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--queries", type=int, default=10, help="searches per server per round")
    parser.add_argument("--pings", type=int, default=50, help="pings per server per round")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--peers", type=Path, default=WORKDIR / "peers", help="folder of the npm install")
    parser.add_argument("--src", type=Path, action="append", default=[], help="also run vaultgate from this tree")
    parser.add_argument(
        "--warm", action="store_true", help="skip the cold index build (vaultgate still waits for its embeddings)"
    )
    args = parser.parse_args()
    report("bench_peers", asyncio.run(run(args)))


if __name__ == "__main__":
    main()
