"""How soon `vaultgate stdio` answers after its spawn: `initialize`, `tools/list` and a first
`read_note`, with the answers an earlier start stored (warm) and on an empty cache folder.

    python -m tests.bench.bench_stdio_start [--old DIR] [--new DIR] [--runs 7] [--vault sample|small|PATH ...]

Each run spawns `python -m service stdio VAULT` (plain JSON-RPC lines over a pipe, no SDK
client: the figure is the server's), sends `initialize`, `notifications/initialized`,
`tools/list` and a `tools/call` of `read_note`, each once the previous one is answered, and
records the time from the spawn to each answer, and the server's CPU time (all its threads)
until the tool list and until the first call were answered: the figures that survive a loaded
machine. Warm runs reuse one cache folder per source tree and vault (primed by a start that is
not counted); empty runs get a new one each time. With `--old DIR` a second source tree (e.g. a
`git worktree` of the commit before a change) runs too, alternating old and new run by run.
Vaults: `sample` (deploy/sample-vault), `small` (ten notes written here), or a path. Each tree's
`service` package is byte-compiled first, as an install does (with `PYTHONDONTWRITEBYTECODE`
set, a source tree would otherwise compile every module at every start). Reported: the median of
each figure per tree, vault and cache state, and new/old ratios. Prints JSON.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.bench.common import WORKDIR, report, thread_cpu_ns

ROOT = Path(__file__).resolve().parents[2]
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def _small_vault() -> Path:
    folder = WORKDIR / "stdio-start-small"
    if not (folder / "Welcome.md").exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "Welcome.md").write_text("# Welcome\n\nA small vault. See [[Note 1]].\n", encoding="utf-8")
        for i in range(1, 10):
            (folder / f"Note {i}.md").write_text(f"---\ntags: [n{i}]\n---\n# Note {i}\n\nText {i}.\n", encoding="utf-8")
    return folder


def _vault(name: str) -> Path:
    if name == "sample":
        copy = WORKDIR / "stdio-start-sample"
        if not copy.exists():
            shutil.copytree(ROOT / "deploy" / "sample-vault", copy)
        return copy
    if name == "small":
        return _small_vault()
    return Path(name).resolve()


def ask(proc: subprocess.Popen[bytes], msg_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode() + b"\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the server closed stdout before answering {method}")
        answer: dict[str, Any] = json.loads(line)
        if answer.get("id") == msg_id:
            return answer


def one_start(src: Path, vault: Path, home: Path) -> dict[str, float]:
    """Spawn → each answer, in seconds, for one start of `src`'s server on `vault`."""
    env = {
        **os.environ,
        "PYTHONPATH": str(src),
        "PYTHONSAFEPATH": "1",
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
    }
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "stdio", str(vault)],
        cwd=src,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        times: dict[str, float] = {}
        ask(proc, 1, "initialize", INIT)
        times["initialize"] = time.perf_counter() - t0
        assert proc.stdin is not None
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        ask(proc, 2, "tools/list", {})
        times["tools_list"] = time.perf_counter() - t0
        times["tools_list_cpu"] = thread_cpu_ns(proc.pid) / 1e9  # the server's CPU until the list went out
        answer = ask(proc, 3, "tools/call", {"name": "read_note", "arguments": {"path": "Welcome"}})
        times["first_call"] = time.perf_counter() - t0
        times["first_call_cpu"] = thread_cpu_ns(proc.pid) / 1e9  # the server's CPU until then: load-proof
        if "result" not in answer or answer["result"].get("isError"):
            raise RuntimeError(f"read_note failed: {answer}")
        proc.stdin.close()
        proc.wait(timeout=60)
        return times
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def main(old: Path | None, runs: int, vaults: list[str], new: Path = ROOT) -> None:
    sides = {"new": new.resolve(), **({"old": old.resolve()} if old is not None else {})}
    samples: dict[str, list[float]] = {}
    loads = [os.getloadavg()[0]]
    for src in sides.values():  # what `pip install` does: no start compiles the sources
        compileall.compile_dir(src / "service", quiet=1)
    for vault_name in vaults:
        vault = _vault(vault_name)
        tag = Path(vault_name).name
        for side, src in sides.items():  # the warm cache folders: primed, not counted
            home = WORKDIR / f"stdio-start-{side}-{tag}-warm"
            shutil.rmtree(home, ignore_errors=True)
            one_start(src, vault, home)
        for r in range(runs):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for side in order:
                for state in ("warm", "empty"):
                    home = WORKDIR / f"stdio-start-{side}-{tag}-{state}"
                    if state == "empty":
                        shutil.rmtree(home, ignore_errors=True)
                    for step, seconds in one_start(sides[side], vault, home).items():
                        samples.setdefault(f"{side}|{tag}|{state}|{step}", []).append(seconds)
            loads.append(os.getloadavg()[0])
    result: dict[str, Any] = {"runs": runs, "load_1min": [round(x, 2) for x in loads], "python": sys.version.split()[0]}
    for key, values in samples.items():
        side, tag, state, step = key.split("|")
        result.setdefault(side, {}).setdefault(tag, {}).setdefault(state, {})[f"{step}_p50_ms"] = round(
            statistics.median(values) * 1000, 1
        )
    if old is not None:
        result["new_over_old"] = {
            tag: {
                state: {k: round(v / result["old"][tag][state][k], 3) for k, v in figures.items()}
                for state, figures in by_state.items()
            }
            for tag, by_state in result["new"].items()
        }
        result["old_src"] = str(old)
    result["new_src"] = str(new)
    report("stdio_start", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="also run this source tree, alternating run by run")
    parser.add_argument("--new", type=Path, default=ROOT, help="the source tree measured as new (default: this one)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--vault", action="append", dest="vaults", help="sample, small or a folder (repeatable)")
    args = parser.parse_args()
    main(args.old, args.runs, args.vaults or ["sample", "small"], args.new)
