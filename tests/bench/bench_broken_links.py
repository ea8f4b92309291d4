"""find_broken_links on a real vault: the time of a first page and of the whole listing, and what
it lists by reason (links to no note, to a missing heading, to a missing block id).

Run: `python -m tests.bench.bench_broken_links VAULT [--calls 10] [--show 20]`. Works on a copy of
the vault, drives the tool in-process through the full dispatch chain, and prints one JSON object
(the `--show` first heading/block items too, to check by hand). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from service.tools.registry import build_registry
from tests.bench.common import summary_ms
from tests.conftest import Harness, started


async def _listing(vg: Harness, args: dict[str, Any]) -> tuple[float, list[dict[str, Any]]]:
    """Every page of the listing, and how long they took together."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    t0 = time.perf_counter()
    while True:
        out = await vg.ok("find_broken_links", limit=1000, **args, **({"cursor": cursor} if cursor else {}))
        items += out["items"]
        cursor = out["next_cursor"]
        if not cursor:
            return time.perf_counter() - t0, items


async def main(vault: Path, calls: int, show: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(vault, root, ignore=shutil.ignore_patterns(".vaultgate"))
        result: dict[str, Any] = {"vault": vault.name, "python": sys.version.split()[0]}
        async with started(root) as vg:
            t0 = time.perf_counter()
            await vg.indexed(600)
            result["index_s"] = round(time.perf_counter() - t0, 3)
            spec = build_registry().get("find_broken_links")
            subpaths = spec is not None and "subpaths" in spec.input_model.model_fields
            modes: list[dict[str, Any]] = [{"subpaths": False}, {"subpaths": True}] if subpaths else [{}]
            names = ["subpaths" if args.get("subpaths") else "notes_only" for args in modes]
            samples: dict[str, list[float]] = {name: [] for name in names}
            for _ in range(calls):  # the modes in turns, so background work weighs on each alike
                for name, args in zip(names, modes, strict=True):
                    t = time.perf_counter()
                    await vg.ok("find_broken_links", limit=100, **args)
                    samples[name].append(time.perf_counter() - t)
            for name, args in zip(names, modes, strict=True):
                result[f"{name}_page100"] = summary_ms(samples[name])
                took, items = await _listing(vg, args)
                result[f"{name}_all_ms"] = round(took * 1000, 1)
                result[f"{name}_counts"] = dict(Counter(i.get("reason", "no_note") for i in items))
                if args.get("subpaths"):
                    result["shown"] = [
                        {k: i.get(k) for k in ("path", "line", "text", "subpath", "target_path", "suggestions")}
                        for i in items
                        if i.get("reason") != "no_note"
                    ][:show]
        print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("vault", type=Path)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--show", type=int, default=20)
    a = parser.parse_args()
    asyncio.run(main(a.vault, a.calls, a.show))
