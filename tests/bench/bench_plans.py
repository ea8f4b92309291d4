"""Action plan benchmark: validating a 100-step plan, and the cost of a plan step over a direct call.

Run: `python -m tests.bench.bench_plans [--steps 25] [--rounds 21] [--pairs 4] [--concurrency 1] [--control]`.
In process, through the dispatch chain (`Dispatcher.call`, as every transport calls it), on a
300-note vault:

- `validate_100_steps`: validate_plan of a plan of 100 distinct steps (an append to a different
  note each), median over the rounds;
- `direct_per_call` vs `plan_per_step`: the same `--steps` append_note calls, once as direct calls
  one after the other, once as one execute_plan (validation at the start, the journal of each
  file's prior content, the run's bookkeeping included). A round is `--pairs` such pairs, the
  order alternating (direct then plan, plan then direct, ...); its ratio is the plan sides' sum
  over the direct sides' sum. Reported: medians of the per-call time, wall clock
  (`time.perf_counter`) and CPU time of this process (`common.thread_cpu_ns`, less sensitive to
  other processes on a loaded machine: the server runs in this process, its SQLite work in
  threads of it), the median of the per-round ratios and every round's CPU ratio
  (`round_ratios_cpu`). Target: overhead <= 10 %.
- Each side's CPU window starts after a garbage collection (so no side pays for the other's
  garbage) and ends `--settle` seconds after its last call returned, so work a side leaves
  running (index and audit writes finishing) is charged to it, not to the next side (the idle
  server uses ~1 ms of CPU per second).
- `plan_no_journal` (once per round): the same execute_plan with the journal's recorder replaced
  by one that records nothing (in this script only): the difference to `plan` is the journal's
  share (each file's prior content recorded before its write, which undo needs).
- `--control` adds a second direct side to each pair: the ratio of two identical sides
  (`control_round_ratios_cpu`) is how far apart this machine puts identical work in one round,
  the floor under which no per-round ratio can be read.

`--concurrency` is `[plans] max_concurrency`: 1 (the default here) runs the plan's calls one at a
time, the per-step overhead proper; more lets its independent appends overlap.
The throttle is switched off (its limits would pace both sides, not measure them). Prints JSON
(tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.settings import load_settings
from service.types import Principal
from tests.bench.common import report, thread_cpu_ns

NOTES = 300


def _vault(root: Path) -> None:
    for i in range(NOTES):
        (root / "N").mkdir(parents=True, exist_ok=True)
        (root / "N" / f"n{i:03}.md").write_text(f"# n{i}\n\nlinks to [[n{(i + 1) % NOTES:03}]]\n")


def _plan(steps: int, word: str) -> dict[str, Any]:
    return {
        "goal": "append",
        "steps": [
            {"id": f"s{i}", "tool": "append_note", "args": {"path": f"N/n{i:03}.md", "content": f"{word} {i}"}}
            for i in range(steps)
        ],
    }


class _NoRecorder:
    """The `plan_no_journal` side: no recorder in the calls' context, so nothing is journaled."""

    def for_step(self, step_id: str) -> None:
        return None


def _cpu() -> float:
    """CPU seconds of this process's threads (the server's, in process)."""
    return thread_cpu_ns(os.getpid()) / 1e9


def _no_recorder(run_id: str) -> Any:
    return _NoRecorder()


class _Sides:
    """Per-round sums of one side's CPU and wall time, and its call count."""

    def __init__(self) -> None:
        self.cpu: list[float] = []
        self.wall: list[float] = []
        self.calls: list[int] = []

    def new_round(self) -> None:
        self.cpu.append(0.0)
        self.wall.append(0.0)
        self.calls.append(0)

    def add(self, cpu: float, wall: float, calls: int) -> None:
        self.cpu[-1] += cpu
        self.wall[-1] += wall
        self.calls[-1] += calls

    def per_call_cpu(self) -> list[float]:
        return [c / n for c, n in zip(self.cpu, self.calls, strict=True)]

    def per_call_wall(self) -> list[float]:
        return [w / n for w, n in zip(self.wall, self.calls, strict=True)]


