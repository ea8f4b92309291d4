"""Full-text search next to markdown-vault-mcp (SQLite FTS5) by word-frequency bucket, over stdio.

    python -m tests.bench.bench_search_buckets [--rounds 5] [--per-bucket 8] [--seed 7] [--notes 10000]
        [--peers DIR] [--src DIR] [--own-index DIR]

The query set is drawn from the benchmark vault's own word frequencies (tests/bench/workload.py,
`standard_vault`), with a seed of its own (not the workload's 50 queries): the document
frequency of every lower-cased word of four letters or more (stop words left out: vaultgate
drops them from a query, the peer does not) over the notes' files, then `--per-bucket` queries
in each bucket:
- `very_common`: a word in at least 30 % of the notes; `common`: 5-30 %; `mid`: 0.5-5 %;
  `rare`: in 2 notes up to 0.5 %;
- `two_word`: a common and a mid word that occur in one note together (drawn from a note);
- `two_mid`: two mid words that occur in one note together (few notes hold both, most of them
  the vault's long documents, whose snippets cost the most);
- `phrase`: two adjacent words of a note's text, quoted ("word word");
- `two_apart`: two words that no note holds together (a mid word and a mid or rare one), as a
  query made of two words drawn at random from the vault mostly is: the peer's FTS5 AND answers
  nothing, vaultgate its relaxed pass (the notes with either word, `match: "any"`). Drawn with
  a generator of its own after the others, so the other buckets' queries are the same as before.

Both servers are spawned over stdio by the MCP SDK's `Client` and kept running (both warm: every
query is asked once of each, unmeasured, then the rounds wait until the servers' start-up work is
done, under 2 % of a core over a second, `settled_s`: the peer keeps a core busy for about a
minute after its start, and answers several times slower meanwhile), and each query asks for
10 results (`search_text` limit 10; the peer's `search`, limit 10, keyword mode, as `bench_peers` runs it).
Per round every query goes to every server, one after the other, in an order chosen by `orders`:
each server asked directly after each other server equally often within each bucket (±1 with
three servers, turn boundaries included; never twice in a row). A call after the peer is slower
than one after a vaultgate server (the peer's ~15 ms of interpreter work leaves the caches of a
2-core machine to the next process: 7.8 against 6.7 ms in one run), so the turns' old rotation
(0 1 2, 1 2 0, 2 0 1), in which the first-listed server followed the peer in two calls of three
and the second in one, ran the first ~10 % slower in every bucket. The JSON gives p50/p95 per
bucket and overall for each server, the peer's p50 and p95 over vaultgate's (above 1: vaultgate
ahead), the results each returned (median), each server's p50 by the server asked just
before it (`after`) and its CPU per call (`server_cpu`: p50 and mean per bucket and overall, in
ms, the CPU time of the server's process tree over the call, from /proc/PID/task/*/schedstat;
the calls are asked one at a time, so a call's delta is that call's work and whatever the server
did in the background meanwhile; on a shared machine it is the figure to compare two trees by,
wall time moving with the load), of which `server_cpu_loop` is the server's main thread's (the
event loop: the stdio front, the dispatch chain, the answer's models and JSON; the rest is its
reader and worker threads), and `client_cpu` the client's (this process's CPU over the call:
the SDK client reading the answer and checking its `structuredContent` against the tool's
output schema), p50 and mean per bucket and overall, in ms, for each server.
`--src DIR` (repeatable) runs vaultgate from another source tree too, alternated the same way,
to compare commits. vaultgate's index (and its embeddings) and the peer's index are built first
when missing (`bench_peers`' steps); peers are found under `--peers` as `bench_peers` installs them.
`--own-index DIR` gives each vaultgate tree its own copy of the index folder DIR (one holding a
`cache.db`, as `VAULTGATE_STORAGE__CACHE_DIR`; `state.db` then goes under it too), made before
any server starts and removed after the run: a tree that changes how its index is stored (a
merge of the word index) then does not change the other tree's, and every run starts from DIR
as it is. With `--src` and no `--own-index`, each tree runs on its own copy of the standard
index (built first when missing): two servers on one index and one `state.db` (each call's audit
rows) were not measured alike — two copies of one commit differed by 8-13 % overall in two runs
sharing them, by 1 % in one run on copies.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import shutil
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from service.retrieval.stopwords import is_stop_word
from service.settings import load_settings
from tests.bench.bench_peers import (
    ROOT,
    Server,
    _children,
    _mvm_index,
    cold_index,
    markdown_vault_mcp,
    peer_index_cold,
    vaultgate,
)
from tests.bench.common import WORKDIR, percentile, report, standard_vault, thread_cpu_ns

LIMIT = 10
SETTLE_LIMIT_S = 300.0  # for the servers' start-up work (the peer checks every file of the vault)
BUCKETS = ("very_common", "common", "mid", "rare", "two_word", "two_mid", "phrase", "two_apart")
_WORD = re.compile(r"[a-z]+")
_FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def _bodies(vault: Path) -> list[str]:
    """Every note's text, lower-cased, frontmatter left out, in path order."""
    out = []
    for path in sorted(vault.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(vault).parts):
            continue
        out.append(_FRONTMATTER.sub("", path.read_text(encoding="utf-8", errors="replace")).lower())
    return out


