"""Where a `search_text` call's server time goes, by word-frequency bucket, in process (issue 39).

    python -m tests.bench.bench_search_phases [--calls 60] [--per-bucket 8] [--seed 7] [--notes 10000]

Starts the app in this process on the standard workload's vault (its index is the one
`bench_search_buckets` and `bench_peers` use: built first when missing), waits until the index
is ready and background work has settled, and asks the `bench_search_buckets` queries (same
seed, same buckets; `search_text`, limit 10) through `Dispatcher.call` as the stdio fast path
does (local stdio principal, every layer of the chain), each `--calls` times after 5 unmeasured
calls. The phases are timed by wrapping the functions the tool calls (a few µs of wrapping in
all): `page_sql` (the ranked page: `two_pass_page`), `snippets` (of which `windowed`: long notes
quoted from a window, `best_place` and `cut` inside it), `sensitive` (the guard's flags),
`missing_stat` (the page's files checked on disk), `parse_query`; `call` is the whole call's wall
time and `cpu` the process's CPU time per call (every thread: the query runs in a reader's
thread), `rest` what the call spends outside the timed phases (the chain's layers, the thread
hop, the result models, `model_dump`, the text block, the governor's serialization), and
`result_json` the stdio answer's bytes made from the result. Means per call in µs, per bucket
and over all queries. Not the transport: `bench_search_buckets` gives the server's CPU per call
over stdio. Prints one JSON object (see tests/bench/common.py). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from tests.bench.common import BENCH_ENV, report, standard_vault

SETTLE_LIMIT_S = 120
PHASES = ("page_sql", "snippets", "windowed", "best_place", "cut", "sensitive", "missing_stat", "parse_query")
_spent: dict[str, int] = defaultdict(int)


def _timed(owner: Any, name: str, phase: str) -> None:
    """Replace `owner.name` by a wrapper adding its wall time to `_spent[phase]`."""
    inner: Callable[..., Any] = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter_ns()
        try:
            return inner(*args, **kwargs)
        finally:
            _spent[phase] += time.perf_counter_ns() - t0

    setattr(owner, name, timed)


def _instrument() -> None:
    from service.retrieval import text as retrieval_text
    from service.retrieval import windows
    from service.tools import search_common
    from service.tools.search import text as tool_text

    _timed(tool_text.text, "two_pass_page", "page_sql")
    _timed(tool_text.text, "snippets", "snippets")
    _timed(tool_text, "note_excerpts", "sensitive")
    _timed(tool_text, "parse_query", "parse_query")
    _timed(search_common, "_missing", "missing_stat")
    _timed(retrieval_text, "_windowed", "windowed")
    _timed(windows, "best_place", "best_place")
    _timed(windows.WindowSnippets, "_cut", "cut")


async def main(args: argparse.Namespace) -> dict[str, Any]:
    os.environ.update(BENCH_ENV)  # the throttle layer stays, with limits these calls cannot reach
    from service.protocol.fast_path import CallRequest, result_json
    from service.types import Principal
    from tests.bench.bench_search_buckets import BUCKETS, pick_queries
    from tests.conftest import started

    vault, _ = standard_vault(args.notes)
    queries = pick_queries(vault, args.per_bucket, args.seed)
    _instrument()
    per_query: list[dict[str, Any]] = []
    async with started(vault) as vg:
        await vg.indexed(1800)
        for _ in range(SETTLE_LIMIT_S):
            cpu0 = time.process_time()
            await asyncio.sleep(1)
            if time.process_time() - cpu0 < 0.02:
                break
        dispatcher = vg.app.dispatcher
        principal = Principal.local("stdio")

        async def ask(q: str, i: int) -> Any:
            request = CallRequest(None, {}, i)
            arguments = {"query": q, "limit": 10}
            return await dispatcher.call(
                "search_text", arguments, principal=principal, transport="stdio", request=request, meta={}
            )

        for q in queries:
            for i in range(5):
                await ask(q["q"], i)
            _spent.clear()
            wall = cpu = encode = 0
            for i in range(args.calls):
                cpu0, t0 = time.process_time_ns(), time.perf_counter_ns()
                result = await ask(q["q"], i)
                t1 = time.perf_counter_ns()
                result_json(result, "2025-11-25")
                encode += time.perf_counter_ns() - t1
                wall += t1 - t0
                cpu += time.process_time_ns() - cpu0
                assert not result.is_error, result.structured
            row = {p: _spent.get(p, 0) / args.calls / 1000 for p in PHASES}
            row["call"] = wall / args.calls / 1000
            row["cpu"] = cpu / args.calls / 1000
            row["rest"] = row["call"] - sum(row[p] for p in ("page_sql", "snippets", "sensitive", "missing_stat"))
            row["rest"] -= row["parse_query"]
            row["result_json"] = encode / args.calls / 1000
            per_query.append({"q": q["q"], "bucket": q["bucket"], **row})
    keys = ("call", "cpu", *PHASES, "rest", "result_json")

    def mean(rows: list[dict[str, Any]]) -> dict[str, float]:
        return {k: round(sum(r[k] for r in rows) / len(rows), 1) for k in keys}

    buckets = {b: mean([r for r in per_query if r["bucket"] == b]) for b in BUCKETS}
    return {
        "notes": args.notes,
        "calls": args.calls,
        "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()],
        "unit": "µs per call (mean)",
        "buckets": buckets | {"overall": mean(per_query)},
        "queries": [{k: round(v, 1) if isinstance(v, float) else v for k, v in r.items()} for r in per_query],
    }


if __name__ == "__main__":  # worker processes of the index's bulk load import this module again
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--per-bucket", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7, help="picks the queries, as bench_search_buckets")
    parser.add_argument("--notes", type=int, default=10_000)
    report("bench_search_phases", asyncio.run(main(parser.parse_args())))