async def main(steps: int, rounds: int, concurrency: int, pairs: int, control: bool, settle: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        _vault(root)
        settings = load_settings(
            root,
            embeddings={"provider": "none"},
            throttle={"enabled": False},
            plans={"max_concurrency": concurrency},
        )
        app = VaultgateApp(settings)
        who = Principal.local("bench")
        sides = {name: _Sides() for name in ("direct", "plan", "plan_no_journal", "direct_again")}
        validate: list[float] = []
        async with app.running():
            call = app.dispatcher.call
            journal = app.services.plans.journal
            recorder = journal.recorder
            serial = 0

            async def run(side: str) -> None:
                nonlocal serial
                serial += 1
                word = f"{side[0]}{serial}"
                gc.collect()
                t0, c0 = time.perf_counter(), _cpu()
                if side in ("direct", "direct_again"):
                    for i in range(steps):
                        args = {"path": f"N/n{i:03}.md", "content": f"{word} {i}"}
                        assert not (await call("append_note", args, principal=who)).is_error
                else:
                    if side == "plan_no_journal":
                        journal.recorder = _no_recorder  # type: ignore[method-assign]
                    try:
                        out = await call("execute_plan", {"plan": _plan(steps, word)}, principal=who)
                    finally:
                        journal.recorder = recorder  # type: ignore[method-assign]
                    assert out.structured and out.structured["status"] == "done", out.structured
                wall = time.perf_counter() - t0
                await asyncio.sleep(settle)  # what the side left running (index, audit) is its own
                sides[side].add(_cpu() - c0, wall, steps)

            for r in range(rounds):
                t0 = time.perf_counter()
                checked = await call("validate_plan", {"plan": _plan(100, "v")}, principal=who)
                validate.append(time.perf_counter() - t0)
                assert not checked.is_error and checked.structured and checked.structured["valid"]
                for one in sides.values():
                    one.new_round()
                for k in range(pairs):  # direct, plan / plan, direct / ...: neither side always first
                    order = ["direct", "plan", *(["direct_again"] if control else [])]
                    for side in order if (r + k) % 2 == 0 else order[::-1]:
                        await run(side)
                await run("plan_no_journal")
    direct, plan, bare, again = (sides[n] for n in ("direct", "plan", "plan_no_journal", "direct_again"))
    d, p = statistics.median(direct.per_call_wall()), statistics.median(plan.per_call_wall())
    dc, pc = statistics.median(direct.per_call_cpu()), statistics.median(plan.per_call_cpu())
    ratios = statistics.median(b / a for a, b in zip(direct.wall, plan.wall, strict=True))
    round_ratios_cpu = [b / a for a, b in zip(direct.cpu, plan.cpu, strict=True)]
    result: dict[str, Any] = {
        "steps": steps,
        "rounds": rounds,
        "pairs_per_round": pairs,
        "concurrency": concurrency,
        "validate_100_steps_ms": round(statistics.median(validate) * 1000, 2),
        "direct_per_call_ms": round(d * 1000, 3),
        "plan_per_step_ms": round(p * 1000, 3),
        "overhead_per_step_pct": round((p / d - 1) * 100, 1),
        "direct_per_call_cpu_ms": round(dc * 1000, 3),
        "plan_per_step_cpu_ms": round(pc * 1000, 3),
        "overhead_per_step_cpu_pct": round((pc / dc - 1) * 100, 1),
        "plan_no_journal_per_step_cpu_ms": round(statistics.median(bare.per_call_cpu()) * 1000, 3),
        "median_round_ratio_wall": round(ratios, 3),
        "median_round_ratio_cpu": round(statistics.median(round_ratios_cpu), 3),
        "max_round_ratio_cpu": round(max(round_ratios_cpu), 3),
        "round_ratios_cpu": [round(x, 3) for x in round_ratios_cpu],
        "target_overhead_pct": 10,
    }
    if control:  # the same direct calls twice: how far apart identical work lands on this machine
        control_ratios = [b / a for a, b in zip(direct.cpu, again.cpu, strict=True)]
        result["control_round_ratios_cpu"] = [round(x, 3) for x in control_ratios]
        result["control_max_abs_deviation"] = round(max(abs(x - 1) for x in control_ratios), 3)
    report("bench_plans", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=4, help="direct/plan pairs per round (its ratio sums them)")
    parser.add_argument("--control", action="store_true", help="a second direct side: the noise of identical work")
    parser.add_argument("--settle", type=float, default=0.05, help="seconds after each side, counted in its CPU")
    ns = parser.parse_args()
    asyncio.run(main(ns.steps, ns.rounds, ns.concurrency, ns.pairs, ns.control, ns.settle))