def _content(word: str) -> bool:
    return len(word) >= 4 and not is_stop_word(word)


def pick_queries(vault: Path, per_bucket: int, seed: int) -> list[dict[str, Any]]:
    """`per_bucket` queries in each of `BUCKETS`, drawn from the vault's word frequencies."""
    bodies = _bodies(vault)
    tokens = [_WORD.findall(b) for b in bodies]
    df: Counter[str] = Counter()
    for words in tokens:
        df.update({w for w in words if _content(w)})
    n = len(bodies)
    rng = random.Random(seed)

    def share(lo: float, hi: float) -> list[str]:
        return sorted(w for w, c in df.items() if lo <= c / n < hi)

    bands = {
        "very_common": share(0.30, 1.01),
        "common": share(0.05, 0.30),
        "mid": share(0.005, 0.05),
        "rare": [w for w in share(0.0, 0.005) if df[w] >= 2],
    }
    out: list[dict[str, Any]] = []
    for bucket, words in bands.items():
        for w in rng.sample(words, min(per_bucket, len(words))):
            out.append({"q": w, "bucket": bucket, "df": df[w]})
    common, mid = set(bands["common"]), set(bands["mid"])
    pairs: set[str] = set()
    while len(pairs) < per_bucket:
        seen = set(rng.choice(tokens))
        a, b = sorted(seen & common), sorted(seen & mid)
        if a and b:
            pairs.add(f"{rng.choice(a)} {rng.choice(b)}")
    out += [{"q": q, "bucket": "two_word"} for q in sorted(pairs)]
    phrases: set[str] = set()
    while len(phrases) < per_bucket:
        words = rng.choice(tokens)
        if len(words) < 2:
            continue
        i = rng.randrange(len(words) - 1)
        if _content(words[i]) and _content(words[i + 1]) and words[i] != words[i + 1]:
            phrases.add(f'"{words[i]} {words[i + 1]}"')
    out += [{"q": q, "bucket": "phrase"} for q in sorted(phrases)]
    mids: set[str] = set()  # drawn last: the other buckets' queries do not depend on it
    while len(mids) < per_bucket:
        both = sorted(set(rng.choice(tokens)) & mid)
        if len(both) >= 2:
            mids.add(" ".join(rng.sample(both, 2)))
    out += [{"q": q, "bucket": "two_mid"} for q in sorted(mids)]
    out += [{"q": q, "bucket": "two_apart"} for q in _apart(tokens, bands, per_bucket, seed)]
    return out


def _apart(tokens: list[list[str]], bands: dict[str, list[str]], count: int, seed: int) -> list[str]:
    """`count` queries of two words that occur in no note together: a mid word, then a mid or
    rare one (a common word meets nearly every mid word somewhere)."""
    rng = random.Random(f"{seed}/two_apart")
    notes_of: dict[str, set[int]] = defaultdict(set)
    mid, other = bands["mid"], bands["mid"] + bands["rare"]
    wanted = set(mid) | set(other)
    for i, words in enumerate(tokens):
        for w in wanted.intersection(words):
            notes_of[w].add(i)
    found: set[str] = set()
    while len(found) < count:
        a, b = rng.choice(mid), rng.choice(other)
        if a != b and not notes_of[a] & notes_of[b]:
            found.add(f"{a} {b}")
    return sorted(found)


def _installed(server: Server) -> bool:
    return Path(server.command).exists()


async def _ask(client: Client, server: Server, query: str) -> tuple[float, int]:
    """Seconds for one search at the client, and the number of results it returned."""
    tool, arguments = server.search(query)
    t = asyncio.get_running_loop().time()
    result = await client.call_tool(tool, arguments)
    elapsed = asyncio.get_running_loop().time() - t
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    if result.is_error:
        raise RuntimeError(f"{server.name}: {tool} {arguments} failed: {text[:300]}")
    return elapsed, _count(result.structured_content, text)


def _count(structured: dict[str, Any] | None, text: str) -> int:
    """Results in an answer: vaultgate's `items`, the peer's list (either shape)."""
    data: Any = structured
    if data is None:
        with contextlib.suppress(ValueError):
            data = json.loads(text)
    if isinstance(data, dict):
        for key in ("items", "results", "result"):
            if isinstance(data.get(key), list):
                return len(data[key])
    return len(data) if isinstance(data, list) else -1


