"""capture's latency: the queue row committed and the inbox item written, per call.

    python -m tests.bench.bench_captures [--n 400] [--writers 8] [--vault-notes 2000]

A vault of `--vault-notes` notes from the standard workload generator is served in process
(index built first, watcher on, as a real server runs). Measured through the full dispatch
chain: `--n` captures one after another (the inbox note growing to `--n` items on the way; the write rate limit off),
then `--writers` callers capturing at once (`--n` in all), then `--n / 4` captures over HTTP
with the SDK's Streamable HTTP client. Target (issue 37): p50 ≤ 15 ms. Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import time
from typing import Any

from tests.bench.common import WORKDIR, report, summary_ms


async def run(n: int, writers: int, notes: int) -> dict[str, Any]:
    from mcp import Client

    from tests.bench import workload
    from tests.conftest import e2e

    root = WORKDIR / f"captures-{notes}" / "vault"
    shutil.rmtree(root.parent, ignore_errors=True)
    workload.generate(root, n=notes, seed=7, meta=root.parent / "meta.json")
    out: dict[str, Any] = {"vault_notes": notes}
    storage = {"cache_dir": str(root.parent / "cache"), "data_dir": str(root.parent / "data")}
    # The rate limit (1,200 writes a minute per caller by default) is not what is measured.
    async with e2e(root, storage=storage, throttle={"enabled": False}) as (url, h):
        await h.indexed()

        async def one(i: int) -> float:
            t0 = time.perf_counter()
            result = await h.call("capture", text=f"thought number {i}: call Ann about the {i % 7} plan", tags=["b"])
            assert not result.is_error, result.structured
            return time.perf_counter() - t0

        out["sequential"] = summary_ms([await one(i) for i in range(n)])
        per = max(1, n // writers)

        async def writer(w: int) -> list[float]:
            return [await one(n + w * per + i) for i in range(per)]

        t0 = time.perf_counter()
        samples = [s for chunk in await asyncio.gather(*(writer(w) for w in range(writers))) for s in chunk]
        out["concurrent"] = {"writers": writers, **summary_ms(samples), "wall_s": round(time.perf_counter() - t0, 3)}
        async with Client(url) as client:  # type: ignore[arg-type]
            http: list[float] = []
            for i in range(max(1, n // 4)):
                t0 = time.perf_counter()
                result = await client.call_tool("capture", {"text": f"over http {i}"})
                http.append(time.perf_counter() - t0)
                assert not result.is_error
        out["http_sdk"] = summary_ms(http)
        listed = await h.ok("list_captures", limit=1)
        out["inbox_items"] = listed["total"]
        out["inbox_kib"] = round((root / h.app.settings.memory.inbox).stat().st_size / 1024, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--vault-notes", type=int, default=2000)
    args = parser.parse_args()
    report("captures", asyncio.run(run(args.n, args.writers, args.vault_notes)))


if __name__ == "__main__":
    main()
