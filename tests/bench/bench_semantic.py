"""Semantic search speed on the standard workload (or a real vault), through the real SDK client.

Run: `python -m tests.bench.bench_semantic [--notes 10000] [--vault PATH] [--threads N]`.
Against a `vaultgate serve` subprocess with the default embedding model on a copy of the vault:
- full embedding of the vault: chunks, seconds from "index ready" to "every chunk embedded",
  chunks/s (polled through `index_status`), and the seconds to the first vector (the pass chunks
  every note first);
- `search_text` p50/p95 over the generator's queries while the embedding job runs, and idle
  (after it finished);
- `search_semantic`, `search_hybrid` and `find_similar` p50/p95, end to end;
- "edit saved on disk → found by meaning": a note gets a new paragraph and `search_semantic` is
  called with that paragraph until the note is among the first 5 (measured, never asserted);
- server RSS with the model loaded, and its peak (VmHWM) over the cold index and the embedding.
`--vault PATH` measures a real vault instead (full embedding and RSS only; its text queries are
its note titles). `--budget S` stops waiting for the full embedding after S seconds and reports
the measured rate and the extrapolated total instead (labelled as such; the figures that need the
whole vault embedded are then left out). `--idle-first` also measures `search_text` idle before, on
the same vault and index served with embeddings off, for runs whose embedding will not end.
The server's CPU seconds over the embedding and per chunk are reported (the figure that survives
a loaded machine), with the 1-minute load average seen while it ran.
Prints one JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench.bench_search import call, timed
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

POLL_S = 2.0  # index_status polls while the vault embeds (each counts every chunk: not free)

# Edits with a topic far from the workload's (software projects): each is found by its meaning.
EDITS = [
    "Arctic terns migrate from the Arctic to the Antarctic and back every year.",
    "A sourdough starter is a fermented mix of flour and water full of wild yeast.",
    "The violin's sound post transmits vibrations between the top and back plates.",
    "Coral reefs bleach when warm water makes them expel the algae living in their tissue.",
    "Glaciers carve U-shaped valleys as the ice grinds the bedrock beneath it.",
    "Honeybees tell their hive where flowers are by dancing in a figure of eight.",
    "A sundial tells the time from the shadow a gnomon casts in the sunlight.",
    "Octopuses change colour with pigment cells called chromatophores in their skin.",
    "Volcanic ash soils are fertile because the ash weathers into mineral-rich clay.",
    "The Tour de France is a cycling race of three weeks through the mountains of France.",
    "Penguins huddle together to survive the winter storms of Antarctica.",
    "A crème brûlée has a custard base under a layer of caramelised sugar.",
    "Monarch butterflies fly thousands of kilometres to spend the winter in Mexico.",
    "Tides rise and fall because of the gravitational pull of the moon on the oceans.",
    "The harpsichord plucks its strings with quills instead of striking them with hammers.",
    "Camels store fat in their humps and can go for days in the desert without water.",
    "Origami folds a single square sheet of paper into cranes, boats and flowers.",
    "Northern lights appear when charged solar particles hit the upper atmosphere.",
    "Olive trees can live for more than a thousand years on dry Mediterranean hillsides.",
    "A lighthouse keeper once tended the lamp and clockwork of the tower every night.",
]


async def embedding_status(client: Client) -> dict[str, Any]:
    status = await call(client, "index_status", {})
    emb = status.get("embeddings")
    if emb is None:
        raise RuntimeError("embeddings are off on this server")
    return dict(emb)


async def wait_embedded(
    client: Client, budget: float, during: Callable[[], Awaitable[dict[str, float]]] | None = None
) -> dict[str, Any]:
    """Poll index_status until every chunk has its vector (or `budget` seconds passed). `during`,
    if given, is called and awaited once while the job runs (e.g. search calls under load)."""
    t0 = time.perf_counter()
    first: dict[str, Any] | None = None
    out: dict[str, Any] = {}
    loads: list[float] = []
    while True:
        emb = await embedding_status(client)
        now = time.perf_counter() - t0
        loads.append(os.getloadavg()[0])
        out["machine_load_1min"] = {"min": min(loads), "median": statistics.median(loads), "max": max(loads)}
        if emb["state"] == "failed":
            raise RuntimeError(f"embedding failed: {emb.get('error')}")
        if first is None and (emb.get("embedded") or 0) > 0:
            first = {"at_s": now, "embedded": emb["embedded"]}
            # What the pass did before its first vector: chunking every note (and the write).
            out["first_vector_s"] = round(now, 1)
        # "During" means while the model runs: vectors are being written and many are left.
        if during is not None and emb["state"] == "embedding" and 0 < (emb.get("embedded") or 0) < emb["chunks"] // 2:
            out["during_embedding"] = await during()
            during = None
            continue
        if emb["backlog"] == 0 and emb["state"] == "idle" and emb.get("chunks"):
            out.update(complete=True, chunks=emb["chunks"], seconds=round(now, 1))
            out["chunks_per_s"] = round(emb["chunks"] / now, 1) if now else None
            out["minutes"] = round(now / 60, 2)
            return out
        if now > budget:
            done = (emb.get("embedded") or 0) - (first["embedded"] if first else 0)
            span = now - (first["at_s"] if first else 0)
            rate = done / span if span > 0 else 0.0
            total = emb.get("chunks") or 0
            out.update(
                complete=False,
                chunks=total,
                embedded=emb.get("embedded"),
                seconds_measured=round(now, 1),
                chunks_per_s_measured=round(rate, 1),
                extrapolated_minutes=round(total / rate / 60, 1) if rate else None,
            )
            return out
        await asyncio.sleep(POLL_S)


async def edit_to_found(client: Client, root: Path, paths: list[str]) -> tuple[list[float], int]:
    """Seconds from saving a new paragraph into an existing note to search_semantic ranking it
    in the first 5 for that paragraph; also how many edits were never found within 60 s."""
    samples: list[float] = []
    missed = 0
    for rel, sentence in zip(paths, EDITS, strict=False):
        file = root / rel
        before = file.read_text(encoding="utf-8")
        t0 = time.perf_counter()
        file.write_text(before + f"\n\n## Aside\n\n{sentence}\n", encoding="utf-8")
        while True:
            out = await call(client, "search_semantic", {"query": sentence, "limit": 5})
            if any(item["path"] == rel for item in out["items"]):
                samples.append(time.perf_counter() - t0)
                break
            if time.perf_counter() - t0 > 60:
                missed += 1
                break
            await asyncio.sleep(0.02)
    return samples, missed


async def measure(
    url: str, queries: list[str], paths: list[str], root: Path, budget: float, pid: int
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    async with Client(url, mode="legacy", cache=None) as client:
        text_calls = [("search_text", {"query": q, "limit": 10}) for q in queries]

        async def under_load() -> dict[str, float]:
            await timed(client, text_calls)  # warm, as the idle figure is
            samples, _ = await timed(client, text_calls)
            return summary_ms(samples)

        cpu0 = process_cpu_s(pid)
        embedding = await wait_embedded(client, budget, under_load if queries else None)
        cpu = process_cpu_s(pid) - cpu0
        embedded = embedding["chunks"] if embedding["complete"] else embedding.get("embedded") or 0
        embedding["server_cpu_s"] = round(cpu, 1)
        embedding["server_cpu_ms_per_chunk"] = round(cpu / embedded * 1000, 2) if embedded else None
        if embedding["complete"]:  # what two otherwise idle cores would take: the CPU time over both
            embedding["idle_2core_minutes_from_cpu"] = round(cpu / 2 / 60, 1)
        result["search_text_while_embedding"] = embedding.pop("during_embedding", None)
        result["embedding"] = embedding
        result["rss_mb_model_loaded"] = rss_mb(pid)
        # the server's highest resident set since its start: the cold index, then the embedding
        result["peak_rss_mb_index_and_embedding"] = rss_mb(pid, "VmHWM")
        if not queries:
            return result
        if not embedding["complete"]:  # still embedding: no idle figure or search after it to take
            return result
        samples, _ = await timed(client, text_calls)
        result["search_text_idle"] = summary_ms(samples)
        if result["search_text_while_embedding"]:
            result["search_text_p95_ratio_embedding_vs_idle"] = round(
                result["search_text_while_embedding"]["p95_ms"] / result["search_text_idle"]["p95_ms"], 2
            )
        for tool in ("search_semantic", "search_hybrid"):
            calls = [(tool, {"query": q, "limit": 10}) for q in queries]
            await timed(client, calls[:5])
            samples, _ = await timed(client, calls)
            result[tool] = summary_ms(samples)
        sim_calls = [("find_similar", {"path": p, "limit": 10}) for p in paths[: len(queries)]]
        samples, _ = await timed(client, sim_calls)
        result["find_similar"] = summary_ms(samples)
        edits, missed = await edit_to_found(client, root, paths[-len(EDITS) :])
        result["edit_to_found_by_meaning"] = summary_ms(edits)
        result["edit_to_found_by_meaning"]["not_found_within_60s"] = missed
        result["rss_mb_after"] = rss_mb(pid)
    return result


def process_cpu_s(pid: int) -> float:
    """CPU seconds of the whole process so far, every thread, ended ones included (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def idle_before(root: Path, env: dict[str, str], queries: list[str]) -> dict[str, float]:
    """`search_text` on the same vault and index with embeddings off (`provider = "none"`), before
    the measured server starts: the idle figure when the full embedding will not end in the run."""
    server = ServerProcess(vaultgate_argv(root), env={**env, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"})
    try:
        url = server.start()
        await wait_ready(url)
        async with Client(url, mode="legacy", cache=None) as client:
            calls = [("search_text", {"query": q, "limit": 10}) for q in queries]
            await timed(client, calls)
            samples, _ = await timed(client, calls)
            return summary_ms(samples)
    finally:
        server.stop()


async def main(notes: int, vault: Path | None, threads: int | None, budget: float, idle_first: bool) -> None:
    if vault is None:
        source, meta = standard_vault(notes)
        queries = [q["q"] for q in meta["queries"]]
        result: dict[str, Any] = {"vault": f"standard workload, {notes} notes", "queries": len(queries)}
    else:
        source, queries = vault, []
        result = {"vault": vault.name}
    env = dict(BENCH_ENV)
    if threads is not None:
        env["VAULTGATE_EMBEDDINGS__THREADS"] = str(threads)
        result["model_threads"] = threads
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate", ".obsidian", ".git"))
        paths = sorted(str(p.relative_to(root)) for p in root.rglob("*.md"))[:200]
        result["notes_in_vault"] = sum(1 for _ in root.rglob("*.md"))
        if idle_first and queries:
            result["search_text_idle_before"] = await idle_before(root, env, queries)
        server = ServerProcess(vaultgate_argv(root), env=env)
        try:
            url = server.start()
            result["index_ready_s"] = round(await wait_ready(url), 2)
            result.update(await measure(url, queries, paths, root, budget, server.pid))
        finally:
            server.stop()
        during, idle = result.get("search_text_while_embedding"), result.get("search_text_idle_before")
        if during and idle:
            result["search_text_p95_ratio_embedding_vs_idle_before"] = round(during["p95_ms"] / idle["p95_ms"], 2)
    name = "bench_semantic" if vault is None else f"bench_semantic_{vault.name}"
    report(name, result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--vault", type=Path, default=None, help="a real vault instead of the workload")
    parser.add_argument("--threads", type=int, default=None, help="the builtin model's CPU threads")
    parser.add_argument("--budget", type=float, default=3600.0, help="seconds to wait for the full embedding")
    parser.add_argument(
        "--idle-first", action="store_true", help="also measure search_text idle first, on a server with embeddings off"
    )
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.vault, ns.threads, ns.budget, ns.idle_first))
