"""Index benchmark on the standard workload, through the real SDK client over HTTP.

    python -m tests.bench.bench_index [--notes 10000] [--samples 60]

Measures, on a private copy of the standard vault (other benchmarks share the generated one):
server spawn → `index_status` ready with an empty cache (cold full index; with the peak RSS of
the processes that parse notes beside the writer) and again with the cache in place (warm
restart); "a note saved on disk → visible in the index" (files written directly, not through
vaultgate: half new notes, half edits; the clock stops when `index_status`
shows the change — note count or generation — and each sample is then checked with search_text,
untimed); a `reindex` full and sync job (with the number of progress notifications received);
the server's RSS and peak RSS. Prints JSON (see tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client

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

POLL_S = 0.005


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


def children_peak_rss_mb(pid: int, seen: dict[int, float]) -> None:
    """Record the peak RSS of each child process of `pid` (the parse workers of a bulk load)."""
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            kids = [int(k) for k in task.read_text().split()]
        except OSError:
            continue
        for kid in kids:
            with contextlib.suppress(OSError):
                if b"resource_tracker" in Path(f"/proc/{kid}/cmdline").read_bytes():
                    continue  # multiprocessing's helper, not a parse worker
                seen[kid] = max(seen.get(kid, 0.0), peak_rss_mb(kid))


async def spawn_to_ready(vault: Path, limit_s: float = 900.0) -> tuple[ServerProcess, Client, dict[str, Any]]:
    """Start a server and poll index_status until ready; returns it with the seconds taken, and
    the peak RSS of the worker processes that parsed notes meanwhile (none on a warm start)."""
    server = ServerProcess(vaultgate_argv(vault), env=BENCH_ENV)
    url = server.start()
    client = await connect(url)
    workers: dict[int, float] = {}
    while True:
        current = await status(client)
        elapsed = time.perf_counter() - server.t_spawn
        children_peak_rss_mb(server.pid, workers)
        if current["ready"]:
            return (
                server,
                client,
                {
                    "spawn_to_ready_s": round(elapsed, 3),
                    "notes": current["notes"],
                    "parse_workers": len(workers),
                    "parse_worker_peak_rss_mb": max(workers.values(), default=0.0),
                },
            )
        if elapsed > limit_s:
            raise TimeoutError("index not ready")
        await asyncio.sleep(0.05)


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


async def main(notes: int, samples: int) -> None:
    source, _meta = standard_vault(notes)
    vault = WORKDIR / f"index-bench-{notes}"
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".vaultgate"))
    forget_index(vault)
    result: dict[str, Any] = {"notes": notes, "python": sys.version.split()[0]}
    try:
        server, client, cold = await spawn_to_ready(vault)
        try:
            while not (await status(client))["trigram_ready"]:  # noqa: ASYNC110 - polling another process
                await asyncio.sleep(0.05)
            cold["spawn_to_trigram_prefilter_ready_s"] = round(time.perf_counter() - server.t_spawn, 3)
            result["cold_full_index"] = cold
            result["rss_after_cold_index_mb"] = rss_mb(server.pid)
        finally:
            await client.__aexit__(None, None, None)
            server.stop()

        server, client, warm = await spawn_to_ready(vault)
        try:
            result["warm_restart"] = warm
            result["disk_write_to_index_visible"] = await freshness(client, vault, samples)
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
    finally:
        forget_index(vault)
        shutil.rmtree(vault, ignore_errors=True)
    result["targets"] = {"disk_write_to_index_visible_p95_ms": 300, "rss_mb": 400}
    report("index", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=60)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.samples))