def _tree_cpu_ns(pid: int) -> int:
    """CPU nanoseconds used so far by the process `pid` and its descendants (every live thread)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        with contextlib.suppress(OSError):
            total += thread_cpu_ns(p)
        todo.extend(_children(p))
    return total


def _loop_cpu_ns(pid: int) -> int:
    """CPU nanoseconds used so far by the main thread of `pid` (its task id is its pid)."""
    try:
        return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return 0


def _tree_cpu_s() -> float:
    """CPU seconds used so far by every process this one started (the servers), from /proc."""
    return sum(_tree_cpu_ns(pid) for pid in _children(os.getpid())) / 1e9


async def settle() -> float:
    """Wait until the servers' start-up work is done (under 2 % of a core over a second);
    returns the seconds waited."""
    t0 = asyncio.get_running_loop().time()
    before = _tree_cpu_s()
    while asyncio.get_running_loop().time() - t0 < SETTLE_LIMIT_S:
        await asyncio.sleep(1.0)
        now = _tree_cpu_s()
        if now - before < 0.02:
            break
        before = now
    return round(asyncio.get_running_loop().time() - t0, 1)


def orders(n: int, buckets: list[str]) -> list[tuple[int, ...]]:
    """The order in which the `n` servers are asked in each turn (one turn a query, `buckets`
    the turns' buckets in the order asked), chosen turn by turn among all orders as the one that
    least unbalances how often each server follows each other server (the previous turn's last
    call included) in the bucket, then where each server stands in a turn in the bucket, then
    both over the whole run. A server is never asked twice in a row (two servers then take turns
    in one order). Deterministic."""
    every = list(itertools.permutations(range(n)))
    seen: dict[str | None, Counter[Any]] = defaultdict(Counter)
    out: list[tuple[int, ...]] = []
    last: int | None = None
    for bucket in buckets:
        allowed = [o for o in every if o[0] != last]
        marks = {o: _marks(last, o) for o in allowed}

        def cost(order: tuple[int, ...], bucket: str = bucket, marks: dict[Any, Any] = marks) -> list[int]:
            return [sum(seen[b][k] for k in keys) for b in (bucket, None) for keys in marks[order]]

        best = min(allowed, key=cost)  # the first of equals: deterministic
        for k in (*marks[best][0], *marks[best][1]):
            seen[bucket][k] += 1
            seen[None][k] += 1
        out.append(best)
        last = best[-1]
    return out


def _marks(last: int | None, order: tuple[int, ...]) -> tuple[list[Any], list[Any]]:
    """What a turn in `order` adds to the counts `orders` keeps even: who follows whom, who stands where."""
    steps = list(itertools.pairwise(order if last is None else (last, *order)))
    return steps, [("place", i, x) for i, x in enumerate(order)]


def _summary(samples: list[float]) -> dict[str, Any]:
    ms = [s * 1000 for s in samples]
    return {"n": len(ms), "p50_ms": round(percentile(ms, 50), 2), "p95_ms": round(percentile(ms, 95), 2)}


def _cpu_summary(samples: list[float]) -> dict[str, Any]:
    ms = [s * 1000 for s in samples]
    return {"p50_ms": round(percentile(ms, 50), 3), "mean_ms": round(statistics.fmean(ms), 3)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    vault, _ = standard_vault(args.notes)
    queries = pick_queries(vault, args.per_bucket, args.seed)
    ours = [vaultgate(vault, ROOT)] + [vaultgate(vault, src, f"vaultgate@{src}") for src in args.src]
    peer = markdown_vault_mcp(vault, args.peers)
    if not _installed(peer):
        raise SystemExit(f"markdown-vault-mcp not found under {args.peers} (see bench_peers' docstring)")
    copies = WORKDIR / "search-buckets-index"
    if args.own_index is None and len(ours) > 1:  # several trees: never on one shared index
        await cold_index(ours[0], vault, cold=False)
        args.own_index = load_settings(vault).cache_dir()
    if args.own_index is not None:
        shutil.rmtree(copies, ignore_errors=True)
        for i, server in enumerate(ours):
            shutil.copytree(args.own_index, copies / str(i))
            server.env["VAULTGATE_STORAGE__CACHE_DIR"] = str(copies / str(i))
    try:
        return await _measure(args, vault, queries, ours, peer)
    finally:
        if args.own_index is not None:
            shutil.rmtree(copies, ignore_errors=True)


async def _measure(
    args: argparse.Namespace, vault: Path, queries: list[dict[str, Any]], ours: list[Server], peer: Server
) -> dict[str, Any]:
    for server in ours:  # each tree on its own index: each waits until its own is ready
        await cold_index(server, vault, cold=False)
        if args.own_index is None:
            break
    peer_cold = None if _mvm_index(args.peers).exists() else peer_index_cold(peer)
    servers = [*ours, peer]
    samples: dict[str, dict[str, list[float]]] = {s.name: defaultdict(list) for s in servers}
    counts: dict[str, dict[str, list[int]]] = {s.name: defaultdict(list) for s in servers}
    after: dict[str, dict[str, list[float]]] = {s.name: defaultdict(list) for s in servers}
    cpu: dict[str, dict[str, list[float]]] = {s.name: defaultdict(list) for s in servers}
    loop_cpu: dict[str, dict[str, list[float]]] = {s.name: defaultdict(list) for s in servers}
    client_cpu: dict[str, dict[str, list[float]]] = {s.name: defaultdict(list) for s in servers}
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        pids: list[int] = []
        for s in servers:
            params = StdioServerParameters(command=s.command, args=s.args, env={**os.environ, **s.env}, cwd=s.cwd)
            before = set(_children(os.getpid()))
            client = await stack.enter_async_context(Client(params, mode="legacy"))
            (pid,) = set(_children(os.getpid())) - before  # the server process this client spawned
            pids.append(pid)
            for q in queries:  # warm: every query once, unmeasured
                await _ask(client, s, q["q"])
            clients.append(client)
        settled_s = await settle()
        turns = orders(len(servers), [q["bucket"] for q in queries] * args.rounds)
        last: int | None = None
        for q, order in zip(queries * args.rounds, turns, strict=True):
            for i in order:
                cpu0, loop0 = _tree_cpu_ns(pids[i]), _loop_cpu_ns(pids[i])
                client0 = time.process_time_ns()
                elapsed, found = await _ask(clients[i], servers[i], q["q"])
                client_cpu[servers[i].name][q["bucket"]].append((time.process_time_ns() - client0) / 1e9)
                cpu[servers[i].name][q["bucket"]].append((_tree_cpu_ns(pids[i]) - cpu0) / 1e9)
                loop_cpu[servers[i].name][q["bucket"]].append((_loop_cpu_ns(pids[i]) - loop0) / 1e9)
                samples[servers[i].name][q["bucket"]].append(elapsed)
                counts[servers[i].name][q["bucket"]].append(found)
                if last is not None:
                    after[servers[i].name][servers[last].name].append(elapsed)
                last = i
    table: dict[str, Any] = {}
    for s in servers:
        per = {
            b: _summary(samples[s.name][b]) | {"results_median": statistics.median(counts[s.name][b])} for b in BUCKETS
        }
        per["overall"] = _summary([x for b in BUCKETS for x in samples[s.name][b]])
        per["after"] = {prev: _summary(xs) for prev, xs in sorted(after[s.name].items())}
        for key, seen in (("server_cpu", cpu), ("server_cpu_loop", loop_cpu), ("client_cpu", client_cpu)):
            per[key] = {b: _cpu_summary(seen[s.name][b]) for b in BUCKETS}
            per[key]["overall"] = _cpu_summary([x for b in BUCKETS for x in seen[s.name][b]])
        table[s.name] = per
    ahead = {
        s.name: {
            b: {
                "p50": round(table[peer.name][b]["p50_ms"] / table[s.name][b]["p50_ms"], 2),
                "p95": round(table[peer.name][b]["p95_ms"] / table[s.name][b]["p95_ms"], 2),
                "server_cpu_p50": round(
                    table[peer.name]["server_cpu"][b]["p50_ms"] / table[s.name]["server_cpu"][b]["p50_ms"], 2
                ),
            }
            for b in (*BUCKETS, "overall")
        }
        for s in ours
    }
    return {
        "machine": {
            "cpus": os.cpu_count(),
            "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()],
            "python": sys.version.split()[0],
        },
        "vault": {"notes": args.notes, "path": str(vault)},
        "rounds": args.rounds,
        "limit": LIMIT,
        "queries": queries,
        "peer_index_cold": peer_cold,
        "settled_s": settled_s,
        "servers": table,
        "peer_over_vaultgate": ahead,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--per-bucket", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7, help="picks the queries (not the workload's seed)")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--peers", type=Path, default=WORKDIR / "peers", help="folder of the peers' install")
    parser.add_argument("--src", type=Path, action="append", default=[], help="also run vaultgate from this tree")
    parser.add_argument(
        "--own-index", type=Path, default=None, help="each tree runs on its own copy of this index folder"
    )
    args = parser.parse_args()
    report("bench_search_buckets", asyncio.run(run(args)))


if __name__ == "__main__":
    main()
