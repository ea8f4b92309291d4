"""Retrieval quality of a search tool, through a real server and the MCP SDK client.

Run (the data folder is the one of docs/testing.md):

    VAULTGATE_TEST_DATA=/path/to/data python -m tests.bench.bench_quality
    python -m tests.bench.bench_quality --data /path/to/data --datasets scifact \
        --tool search_notes --args '{"mode": "full_text", "query": "{query}", "limit": 100}'

For each data set (tests/bench/quality.py: the Obsidian Help vault with its question set, and
BEIR SciFact written as a vault) it starts `vaultgate serve` on a temporary copy, waits until the
index is ready (/readyz), sends every query through `--tool` with `--args` (a JSON object in
which the string "{query}" is replaced by the query text) and scores the ranked note paths of the
result (`--items` list, `--path` field of each item): nDCG@10 and Recall@5/10/100 (`--text`: also
the share of the returned text's bytes that comes from relevant notes), plus the
number of queries, the tool, the arguments, the `--mode` label, the elapsed seconds and the
per-call latency. With several tools and `--compare`, each later tool is set against the first
query by query (Recall@5 wins and losses, and the queries whose first relevant note moved).
Prints one JSON object (tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client

from tests.bench import quality
from tests.bench.common import BENCH_ENV, ServerProcess, report, summary_ms, vaultgate_argv, wait_ready

DATASETS = ("obsidian-help", "scifact")
DEFAULT_ARGS = '{"query": "{query}", "limit": 100}'


def fill(template: Any, query: str) -> Any:
    """The argument template with every "{query}" inside a string replaced by `query`."""
    if isinstance(template, str):
        return template.replace("{query}", query)
    if isinstance(template, list):
        return [fill(v, query) for v in template]
    if isinstance(template, dict):
        return {k: fill(v, query) for k, v in template.items()}
    return template


async def wait_embedded(url: str, limit_s: float = 7200.0) -> float:
    """Poll index_status until every chunk of the vault has its vector; returns the seconds waited."""
    t0 = time.perf_counter()
    async with Client(url, mode="legacy", cache=None) as client:
        while time.perf_counter() - t0 < limit_s:
            out = (await client.call_tool("index_status", {})).structured_content or {}
            emb = out.get("embeddings")
            if emb is None:
                raise RuntimeError("--wait-embeddings: embeddings are off on this server")
            if emb["state"] == "failed":
                raise RuntimeError(f"embedding failed: {emb.get('error')}")
            if emb["state"] == "idle" and emb["backlog"] == 0 and emb.get("chunks"):
                return time.perf_counter() - t0
            await asyncio.sleep(1.0)
    raise TimeoutError("embedding did not finish")


async def run_queries(url: str, data: quality.DataSet, ns: argparse.Namespace) -> dict[str, Any]:
    template = json.loads(ns.args)
    runs: list[tuple[quality.Query, list[str]]] = []
    samples: list[float] = []
    answered: dict[str, int] = {}
    shares: list[float] = []  # per query: share of the returned text (bytes) from relevant notes
    spent: list[int] = []
    queries = data.queries[: ns.max_queries] if ns.max_queries else data.queries
    t0 = time.perf_counter()
    async with Client(url, mode="legacy", cache=None) as client:
        for q in queries:
            t = time.perf_counter()
            called = await client.call_tool(ns.tool, fill(template, q.text))
            samples.append(time.perf_counter() - t)
            out = called.structured_content
            if called.is_error or out is None:
                raise RuntimeError(f"{ns.tool} failed on {q.text!r}: {out}")
            items = out.get(ns.items) or []
            runs.append((q, quality.dedupe(str(i[ns.path]) for i in items)))
            if ns.text:
                sizes = [(len(str(i[ns.text]).encode()), q.relevant.get(str(i[ns.path]), 0) > 0) for i in items]
                total = sum(n for n, _ in sizes)
                shares.append(sum(n for n, hit in sizes if hit) / total if total else 0.0)
                spent.append(total)
            passed = out.get("match", out.get("text_match"))  # which text pass answered, when reported
            if isinstance(passed, str):
                answered[passed] = answered.get(passed, 0) + 1
    elapsed = time.perf_counter() - t0
    result: dict[str, Any] = {
        **quality.score(runs),
        "queries": len(runs),
        "tool": ns.tool,
        "args": template,
        "mode": ns.mode,
        "elapsed_s": round(elapsed, 3),
        "latency": summary_ms(samples),
    }
    if answered:
        result["match"] = answered
    if shares:
        result["relevant_text_share"] = round(sum(shares) / len(shares), 4)
        result["text_bytes_per_query"] = round(sum(spent) / len(spent), 1)
    if ns.compare:
        result["_ranked"] = runs
    if ns.show_misses:
        result["misses"] = [
            {"query": q.text, "expected": sorted(q.relevant), "top5": ranked[:5]}
            for q, ranked in runs
            if not any(p in q.relevant for p in ranked[:5])
        ]
    return result


def first_hit(ranked: list[str], relevant: Any) -> int | None:
    return next((i + 1 for i, p in enumerate(ranked) if p in relevant), None)


Runs = list[tuple[quality.Query, list[str]]]


def compare(base: Runs, other: Runs) -> dict[str, Any]:
    """Per query, against the first tool: `wins` and `losses` in Recall@5, and every query whose
    first relevant note moved (`moved`: rank in the first tool -> rank in this one, null: not in
    the list)."""
    wins: list[str] = []
    losses: list[str] = []
    moved: list[dict[str, Any]] = []
    for (q, a), (_, b) in zip(base, other, strict=True):
        ra, rb = quality.recall_at(a, q.relevant, 5), quality.recall_at(b, q.relevant, 5)
        if rb > ra:
            wins.append(q.text)
        elif rb < ra:
            losses.append(q.text)
        fa, fb = first_hit(a, q.relevant), first_hit(b, q.relevant)
        if fa != fb:
            moved.append({"query": q.text, "first_relevant": [fa, fb]})
    return {"recall@5_wins": wins, "recall@5_losses": losses, "moved": moved}


def target(ns: argparse.Namespace, name: str, tmp: Path) -> tuple[Path, bool]:
    """Where the data set's vault goes, and whether it must be written (not kept from a run before)."""
    root = Path(ns.vault_dir).resolve() / name if ns.vault_dir else tmp / "vault"
    return root, not root.exists()


