"""Warm restart → first `search_text` answered over HTTP, old and new source trees alternated.

    python -m tests.bench.bench_restart [--size 100k | --notes 10000] [--old DIR] [--new DIR] [--runs 5]
                                        [--old-as-is]

The figure `bench_index` reports once per run (after a cold index of minutes at 100k notes),
measured here many times in one short run: a private copy of the standard vault is indexed once
by the new tree (not timed), then each run starts `python -m service serve` of one tree on it
(old and new alternating run by run, as `bench_stdio_start` does), connects the SDK client over
HTTP (`initialize`), calls `search_text` until an answer comes back (the client also asks for
`tools/list` before it returns the first result, as every SDK client call does) and polls
`index_status` until the reconcile is over. The preparing start waits for the trigram index
too, so that no restart finds its rebuild unfinished. Recorded from the spawn: the URL printed (the socket
is bound), the session open, the first search answered (whether it was marked `partial`), the
index ready; and the server's CPU time (all its threads) at the first answer, the figure that
survives a loaded machine. Both trees must read the same index schema (no migration between
them). Each tree's `service` package is byte-compiled first, as an install does. Prints JSON:
each figure's samples and median per tree, the new/old ratios of the medians and the 1-minute
load average after every pair. `--old-as-is` leaves the old tree as it is instead (not compiled,
the environment's `PYTHONDONTWRITEBYTECODE` kept): the same code twice, a copy never compiled as
old, prices the compiling of every module a start imports (issue 39: a tree run from a fresh copy
under `PYTHONDONTWRITEBYTECODE=1`, as `bench_index` runs it, pays that at every start).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tests.bench.bench_index import TEXT_ONLY, connect, status
from tests.bench.common import WORKDIR, ServerProcess, forget_index, report, standard_vault, thread_cpu_ns
from tests.bench.workload import SIZES

ROOT = Path(__file__).resolve().parents[2]


def serve_argv(vault: Path) -> list[str]:
    return [sys.executable, "-m", "service", "serve", str(vault), "--port", "0"]


def server_of(src: Path, vault: Path, *, bytecode: bool = True) -> ServerProcess:
    """The tree's server: `PYTHONSAFEPATH` and `PYTHONPATH` pick its `service` package. Without
    `bytecode` the server keeps `PYTHONDONTWRITEBYTECODE` of the environment: a tree never
    byte-compiled then compiles every module it imports from source at every start."""
    server = ServerProcess(serve_argv(vault), env={**TEXT_ONLY, "PYTHONPATH": str(src), "PYTHONSAFEPATH": "1"})
    if bytecode:
        server.env.pop("PYTHONDONTWRITEBYTECODE", None)
    return server


async def one_restart(src: Path, vault: Path, *, bytecode: bool = True) -> dict[str, Any]:
    server = server_of(src, vault, bytecode=bytecode)
    url = server.start()
    listening = time.perf_counter() - server.t_spawn
    try:
        client = await connect(url)
        try:
            session = time.perf_counter() - server.t_spawn
            while True:
                found = await client.call_tool("search_text", {"query": "project", "limit": 5})
                if not found.is_error:
                    break
            first = time.perf_counter() - server.t_spawn
            cpu = thread_cpu_ns(server.pid) / 1e9
            partial = bool((found.structured_content or {}).get("partial"))
            while not (await status(client))["ready"]:
                if time.perf_counter() - server.t_spawn > 300:
                    raise TimeoutError("index not ready")
                await asyncio.sleep(0.05)
            ready = time.perf_counter() - server.t_spawn
        finally:
            await client.__aexit__(None, None, None)
    finally:
        server.stop()
    return {
        "listening_s": listening,
        "session_open_s": session,
        "first_search_s": first,
        "first_search_cpu_s": cpu,
        "first_search_partial": partial,
        "ready_s": ready,
    }


async def prepare(src: Path, vault: Path) -> float:
    """The cold index every run restarts on (the new tree builds it); seconds it took."""
    server = server_of(src, vault)
    url = server.start()
    try:
        client = await connect(url)
        try:
            while not (await status(client))["ready"]:  # noqa: ASYNC110 - polling another process
                await asyncio.sleep(0.5)
            elapsed = time.perf_counter() - server.t_spawn
            # The trigram index is rebuilt after ready: a restart must not find it unfinished
            # (each would start the rebuild again, and wait for it when stopped).
            while not (await status(client))["trigram_ready"]:  # noqa: ASYNC110 - polling another process
                await asyncio.sleep(1.5)
            return elapsed
        finally:
            await client.__aexit__(None, None, None)
    finally:
        server.stop()


async def main(notes: int, runs: int, new: Path, old: Path | None, keep: bool, old_bytecode: bool = True) -> None:
    sides = {"new": new, **({"old": old} if old is not None else {})}
    bytecode = {"new": True, "old": old_bytecode}
    for side, src in sides.items():
        if bytecode[side]:
            compileall.compile_dir(src / "service", quiet=1)
    source, _meta = standard_vault(notes)
    vault = WORKDIR / f"restart-{notes}"
    result: dict[str, Any] = {"notes": notes, "runs": runs, "python": sys.version.split()[0]}
    if not (vault / ".prepared").exists():  # a vault kept by an earlier run (`--keep`) is reused
        shutil.rmtree(vault, ignore_errors=True)
        shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".vaultgate"))
        forget_index(vault)
        result["cold_index_s"] = round(await prepare(sides["new"], vault), 1)
        (vault / ".prepared").write_text("")
    await one_restart(sides["new"], vault)  # the page cache as every counted run finds it
    samples: dict[str, dict[str, list[Any]]] = {side: {} for side in sides}
    loads = [os.getloadavg()[0]]
    try:
        for r in range(runs):
            for side in list(sides) if r % 2 == 0 else list(reversed(sides)):
                for key, value in (await one_restart(sides[side], vault, bytecode=bytecode[side])).items():
                    samples[side].setdefault(key, []).append(value)
            loads.append(os.getloadavg()[0])
    finally:
        if not keep:
            forget_index(vault)
            shutil.rmtree(vault, ignore_errors=True)
    for side, figures in samples.items():
        out: dict[str, Any] = {}
        for key, values in figures.items():
            if key == "first_search_partial":
                out["first_search_partial_runs"] = sum(values)
                continue
            out[f"{key}_samples"] = [round(v, 3) for v in values]
            out[f"{key}_median"] = round(statistics.median(values), 3)
        result[side] = out
    if old is not None:
        result["new_over_old"] = {
            k: round(v / result["old"][k], 3)
            for k, v in result["new"].items()
            if k.endswith("_median") and result["old"].get(k)
        }
        result["old_src"] = str(sides["old"])
    result["new_src"] = str(sides["new"])
    result["old_byte_compiled"] = old_bytecode
    result["load_1min"] = [round(x, 2) for x in loads]
    report(f"restart_{notes}", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--size", choices=sorted(SIZES), help="a named workload size (overrides --notes)")
    parser.add_argument("--old", type=Path, help="also run this source tree, alternating run by run")
    parser.add_argument("--new", type=Path, default=ROOT, help="the source tree measured as new (default: this one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the indexed copy for the next run")
    parser.add_argument(
        "--old-as-is",
        action="store_true",
        help="leave the old tree as it is (not byte-compiled, the environment's PYTHONDONTWRITEBYTECODE kept)",
    )
    ns = parser.parse_args()
    old = ns.old.resolve() if ns.old is not None else None
    notes = SIZES[ns.size] if ns.size else ns.notes
    asyncio.run(main(notes, ns.runs, ns.new.resolve(), old, ns.keep, not ns.old_as_is))
