"""Chain benchmark: the same echo tool through vaultgate's full pipeline and on a bare SDK
server, at 1 and 16 concurrent clients, in the same run, through the SDK client over HTTP.

Run: `python -m tests.bench.bench_chain [--calls 400]`. Target: overhead <= 25 %. Both servers
use the same uvicorn settings and run side by side, measured in alternating rounds; vaultgate's
throttle layer runs with unreachable limits (what is measured is the chain, not the rate limiter
refusing). `bench_foundation` reports the same comparison. Prints JSON (tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from mcp import Client

from tests.bench.bench_foundation import run_side_by_side
from tests.bench.common import BENCH_ENV, ServerProcess, report, rss_mb, standard_vault, wait_ready


async def echo(client: Client, i: int) -> Any:
    return await client.call_tool("echo", {"text": "hello"})


async def main(calls: int) -> None:
    vault, _ = standard_vault()
    result: dict[str, Any] = {"calls_per_client": calls}
    chain = ServerProcess([sys.executable, "-m", "tests.bench.chain_server", str(vault)], env=BENCH_ENV)
    bare = ServerProcess([sys.executable, "-m", "tests.bench.echo_server", str(vault)])
    try:
        chain_url, bare_url = chain.start(), bare.start()
        await wait_ready(chain_url)
        for n in (1, 16):
            both = await run_side_by_side(
                {"chain": (chain_url, echo), "bare": (bare_url, echo)}, n, calls if n == 1 else max(20, calls // 8)
            )
            result[f"chain_echo_{n}_clients"], result[f"bare_echo_{n}_clients"] = both["chain"], both["bare"]
        result["chain_rss_mb"] = rss_mb(chain.pid)
    finally:
        chain.stop()
        bare.stop()
    for n in (1, 16):
        c, b = result[f"chain_echo_{n}_clients"]["p50_ms"], result[f"bare_echo_{n}_clients"]["p50_ms"]
        result[f"overhead_p50_{n}_clients_pct"] = round((c / b - 1) * 100, 1)
        result[f"overhead_p50_{n}_clients_ms"] = round(c - b, 3)
    result["target_overhead_pct"] = 25
    report("bench_chain", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=400)
    ns = parser.parse_args()
    asyncio.run(main(ns.calls))