async def one(name: str, data_root: Path, ns: argparse.Namespace, env: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="vaultgate-quality-") as tmp:
        root, fresh = target(ns, name, Path(tmp))
        t0 = time.perf_counter()
        if name == "obsidian-help":
            data = quality.obsidian_help(data_root)
            if fresh:
                shutil.copytree(data.vault, root, ignore=shutil.ignore_patterns(".vaultgate"))
        else:
            only = quality.scifact_subset(data_root, ns.scifact_docs) if ns.scifact_docs else None
            notes = quality.write_scifact_vault(data_root, root, only) if fresh else len(list(root.rglob("*.md")))
            data = quality.scifact(data_root, root)
        server = ServerProcess(vaultgate_argv(root), env=env)
        try:
            server.start()
            await wait_ready(server.url)
            index_s = time.perf_counter() - t0
            embedded_s = await wait_embedded(server.url) if ns.wait_embeddings else None
            tools = [t.strip() for t in ns.tool.split(",") if t.strip()]
            per_tool = {
                t: await run_queries(server.url, data, argparse.Namespace(**{**vars(ns), "tool": t})) for t in tools
            }
        finally:
            server.stop()
    ranked = {t: r.pop("_ranked", None) for t, r in per_tool.items()}
    result: dict[str, Any] = per_tool[tools[0]] if len(tools) == 1 else {"tools": per_tool}
    if ns.compare and len(tools) > 1:
        result["compare"] = {t: compare(ranked[tools[0]], ranked[t]) for t in tools[1:]}
    result["index_ready_s"] = round(index_s, 3)
    if embedded_s is not None:
        result["embedding_s"] = round(embedded_s, 1)
    if name == "scifact":
        result["notes"] = notes
    return result


def data_folder(ns: argparse.Namespace) -> Path:
    raw = ns.data or os.environ.get("VAULTGATE_TEST_DATA", "")
    if not raw.strip() or not Path(raw).expanduser().is_dir():
        raise SystemExit("set VAULTGATE_TEST_DATA (or pass --data) to the folder holding vaults/ and scifact/")
    return Path(raw).expanduser().resolve()


async def main(ns: argparse.Namespace, data_root: Path) -> None:
    env = dict(BENCH_ENV)
    for pair in ns.env:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--env wants KEY=VALUE, got {pair!r}")
        env[key] = value
    names = [n.strip() for n in ns.datasets.split(",") if n.strip()]
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        raise SystemExit(f"unknown data set(s) {unknown}; choose from {list(DATASETS)}")
    results = {name: await one(name, data_root, ns, env) for name in names}
    report(ns.name, {"datasets": results})


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="folder holding vaults/ and scifact/ (default: $VAULTGATE_TEST_DATA)")
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated: obsidian-help,scifact")
    parser.add_argument(
        "--tool", default="search_text", help="the tool each query is sent to (comma-separated: each in turn)"
    )
    parser.add_argument(
        "--wait-embeddings", action="store_true", help="query only once every chunk has its vector (index_status)"
    )
    parser.add_argument("--args", default=DEFAULT_ARGS, help='JSON arguments; "{query}" is replaced by the query')
    parser.add_argument("--mode", default="text", help="a label for the result (e.g. text, hybrid, semantic)")
    parser.add_argument("--items", default="items", help="the result field holding the ranked list")
    parser.add_argument("--path", default="path", help="the field of each item naming the note")
    parser.add_argument(
        "--text",
        help="the item field holding returned text: also report the share of its bytes that comes from relevant "
        "notes (e.g. text for context_for_query, chunk_text for rag_search)",
    )
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server (repeatable)")
    parser.add_argument(
        "--scifact-docs",
        type=int,
        default=0,
        help="a smaller SciFact corpus: the judged documents plus random ones up to N (quality.scifact_subset)",
    )
    parser.add_argument("--max-queries", type=int, default=0, help="only the first N queries of each set")
    parser.add_argument("--show-misses", action="store_true", help="list the queries missing in the top 5")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="with several --tool: per query, each later tool's Recall@5 wins and losses against the first, and "
        "the queries whose first relevant note moved",
    )
    parser.add_argument(
        "--vault-dir",
        help="keep each data set's vault in DIR/<name> (written once, reused by later runs: with a fixed "
        "VAULTGATE_STORAGE__CACHE_DIR the embedded index is reused too)",
    )
    parser.add_argument("--name", default="bench_quality", help="result name (tests/bench/results/NAME.json)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    args = parse()
    asyncio.run(main(args, data_folder(args)))
