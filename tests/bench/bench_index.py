"""Index benchmark on the standard workload, through the real SDK client over HTTP.

    python -m tests.bench.bench_index [--notes 10000 | --size 100k] [--samples 60] [--no-reindex]
        [--cold-only] [--src DIR] [--write-during-cold]

Measures, on a private copy of the standard vault (other benchmarks share the generated one):
server spawn → `index_status` ready with an empty cache (cold full index; with the peak RSS of
the processes that parse notes beside the writer and the server's CPU seconds until ready) and
again with the cache in place (warm restart, and spawn → the first `search_text` answered);
"a note saved on disk → visible in the index" (files written directly, not through
vaultgate: half new notes, half edits; the clock stops when `index_status`
shows the change — note count or generation — and each sample is then checked with search_text,
untimed); whole-vault queries (`list_notes`, `get_backlinks` of the most linked note,
`query_base` and a Dataview `TABLE … WHERE` over every note, `search_text`), p50 over
`--samples` calls each; a `reindex` full and sync job (with the number of progress
notifications received; `--no-reindex` leaves them out, minutes at 100k notes); the server's
RSS and peak RSS. Prints JSON (see tests/bench/common.py).

The embedding provider is off (`none`): these are the text index's figures, with no embedding
job sharing the cores. `index_status` is polled every 50 ms until the index is ready, then every
1.5 s until the trigram prefilter is: its rebuild starts at the first 1 s pause in the calls (or
after 60 s whatever they do), and earlier runs, polling every 50 ms, counted up to a minute of
that wait.

`--cold-only` stops after the cold index (ready, then the trigram prefilter; ~1.5 min at 100k
instead of ~3), for comparing trees; `--src DIR` runs the server (and its parse workers) from
another source tree, e.g. a `git worktree` of an older commit: run both alternately.
`--write-during-cold` creates a note (a word of its own) once a quarter of the cold load is
stored, and searches that word at each poll until found: `write_during_cold` says how long after
the write, and whether before the index was ready (a write during a first index, `early.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.bench_bases import PROPERTY_FILTER, cpu_seconds
from tests.bench.common import (
    BENCH_ENV,
    WORKDIR,
    ServerProcess,
    forget_index,
    report,
    rss_mb,
    standard_vault,
    summary_ms,
    vaultgate_argv,
)
from tests.bench.workload import SIZES
from tests.bench.workload_words import STATUSES

POLL_S = 0.005
# Slower than the server's pause (`service.activity.QUIET_S`, 1 s): the trigram rebuild waits for
# a pause in the calls, and polling faster held it back by up to a minute (TRIGRAM_WAIT_S).
TRIGRAM_POLL_S = 1.5
TEXT_ONLY = BENCH_ENV | {"VAULTGATE_EMBEDDINGS__PROVIDER": "none"}


def peak_rss_mb(pid: int) -> float:
    match = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return round(int(match.group(1)) / 1024, 1) if match else float("nan")


async def status(client: Client) -> dict[str, Any]:
    result = await client.call_tool("index_status", {})
    assert not result.is_error and result.structured_content is not None, result
    return result.structured_content


async def connect(url: str, limit_s: float = 60.0) -> Client:
    deadline = time.monotonic() + limit_s
    while True:
        client = Client(url, mode="legacy", cache=None)
        try:
            await client.__aenter__()
            return client
        except Exception:  # noqa: BLE001 - the server may not accept sessions yet
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.01)


def children_peak_rss_mb(
    pid: int, seen: dict[int, float], helpers: dict[int, float] | None = None, cpu: dict[int, float] | None = None
) -> None:
    """Record the peak RSS of each child process of `pid` (the parse workers of a bulk load), and
    in `cpu` the CPU seconds each used so far; multiprocessing's resource tracker goes to
    `helpers` (it lives as long as the server)."""
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            kids = [int(k) for k in task.read_text().split()]
        except OSError:
            continue
        for kid in kids:
            with contextlib.suppress(OSError):
                if b"resource_tracker" in Path(f"/proc/{kid}/cmdline").read_bytes():
                    if helpers is not None:  # multiprocessing's helper, not a parse worker
                        helpers[kid] = max(helpers.get(kid, 0.0), peak_rss_mb(kid))
                    continue
                seen[kid] = max(seen.get(kid, 0.0), peak_rss_mb(kid))
                if cpu is not None:
                    cpu[kid] = cpu_seconds(kid)


async def spawn_to_ready(
    vault: Path,
    limit_s: float = 900.0,
    poll_s: float = 0.05,
    env: dict[str, str] | None = None,
    write_during: bool = False,
) -> tuple[ServerProcess, Client, dict[str, Any]]:
    """Start a server and poll index_status every `poll_s` until ready; returns it with the
    seconds taken, and the peak RSS of the worker processes that parsed notes meanwhile (none on a
    warm start). Each poll costs the server and this client a few CPU-ms: at 50 ms during a 100k
    cold index, on 2 cores both busy with the load, that is CPU the load does not get.
    `write_during`: once a quarter of the load is stored, create a note holding a word of its own
    and search it at each poll until found (`write_during_cold`: how long after the write, and
    whether before ready)."""
    server = ServerProcess(vaultgate_argv(vault), env=env or TEXT_ONLY)
    url = server.start()
    client = await connect(url)
    first: dict[str, Any] = {}
    while True:
        found = await client.call_tool("search_text", {"query": "project", "limit": 5})
        if not found.is_error:
            first["spawn_to_first_search_s"] = round(time.perf_counter() - server.t_spawn, 3)
            first["first_search_partial"] = (found.structured_content or {}).get("partial")
            break
    workers: dict[int, float] = {}
    helpers: dict[int, float] = {}
    worker_cpu: dict[int, float] = {}
    loading = False  # a backlog seen: the load's batches are being written
    stored: dict[str, float] = {}
    most = 0  # the largest backlog seen
    written: dict[str, Any] = {}
    while True:
        current = await status(client)
        elapsed = time.perf_counter() - server.t_spawn
        children_peak_rss_mb(server.pid, workers, helpers, worker_cpu)
        loading = loading or current.get("backlog", 0) > 0
        most = max(most, current.get("backlog", 0))
        if write_during and loading and not written and current["backlog"] <= most * 3 // 4:
            written = await write_now(client, current)
        if written and "found_after_write_s" not in written:
            await found_yet(client, written)
        if loading and not current.get("backlog") and not stored:
            # The last batch written (to a poll's precision): what follows until ready is the
            # tail the bulk load's deferrals leave (issue 39), less noisy than the whole figure.
            stored = {"spawn_to_last_batch_s": round(elapsed, 3)}
        if current["ready"]:
            if stored:
                stored["last_batch_to_ready_s"] = round(elapsed - stored["spawn_to_last_batch_s"], 3)
            return (
                server,
                client,
                {
                    "spawn_to_ready_s": round(elapsed, 3),
                    "server_cpu_s_to_ready": round(cpu_seconds(server.pid), 1),
                    **first,
                    **stored,
                    "notes": current["notes"],
                    "parse_workers": len(workers),
                    # as last seen by a poll (a worker's last batch or two may be missing)
                    "parse_worker_cpu_s": round(sum(worker_cpu.values()), 1),
                    "parse_worker_peak_rss_mb": max(workers.values(), default=0.0),
                    # The server's peak is read at the end of the cold index (with the trigram
                    # rebuild); the tree's peak adds these to it (an upper bound: peaks summed).
                    "resource_tracker_peak_rss_mb": max(helpers.values(), default=0.0),
                    **({"write_during_cold": written} if written else {}),
                },
            )
        if elapsed > limit_s:
            raise TimeoutError("index not ready")
        await asyncio.sleep(poll_s)


WRITTEN_TOKEN = "zqxwritten"


async def write_now(client: Client, current: dict[str, Any]) -> dict[str, Any]:
    """A note created during the cold index (`spawn_to_ready`'s `write_during`)."""
    t0 = time.perf_counter()
    made = await client.call_tool("create_note", {"path": "Written during load", "content": f"{WRITTEN_TOKEN}\n"})
    assert not made.is_error, made
    return {"t0": t0, "backlog_at_write": current["backlog"], "write_ms": round((time.perf_counter() - t0) * 1000, 1)}


async def found_yet(client: Client, written: dict[str, Any]) -> None:
    """Whether the note `write_now` made is found yet; the answer that finds it says whether the
    index was still being built (`partial`)."""
    found = await client.call_tool("search_text", {"query": WRITTEN_TOKEN})
    if (found.structured_content or {}).get("items"):
        written["found_after_write_s"] = round(time.perf_counter() - written.pop("t0"), 3)
        written["found_before_ready"] = (found.structured_content or {}).get("partial") is True


async def freshness(client: Client, vault: Path, samples: int) -> dict[str, Any]:
    """Seconds from a file written on disk to index_status reflecting it."""
    existing = sorted(await asyncio.to_thread(lambda: [p for p in vault.rglob("*.md") if ".vaultgate" not in p.parts]))
    existing = existing[:samples]
    created: list[float] = []
    modified: list[float] = []
    missed = 0
    for i in range(samples):
        token = f"freshtoken{i}x{int(time.time())}"
        before = await status(client)
        if i % 2 == 0:
            target = vault / "Fresh" / f"fresh-{i}.md"
            target.parent.mkdir(exist_ok=True)
            text = f"# Fresh {i}\n\n{token} links [[Home]] #fresh\n"
        else:
            target = existing[i]
            text = target.read_text(encoding="utf-8") + f"\n{token}\n"
        t0 = time.perf_counter()
        target.write_text(text, encoding="utf-8")
        while True:
            now = await status(client)
            seen = now["notes"] > before["notes"] if i % 2 == 0 else now["generation"] > before["generation"]
            if seen:
                break
            if time.perf_counter() - t0 > 30:
                raise TimeoutError(f"{target} never reached the index")
            await asyncio.sleep(POLL_S)
        (created if i % 2 == 0 else modified).append(time.perf_counter() - t0)
        found = await client.call_tool("search_text", {"query": token})
        items = (found.structured_content or {}).get("items", [])
        if not any(item["path"] == target.relative_to(vault).as_posix() for item in items):
            missed += 1
    return {
        "all": summary_ms(created + modified),
        "new_note": summary_ms(created),
        "edited_note": summary_ms(modified),
        "not_found_by_search_after_visible": missed,
        "poll_interval_ms": POLL_S * 1000,
    }


def most_linked(vault: Path) -> str:
    """The note with the most backlinks (read from the index file, not timed)."""
    from service.settings import load_settings

    path = load_settings(vault).cache_dir() / "cache.db"
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        row = conn.execute(
            "SELECT target_path FROM links WHERE target_path IS NOT NULL GROUP BY target_path ORDER BY count(*) DESC"
            " LIMIT 1"
        ).fetchone()
    return str(row[0])


async def whole_vault(client: Client, vault: Path, samples: int) -> dict[str, Any]:
    """p50 of queries whose work grows with the vault (issue 39): the first call of each is a
    warm-up (it may build a query image) and is reported apart."""
    hub = most_linked(vault)
    base = PROPERTY_FILTER.replace("STATUS", STATUSES[1])
    queries: dict[str, tuple[str, dict[str, Any]]] = {
        "list_notes": ("list_notes", {"limit": 50}),
        "get_backlinks_hub": ("get_backlinks", {"path": hub, "limit": 50}),
        "query_base_status": ("query_base", {"yaml": base, "limit": 50}),
        "dataview_table_where": (
            "search_dql",
            {"query": f'TABLE status, priority WHERE status = "{STATUSES[1]}" SORT file.name', "limit": 50},
        ),
        "search_text": ("search_text", {"query": "project plan", "limit": 10}),
    }
    out: dict[str, Any] = {"hub": hub}
    for name, (tool, args) in queries.items():
        t0 = time.perf_counter()
        first = await client.call_tool(tool, args)
        warm_up = time.perf_counter() - t0
        assert not first.is_error, (name, first)
        times = []
        for _ in range(samples):
            t0 = time.perf_counter()
            result = await client.call_tool(tool, args)
            times.append(time.perf_counter() - t0)
            assert not result.is_error, (name, result)
        content = result.structured_content or {}
        out[name] = {
            "first_call_ms": round(warm_up * 1000, 1),
            "total": content.get("total"),
            **summary_ms(times),
        }
    return out


async def reindex(client: Client, mode: str) -> dict[str, Any]:
    updates: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append(progress)

    t0 = time.perf_counter()
    result = await client.call_tool("reindex", {"mode": mode}, progress_callback=on_progress)
    elapsed = time.perf_counter() - t0
    assert not result.is_error and result.structured_content is not None, result
    job = result.structured_content["job"]
    return {
        "seconds": round(elapsed, 3),
        "status": job["status"],
        "result": job["result"],
        "progress_notifications": len(updates),
    }


async def warm_phase(vault: Path, env: dict[str, str], samples: int, with_reindex: bool) -> dict[str, Any]:
    """A restart on the index the cold run left: its first search, saves, whole-vault queries."""
    result: dict[str, Any] = {}
    server, client, warm = await spawn_to_ready(vault, env=env)
    try:
        result["warm_restart"] = warm
        result["disk_write_to_index_visible"] = await freshness(client, vault, samples)
        result["whole_vault_queries"] = await whole_vault(client, vault, samples)
        if with_reindex:
            result["reindex_sync"] = await reindex(client, "sync")
            result["reindex_full"] = await reindex(client, "full")
        final = await status(client)
        result["final_status"] = {
            k: final[k] for k in ("notes", "health", "tags", "tasks", "headings", "links", "generation")
        }
        result["server_rss_mb"] = rss_mb(server.pid)
        result["server_peak_rss_mb"] = peak_rss_mb(server.pid)
    finally:
        await client.__aexit__(None, None, None)
        server.stop()
    return result


async def main(
    notes: int,
    samples: int,
    with_reindex: bool = True,
    cold_poll_s: float = 0.05,
    cold_only: bool = False,
    src: Path | None = None,
    write_during: bool = False,
) -> None:
    started = time.perf_counter()
    # PYTHONSAFEPATH: `python -m` would put the working directory (this checkout) first.
    env = TEXT_ONLY | ({"PYTHONPATH": str(src), "PYTHONSAFEPATH": "1"} if src is not None else {})
    source, _meta = standard_vault(notes)
    vault = WORKDIR / f"index-bench-{notes}"
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".vaultgate"))
    forget_index(vault)
    result: dict[str, Any] = {
        "notes": notes,
        "python": sys.version.split()[0],
        "server_src": str(src) if src is not None else "this checkout",
    }
    try:
        server, client, cold = await spawn_to_ready(vault, poll_s=cold_poll_s, env=env, write_during=write_during)
        cold["poll_interval_s"] = cold_poll_s
        try:
            while not (await status(client))["trigram_ready"]:  # noqa: ASYNC110 - polling another process
                await asyncio.sleep(TRIGRAM_POLL_S)
            cold["spawn_to_trigram_prefilter_ready_s"] = round(time.perf_counter() - server.t_spawn, 3)
            cold["server_peak_rss_mb"] = peak_rss_mb(server.pid)
            cold["tree_peak_rss_mb_upper_bound"] = round(
                cold["server_peak_rss_mb"] + cold["parse_worker_peak_rss_mb"] + cold["resource_tracker_peak_rss_mb"], 1
            )
            result["cold_full_index"] = cold
            result["rss_after_cold_index_mb"] = rss_mb(server.pid)
            result["load_average_after_cold_index"] = os.getloadavg()
        finally:
            await client.__aexit__(None, None, None)
            server.stop()
        if not cold_only:
            result |= await warm_phase(vault, env, samples, with_reindex)
    finally:
        forget_index(vault)
        shutil.rmtree(vault, ignore_errors=True)
    result["run_s"] = round(time.perf_counter() - started, 1)
    result["load_average"] = os.getloadavg()
    result["targets"] = {
        "disk_write_to_index_visible_p95_ms": 300,
        "rss_mb": 400,
        "cold_index_s_at_100k": 60,
        "cold_index_peak_rss_mb_at_100k": 350,
        "warm_restart_to_first_search_s": 1,
    }
    name = "index" if notes == 10_000 else f"index_{notes}"
    report(name + "_cold" if cold_only else name, result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--size", choices=sorted(SIZES), help="a named workload size (overrides --notes)")
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--no-reindex", action="store_true", help="leave out the reindex jobs")
    parser.add_argument(
        "--cold-poll-s", type=float, default=0.05, help="index_status poll interval during the cold index"
    )
    parser.add_argument("--cold-only", action="store_true", help="stop after the cold index and its trigram rebuild")
    parser.add_argument("--src", type=Path, help="run the server from this source tree (a worktree of an old commit)")
    parser.add_argument(
        "--write-during-cold", action="store_true", help="create a note a quarter into the cold index; time its search"
    )
    ns = parser.parse_args()
    notes = SIZES[ns.size] if ns.size else ns.notes
    src = ns.src.resolve() if ns.src is not None else None
    asyncio.run(main(notes, ns.samples, not ns.no_reindex, ns.cold_poll_s, ns.cold_only, src, ns.write_during_cold))
