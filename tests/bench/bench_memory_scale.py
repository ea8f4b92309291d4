"""Memory at scale: the standard workload plus 20,000 observations, over HTTP with the SDK client.

    python -m tests.bench.bench_memory_scale [--vault-notes 10000] [--observations 20000]
        [--entities 400] [--n 200] [--embeddings none|builtin]

A vault of `--vault-notes` notes from the standard workload generator gets `--entities`
entities holding `--observations` observations in all (sentences over a seeded vocabulary,
written through `add_observations`, 50 a call). A real server (uvicorn, in process, owning the
process's garbage collector as `vaultgate serve` does: `service.collector`) is then measured with
the SDK's Streamable HTTP client:
- `search_memory` p50/p95 over `--n` queries of two to four words from the observations;
- `add_observations` of one observation to a random entity (`--n` calls);
- how long a new observation takes to be found by `search_memory` (its own rare word);
- with `--consolidate`, a full consolidation run (issue 40: <= 2 min of CPU, calls p95 <= 2x idle,
  memory <= +150 MB): its CPU and wall time, RSS before and after, search_memory meanwhile;
- 32 agents adding observations to one entity at once (8 each, plain JSON-RPC over HTTP from a
  process of their own): latency, none lost or doubled.
With `--embeddings builtin` the observations' vectors are computed first (the time is reported)
and searches rank by meaning too; the vault's own notes are then embedded in the background as
well, so use a small `--vault-notes` there. Issue 37's targets (10k notes + 20k observations):
search p50 <= 25 ms, add p50 <= 30 ms, found within 1 s (p95), 32 agents p95 <= 150 ms. Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import time
from asyncio.subprocess import PIPE
from typing import Any

from tests.bench.common import WORKDIR, report, summary_ms

WORDS = [
    "river",
    "garden",
    "budget",
    "launch",
    "painting",
    "concert",
    "hiking",
    "pottery",
    "camping",
    "running",
    "violin",
    "chess",
    "museum",
    "harbor",
    "recipe",
    "bakery",
    "station",
    "library",
    "festival",
    "workshop",
    "meeting",
    "contract",
    "invoice",
    "travel",
    "airport",
    "mountain",
    "forest",
    "lake",
    "sunrise",
    "dinner",
    "birthday",
    "school",
    "teacher",
    "doctor",
    "therapy",
    "adoption",
    "mentor",
    "shelter",
    "volunteer",
    "project",
    "deadline",
    "release",
    "design",
    "review",
    "migration",
    "database",
    "server",
    "backup",
    "garden",
    "tomato",
    "orchard",
    "cycling",
    "marathon",
    "podcast",
    "interview",
    "novel",
    "poetry",
    "sketch",
    "gallery",
    "theatre",
    "ballet",
    "jazz",
    "guitar",
    "drums",
    "piano",
    "opera",
    "sculpture",
]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize()


async def run(
    notes: int, observations: int, entities: int, n: int, embeddings: str, consolidate: bool = False
) -> dict[str, Any]:
    from mcp import Client

    from service.app import VaultgateApp
    from service.serve import serving
    from tests.bench import workload
    from tests.conftest import Harness, settings_for

    rng = random.Random(37)
    root = WORKDIR / f"memory-scale-{notes}" / "vault"
    shutil.rmtree(root.parent, ignore_errors=True)
    workload.generate(root, n=notes, seed=42, meta=root.parent / "meta.json")
    out: dict[str, Any] = {"vault_notes": notes, "observations": observations, "entities": entities}
    storage = {"cache_dir": str(root.parent / "cache"), "data_dir": str(root.parent / "data")}
    names = [f"Entity {i:04d}" for i in range(entities)]
    settings = settings_for(root, storage=storage, throttle={"enabled": False}, embeddings={"provider": embeddings})
    # As `vaultgate serve` runs it: the app owns the process's garbage collector (`service.collector`)
    async with serving(settings, VaultgateApp(settings, owns_process=True)) as (url, app):
        h = Harness(app, root)
        await h.indexed()
        t0 = time.perf_counter()
        await h.ok("create_entities", entities=[{"name": e, "entityType": "thing"} for e in names])
        per = observations // entities
        texts: list[str] = []
        for name in names:
            for start in range(0, per, 50):
                batch = [sentence(rng) for _ in range(min(50, per - start))]
                texts += batch
                await h.ok("add_observations", observations=[{"entityName": name, "contents": batch}])
        out["load_s"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        await h.ok("search_memory", query="warm up")  # reads every entity note once
        out["first_search_s"] = round(time.perf_counter() - t0, 2)
        assert h.app.services.recall is not None
        recall = h.app.services.recall.of(next(iter(h.app.vaults.values())))
        t0 = time.perf_counter()
        await recall.settled(within=3600)
        out["vectors_s"] = round(time.perf_counter() - t0, 1)
        async with Client(url) as client:  # type: ignore[arg-type]

            async def call(tool: str, args: dict[str, Any]) -> tuple[float, Any]:
                began = time.perf_counter()
                result = await client.call_tool(tool, args)
                assert not result.is_error, result.structured_content
                return time.perf_counter() - began, result.structured_content

            searches = []
            for _ in range(n):
                words = rng.choice(texts).split()
                query = " ".join(rng.sample(words, k=min(len(words), rng.randint(2, 4))))
                searches.append((await call("search_memory", {"query": query, "limit": 10}))[0])
            out["search_memory"] = summary_ms(searches)
            adds, found_after = [], []
            for i in range(n):
                word = f"zq{i}x{rng.randrange(10**6)}"
                obs = {"entityName": rng.choice(names), "contents": [f"{sentence(rng)} {word}"]}
                spent, _ = await call("add_observations", {"observations": [obs]})
                adds.append(spent)
                began = time.perf_counter()
                while True:
                    _, hits = await call("search_memory", {"query": word, "limit": 1})
                    if hits["items"]:
                        break
                    if time.perf_counter() - began > 10:
                        raise AssertionError(f"{word} not found within 10 s")
                found_after.append(time.perf_counter() - began + spent)
            out["add_observations"] = summary_ms(adds)
            out["found_after_write"] = summary_ms(found_after)

        # The agents run in a process of their own (plain JSON-RPC over HTTP, one connection
        # each): 32 SDK clients in the server's own process would measure the clients.
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.bench.bench_memory_scale", "--agents", url, names[0], stdout=PIPE
        )
        stdout, _ = await proc.communicate()
        samples = json.loads(stdout)
        opened = await h.ok("open_nodes", names=[names[0]])
        facts = [o["text"] for o in opened["entities"][0]["observations"] if o["text"].startswith("agent ")]
        out["agents_32"] = {
            **summary_ms(samples["latencies"]),
            "wall_s": samples["wall_s"],
            "lost": 32 * 8 - len(set(facts)),
            "doubled": len(facts) - len(set(facts)),
        }
        if consolidate:
            out["consolidation"] = await _consolidation(url, h)
    return out


async def _consolidation(url: str, h: Any) -> dict[str, Any]:
    """A full consolidation run over this vault: its CPU, the process's memory, and the latency of
    `search_memory` calls made meanwhile against the same calls idle."""
    import os

    from mcp import Client

    from tests.bench.common import rss_mb

    rng = random.Random(5)
    queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(60)]
    async with Client(url) as client:  # type: ignore[arg-type]

        async def timed(query: str) -> float:
            began = time.perf_counter()
            result = await client.call_tool("search_memory", {"query": query, "limit": 10})
            assert not result.is_error
            return time.perf_counter() - began

        idle = [await timed(q) for q in queries]
        rss_before = rss_mb(os.getpid())
        cpu = time.process_time()
        wall = time.perf_counter()
        run = asyncio.create_task(h.call("run_consolidation", wait=True))
        during: list[float] = []
        while not run.done():
            during.append(await timed(rng.choice(queries)))
        result = (await run).structured
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rss_after = rss_mb(os.getpid())
    return {
        "wall_s": round(wall, 1),
        "cpu_s_process": round(cpu, 1),
        "jobs": {j["job"]: [j["status"], j["findings"], j["seconds"]] for j in result["jobs"]},
        "findings_new": result["new"],
        "search_idle": summary_ms(idle),
        "search_during_run": summary_ms(during),
        "rss_before_mb": rss_before,
        "rss_after_mb": rss_after,
    }


async def agents(url: str, entity: str, n: int = 32, each: int = 8) -> None:
    """`n` agents adding `each` observations to one entity at once; prints their latencies."""
    import httpx2

    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    def result(response: Any) -> dict[str, Any]:
        assert response.status_code in (200, 202), response.text
        text = response.text
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
        answer: dict[str, Any] = json.loads(text)
        return answer

    async def agent(a: int) -> list[float]:
        spent = []
        async with httpx2.AsyncClient(timeout=60) as http:
            hello = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "agent", "version": "1"},
            }
            init = await http.post(
                url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}, headers=headers
            )
            result(init)
            session = {
                **headers,
                "mcp-session-id": init.headers.get("mcp-session-id", ""),
                "mcp-protocol-version": "2025-11-25",
            }
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
            for k in range(each):
                obs = {"entityName": entity, "contents": [f"agent {a} fact {k}"]}
                body = {
                    "jsonrpc": "2.0",
                    "id": k + 1,
                    "method": "tools/call",
                    "params": {"name": "add_observations", "arguments": {"observations": [obs]}},
                }
                began = time.perf_counter()
                answer = result(await http.post(url, json=body, headers=session))
                spent.append(time.perf_counter() - began)
                assert not answer["result"].get("isError"), answer
        return spent

    began = time.perf_counter()
    latencies = [s for chunk in await asyncio.gather(*(agent(a) for a in range(n))) for s in chunk]
    print(json.dumps({"latencies": latencies, "wall_s": round(time.perf_counter() - began, 2)}))


def main() -> None:
    if sys.argv[1:2] == ["--agents"]:
        asyncio.run(agents(sys.argv[2], sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vault-notes", type=int, default=10_000)
    parser.add_argument("--observations", type=int, default=20_000)
    parser.add_argument("--entities", type=int, default=400)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--embeddings", choices=("none", "builtin"), default="none")
    parser.add_argument("--consolidate", action="store_true", help="then time a full consolidation run")
    args = parser.parse_args()
    result = asyncio.run(
        run(args.vault_notes, args.observations, args.entities, args.n, args.embeddings, args.consolidate)
    )
    report("memory_scale", {**result, "embeddings": args.embeddings})


if __name__ == "__main__":
    main()
