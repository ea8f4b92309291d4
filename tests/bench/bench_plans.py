"""Action plan benchmark: validating a 100-step plan, and the cost of a plan step over a direct call.

Run: `python -m tests.bench.bench_plans [--steps 25] [--rounds 21] [--concurrency 1]`. In process, through the
dispatch chain (`Dispatcher.call`, as every transport calls it), on a 300-note vault:

- `validate_100_steps`: validate_plan of a plan of 100 distinct steps (an append to a different
  note each), median over the rounds;
- `direct_per_call` vs `plan_per_step`: the same `--steps` append_note calls, once as direct calls
  one after the other, once as one execute_plan (validation at the start, the journal of each
  file's prior content, the run's bookkeeping included), in alternating rounds (direct then plan,
  plan then direct, ...); medians of the per-call time, wall clock (`time.perf_counter`) and CPU
  time of this process (`common.thread_cpu_ns`, less sensitive to other processes on a loaded
  machine: the server runs in this process, its SQLite work in threads of it), the median of
  the per-round ratios and every round's CPU ratio (`round_ratios_cpu`). Target: overhead <= 10 %.
  Garbage is collected before each side (outside the timing), so no side pays for the other's.
A third side, `plan_no_journal`, is the same execute_plan with the journal's recorder replaced by
one that records nothing (in this script only): the difference to `plan` is the journal's share
(the committed row of each file's prior content before its write, which undo needs).
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


async def main(steps: int, rounds: int, concurrency: int) -> None:
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
        async with app.running():
            call = app.dispatcher.call
            validate: list[float] = []
            direct: list[float] = []
            planned: list[float] = []
            direct_cpu: list[float] = []
            planned_cpu: list[float] = []
            bare_cpu: list[float] = []
            journal = app.services.plans.journal
            recorder = journal.recorder
            for r in range(rounds):
                t0 = time.perf_counter()
                checked = await call("validate_plan", {"plan": _plan(100, "v")}, principal=who)
                validate.append(time.perf_counter() - t0)
                assert not checked.is_error and checked.structured and checked.structured["valid"]
                order = ["direct", "plan", "plan_no_journal"]
                for side in order if r % 2 == 0 else order[::-1]:
                    gc.collect()
                    t0, c0 = time.perf_counter(), _cpu()
                    if side == "direct":
                        for i in range(steps):
                            args = {"path": f"N/n{i:03}.md", "content": f"d{r} {i}"}
                            assert not (await call("append_note", args, principal=who)).is_error
                        direct.append((time.perf_counter() - t0) / steps)
                        direct_cpu.append((_cpu() - c0) / steps)
                    elif side == "plan":
                        run = await call("execute_plan", {"plan": _plan(steps, f"p{r}")}, principal=who)
                        planned.append((time.perf_counter() - t0) / steps)
                        planned_cpu.append((_cpu() - c0) / steps)
                        assert run.structured and run.structured["status"] == "done", run.structured
                    else:
                        journal.recorder = _no_recorder  # type: ignore[method-assign]
                        try:
                            run = await call("execute_plan", {"plan": _plan(steps, f"b{r}")}, principal=who)
                        finally:
                            journal.recorder = recorder  # type: ignore[method-assign]
                        bare_cpu.append((_cpu() - c0) / steps)
                        assert run.structured and run.structured["status"] == "done", run.structured
    d, p = statistics.median(direct), statistics.median(planned)
    dc, pc = statistics.median(direct_cpu), statistics.median(planned_cpu)
    ratios = statistics.median(b / a for a, b in zip(direct, planned, strict=True))
    round_ratios_cpu = [b / a for a, b in zip(direct_cpu, planned_cpu, strict=True)]
    ratios_cpu = statistics.median(round_ratios_cpu)
    report(
        "bench_plans",
        {
            "steps": steps,
            "rounds": rounds,
            "concurrency": concurrency,
            "validate_100_steps_ms": round(statistics.median(validate) * 1000, 2),
            "direct_per_call_ms": round(d * 1000, 3),
            "plan_per_step_ms": round(p * 1000, 3),
            "overhead_per_step_pct": round((p / d - 1) * 100, 1),
            "direct_per_call_cpu_ms": round(dc * 1000, 3),
            "plan_per_step_cpu_ms": round(pc * 1000, 3),
            "overhead_per_step_cpu_pct": round((pc / dc - 1) * 100, 1),
            "plan_no_journal_per_step_cpu_ms": round(statistics.median(bare_cpu) * 1000, 3),
            "median_round_ratio_wall": round(ratios, 3),
            "median_round_ratio_cpu": round(ratios_cpu, 3),
            "max_round_ratio_cpu": round(max(round_ratios_cpu), 3),
            "round_ratios_cpu": [round(x, 3) for x in round_ratios_cpu],
            "target_overhead_pct": 10,
        },
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--concurrency", type=int, default=1)
    ns = parser.parse_args()
    asyncio.run(main(ns.steps, ns.rounds, ns.concurrency))
