"""What the MCP SDK's Python client itself costs a `search_text` call over stdio: the floor under
any server's p50 as this client measures it.

    python -m tests.bench.bench_client_floor [--calls 300] [--query garden] [--rounds 2]

vaultgate serves the standard workload over stdio (`vaultgate stdio`, embeddings off); the
benchmark lists its tools and keeps `search_text`'s tool entry and one real answer (10 hits).
Then the same client (`mcp.Client`, as `bench_search_buckets` uses it) talks to:
- `canned`: a stdio server of a few lines of standard-library Python (this file, `--serve`) that
  answers `initialize`, `tools/list` with that tool entry and every `tools/call` with that answer
  at once: the client's own work (JSON, its models, the output-schema check) and the pipe;
- `canned, no schema`: the same without the `outputSchema` and `structuredContent` (no check);
- `vaultgate (handshake)` and `vaultgate (auto)`: the real server, the client in mode "legacy"
  (an `initialize` handshake) and in its default mode "auto" (protocol 2026-07-28 against us).
Each: `--calls` calls after 20 unmeasured ones, a `ping` before each call on handshake-era
connections (2026-07-28 has none); p50 of the call at the client, the client's own CPU per call
(thread time), p50 of the ping. The servers run one after another, `--rounds` times alternated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from tests.bench.common import BENCH_ENV, WORKDIR, report, standard_vault

ROOT = Path(__file__).resolve().parents[2]


def serve(canned: Path, schema: bool) -> None:
    """The canned server: one JSON-RPC line in, one out (stdin/stdout)."""
    data = json.loads(canned.read_text(encoding="utf-8"))
    tool, result = dict(data["tool"]), dict(data["result"])
    if not schema:
        tool.pop("outputSchema", None)
        result.pop("structuredContent", None)
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        method = msg.get("method")
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": msg["id"]}
        if method == "initialize":
            answer["result"] = {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "canned", "version": "0"},
            }
        elif method in ("tools/list", "tools/call", "ping"):
            answer["result"] = {"tools/list": {"tools": [tool]}, "tools/call": result, "ping": {}}[method]
        else:
            answer["error"] = {"code": -32601, "message": "Method not found"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


async def _measure(params: Any, mode: str, calls: int, query: str) -> dict[str, float]:
    from mcp import Client

    args = {"query": query, "limit": 10}
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        await client.list_tools()
        legacy = mode == "legacy"
        for _ in range(20):
            await client.call_tool("search_text", args)
        pings: list[float] = []
        waits: list[float] = []
        cpu: list[float] = []
        for _ in range(calls):
            if legacy:
                t0 = time.perf_counter()
                await client.send_ping()
                pings.append(time.perf_counter() - t0)
            c0, t0 = time.thread_time(), time.perf_counter()
            await client.call_tool("search_text", args)
            waits.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
    out = {"p50_ms": statistics.median(waits) * 1e3, "client_cpu_ms": statistics.median(cpu) * 1e3}
    if pings:
        out["ping_p50_ms"] = statistics.median(pings) * 1e3
    return {k: round(v, 3) for k, v in out.items()}


async def _capture(params: Any, query: str, canned: Path) -> int:
    from mcp import Client

    async with Client(params, mode="legacy") as client:
        tools = await client.list_tools()
        tool = next(t for t in tools.tools if t.name == "search_text")
        result = await client.call_tool("search_text", {"query": query, "limit": 10})
    dump = {"by_alias": True, "exclude_none": True, "mode": "json"}
    body = {"tool": tool.model_dump(**dump), "result": result.model_dump(**dump)}  # type: ignore[arg-type]
    await asyncio.to_thread(canned.write_text, json.dumps(body), encoding="utf-8")
    return len((result.structured_content or {}).get("items", []))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from mcp import StdioServerParameters

    vault, _ = standard_vault(args.notes)
    env = {**os.environ, **BENCH_ENV, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", "VAULTGATE_LOG__LEVEL": "warning"}
    ours = StdioServerParameters(
        command=sys.executable, args=["-m", "service", "stdio", str(vault)], env=env, cwd=str(ROOT)
    )
    with tempfile.TemporaryDirectory(dir=WORKDIR) as tmp:
        canned = Path(tmp) / "canned.json"
        hits = await _capture(ours, args.query, canned)
        me = [sys.executable, "-m", "tests.bench.bench_client_floor", "--serve", str(canned)]
        servers = {
            "canned": (StdioServerParameters(command=me[0], args=me[1:], cwd=str(ROOT)), "legacy"),
            "canned, no schema": (
                StdioServerParameters(command=me[0], args=[*me[1:], "--no-schema"], cwd=str(ROOT)),
                "legacy",
            ),
            "vaultgate (handshake)": (ours, "legacy"),
            "vaultgate (auto)": (ours, "auto"),
        }
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
        for _ in range(args.rounds):
            for name, (params, mode) in servers.items():
                runs[name].append(await _measure(params, mode, args.calls, args.query))
    return {
        "vault": {"notes": args.notes, "path": str(vault)},
        "query": args.query,
        "hits": hits,
        "calls": args.calls,
        "machine": {"load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()]},
        "servers": runs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--query", default="garden")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--no-schema", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, schema=not args.no_schema)
        return
    warnings.simplefilter("ignore")  # the SDK warns that ping is gone at 2026-07-28
    report("bench_client_floor", asyncio.run(run(args)))


if __name__ == "__main__":
    main()
