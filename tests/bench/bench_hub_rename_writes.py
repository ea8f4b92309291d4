"""A note linked from many notes renamed: its plan and its writes, in seconds, and the process's
peak resident memory.

    python -m tests.bench.bench_hub_rename_writes [--notes 20000] [--cap N] [--profile FILE] [--reads]

Writes a vault into a temporary folder: `Hub.md` and `--notes` notes `Notes/n{i}.md` (1,000 a
folder), each "See [[Hub]].", so every one of them is rewritten when `Hub` is renamed. Indexed in
this process, then `rename_note` `Hub.md` -> `Hub2` through the full dispatch chain: the dry run
(the plan alone), then the rename (its plan again, then its journaled writes; in one folder, so
no confirmation is asked).
`--cap`: `[limits] max_rewrite_notes` (the default's refusal past 20,000 is printed instead). With
`--profile`, the confirmed call runs under cProfile and its stats are dumped to FILE. Prints
one JSON object (`rename_cpu_s`: the CPU time of every thread of the process while the rename
ran; `writes_s`, `indexed_s`: `time_the_writes`; `settled_s`, `settled_cpu_s`: from the rename's
start until the file watcher has handled every event it caused (a note written after the rename is
published by the watcher; the CPU of every thread: the rename, its indexing and the watcher's
work); `peak_rss_mb`: ru_maxrss of this process, the index build included). With
`--reads`, another caller reads meanwhile, one call after the other for as long as the rename runs
(`read_note` of a note the rename rewrites and `search_text` in turn): `reads` gives their count and
latency (p50, p95, ms) per tool (a call refused by the read rate limit waits as told and is
counted in `throttled`, not timed). Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import random
import resource
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from service.types import Principal
from service.vault.events import ChangeBus, FileChange
from tests.conftest import Harness, started


def write_vault(root: Path, notes: int) -> None:
    root.mkdir(parents=True)
    (root / "Hub.md").write_text("# Hub\n\nThe hub.\n")
    for i in range(notes):
        folder = root / "Notes" / f"f{i // 1000}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{i}.md").write_text(f"# n{i}\n\nSee [[Hub]].\nMore text {i}.\n")


def time_the_writes(out: dict[str, Any]) -> None:
    """`writes_s`: from the first file the change writes to the last (its `ChangeBus.batch`),
    `writes_cpu_s`: their CPU time (every thread), `indexed_s`: its one index update after (an
    in-process call waits for it; a client's is answered before it, docs/write-path.md)."""
    batch = ChangeBus.batch

    @contextlib.asynccontextmanager
    async def timed(bus: ChangeBus) -> AsyncIterator[None]:
        began, cpu = time.monotonic(), time.process_time()
        async with batch(bus):
            try:
                yield
            finally:
                out["writes_s"] = round(time.monotonic() - began, 2)
                out["writes_cpu_s"] = round(time.process_time() - cpu, 2)
                began = time.monotonic()
        out["indexed_s"] = round(time.monotonic() - began, 2)

    ChangeBus.batch = timed  # type: ignore[method-assign]


async def read_meanwhile(vg: Harness, notes: int, done: asyncio.Event) -> dict[str, Any]:
    """Calls of another caller until `done`: a read of a note being rewritten, then a search, and so on."""
    reader, rng = Principal.local("reader"), random.Random(7)
    took: dict[str, list[float]] = {"read_note": [], "search_text": []}
    throttled = 0
    while not done.is_set():
        for tool, args in (
            ("read_note", {"path": f"Notes/f{(i := rng.randrange(notes)) // 1000}/n{i}.md"}),
            ("search_text", {"query": f"text {rng.randrange(notes)}", "limit": 5}),
        ):
            began = time.monotonic()
            answer = await vg.app.dispatcher.call(tool, args, principal=reader)
            error = (answer.structured or {}).get("error", {}) if answer.is_error else {}
            if error.get("code") == "throttled":  # the read rate limit: waited out, not counted
                throttled += 1
                await asyncio.sleep(error["details"]["retry_after_seconds"])
                continue
            took[tool].append(time.monotonic() - began)
            assert not answer.is_error, answer.structured
    return {**{tool: _latency(values) for tool, values in took.items()}, "throttled": throttled}


def _latency(values: list[float]) -> dict[str, Any]:
    if len(values) < 2:
        return {"n": len(values)}
    cuts = statistics.quantiles(values, n=20)
    return {"n": len(values), "p50_ms": round(statistics.median(values) * 1000, 1), "p95_ms": round(cuts[18] * 1000, 1)}


async def watcher_settled(vg: Harness, root: Path) -> None:
    """Return once the watcher has handled every event before now: a note written now is published by it."""
    seen = asyncio.Event()

    async def heard(changes: Sequence[FileChange]) -> None:
        if any(c.path == "Settled.md" and c.origin == "external" for c in changes):
            seen.set()

    bus = vg.app.vaults["main"].bus
    bus.subscribe(heard)
    (root / "Settled.md").write_text("# settled\n")
    try:
        await asyncio.wait_for(seen.wait(), 600)
    finally:
        bus.unsubscribe(heard)


async def run(notes: int, cap: int | None, profile: str | None, reads: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"notes": notes, "max_rewrite_notes": cap}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        write_vault(root, notes)
        rename = {"path": "Hub.md", "new_path": "Hub2"}
        async with started(root, **({"limits": {"max_rewrite_notes": cap}} if cap else {})) as vg:
            await vg.indexed(within=3600)
            began = time.monotonic()
            dry = await vg.call("rename_note", **rename, dry_run=True)
            out["dry_run_s"] = round(time.monotonic() - began, 2)
            if dry.is_error:
                out["refused"] = dry.structured
                return out
            profiler = cProfile.Profile() if profile else None
            began, cpu = time.monotonic(), time.process_time()
            if profiler is not None:
                profiler.enable()
            ended = asyncio.Event()
            time_the_writes(out)
            reader = asyncio.create_task(read_meanwhile(vg, notes, ended)) if reads else None
            done = await vg.call("rename_note", **rename)
            out["rename_s"] = round(time.monotonic() - began, 2)
            out["rename_cpu_s"] = round(time.process_time() - cpu, 2)  # every thread of the process
            ended.set()
            await watcher_settled(vg, root)
            out["settled_s"] = round(time.monotonic() - began, 2)
            out["settled_cpu_s"] = round(time.process_time() - cpu, 2)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(profile)
            if reader is not None:
                out["reads"] = await reader
            out["result"] = {k: v for k, v in (done.structured or {}).items() if k != "items"}
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--cap", type=int, default=None)
    parser.add_argument("--profile", default=None)
    parser.add_argument("--reads", action="store_true", help="another caller reads and searches meanwhile")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.notes, args.cap, args.profile, args.reads))))


if __name__ == "__main__":
    main()
