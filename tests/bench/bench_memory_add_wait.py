"""Benchmark: another client's longest wait while one add_observations brings much text.

Two SDK clients over real HTTP on one server: A adds 1,000 observations of ~3,000 characters
(500 words from a 3,000-word vocabulary, as bench_similar) to an entity holding `--had` such; B
calls read_note in a loop meanwhile. Prints JSON: A's seconds, B's calls, longest wait and median
during A's call, the load. `--tree` runs the server from another checkout (an old commit's
worktree; `python -P`, PYTHONPATH=tree), so old and new can be alternated in one session."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client

from tests.bench.common import BENCH_ENV, ServerProcess, wait_ready


def texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(3000)]
    return [" ".join(rng.choice(words) for _ in range(500))[:3000] for _ in range(n)]


async def run(tree: Path, had: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="vg-add-wait-") as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        for i in range(20):
            (vault / f"Note {i}.md").write_text(f"# Note {i}\n\nbody {i}\n")
        env = BENCH_ENV | {
            "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
            "XDG_CACHE_HOME": f"{tmp}/cache",
            "XDG_DATA_HOME": f"{tmp}/data",
            "PYTHONPATH": str(tree),
        }
        server = ServerProcess([sys.executable, "-P", "-m", "service", "serve", str(vault), "--port", "0"], env=env)
        try:
            server.start()
            await wait_ready(server.url)
            return await _measure(server.url, had)
        finally:
            server.stop()


async def _measure(url: str, had: int) -> dict[str, object]:
    old, new = texts(2, had), texts(1, 1000)
    async with Client(url, mode="legacy", cache=None) as big, Client(url, mode="legacy", cache=None) as other:
        await big.call_tool("create_entities", {"entities": [{"name": "Big", "entityType": "t", "observations": []}]})
        if had:
            await big.call_tool("add_observations", {"observations": [{"entityName": "Big", "contents": old}]})
        for _ in range(20):
            await other.call_tool("read_note", {"path": "Note 1"})
        done = asyncio.Event()
        waits: list[float] = []

        async def reader() -> None:
            while not done.is_set():
                started = time.perf_counter()
                answer = await other.call_tool("read_note", {"path": "Note 1"})
                assert not answer.is_error
                waits.append(time.perf_counter() - started)

        task = asyncio.create_task(reader())
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        answer = await big.call_tool("add_observations", {"observations": [{"entityName": "Big", "contents": new}]})
        took = time.perf_counter() - started
        done.set()
        await task
        assert not answer.is_error and answer.structured_content is not None
        result = answer.structured_content["results"][0]
        return {
            "had": had,
            "add_s": round(took, 3),
            "added": result["added"],
            "similar": result["similar"],
            "reader_calls": len(waits),
            "reader_max_wait_s": round(max(waits), 3),
            "reader_p50_ms": round(statistics.median(waits) * 1000, 1),
            "load1": round(os.getloadavg()[0], 2),
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--had", type=int, default=1000)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.tree.resolve(), args.had))))


if __name__ == "__main__":
    main()
