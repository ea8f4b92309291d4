"""What the plane keeps of its runs per vault (`plane_state`): the last run, the schedule's cursor and
the summary, with each job's cursor (`job_since`) and own memory (`kept`)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any


def upsert(
    conn: sqlite3.Connection, vault_id: str, last_run: float | None, cursor: float, summary: dict[str, Any]
) -> None:
    conn.execute(
        "INSERT INTO plane_state(vault_id, last_run, last_run_id, cursor, summary) VALUES (?,?,?,?,?)"
        " ON CONFLICT(vault_id) DO UPDATE SET last_run=excluded.last_run, last_run_id=excluded.last_run_id,"
        " cursor=excluded.cursor, summary=excluded.summary",
        (vault_id, last_run, summary.get("run_id"), cursor, json.dumps(summary)),
    )


def job_since(saved: dict[str, Any], job: str) -> float | None:
    """Where `job`'s window starts (its cursor; None: never ran): the start of the last full run it
    ran in; a full run it was skipped in or failed keeps it where it was (or at its first window),
    so its retry covers what that run missed. A state saved before jobs had their own cursor has
    the last full run's for all of them."""
    cursors = saved["summary"].get("cursors") if isinstance(saved["summary"], dict) else None
    if isinstance(cursors, dict) and isinstance(cursors.get(job), int | float):
        return float(cursors[job])
    return saved["cursor"] if full_run_end(saved) is not None else None


def full_run_end(saved: dict[str, Any]) -> float | None:
    """When the last run of every job ended (None: never): the schedule's anchor. A state saved
    before partial runs were told apart has no `full_run_end`; its last run counts as full."""
    summary = saved["summary"] if isinstance(saved["summary"], dict) else {}
    found = summary.get("full_run_end", saved["last_run"])
    return float(found) if isinstance(found, int | float) else None


def kept_of(saved: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each job's own memory as its last run that ran left it (`JobContext.kept`)."""
    summary = saved["summary"] if isinstance(saved["summary"], dict) else {}
    kept = summary.get("kept")
    return {str(k): dict(v) for k, v in kept.items() if isinstance(v, dict)} if isinstance(kept, dict) else {}


def state_after(
    saved: dict[str, Any], summary: dict[str, Any], order: list[str], *, partial: bool
) -> tuple[float | None, float, dict[str, Any]]:
    """The state a run leaves (last run, cursor, summary), from its `summary` (`RunResult.summary`)
    and the jobs' order. A run of some jobs only (`run_consolidation` with `jobs`) is the last run
    (`last_run`, `last_run_id`), but the schedule stays where the last full run put it — its end
    (`full_run_end` in the summary) and its cursor: the other jobs are not put off by an interval,
    and changes since that cursor stay in the next full run of every job — and its job reports
    replace only those jobs' reports in the summary."""
    ended, started = float(summary["ended_at"]), float(summary["started_at"])
    if not partial:
        return ended, started, {**summary, "full_run_end": ended}
    before = saved["summary"] if isinstance(saved["summary"], dict) else {}
    summary = {**summary, "cursors": before.get("cursors") or {}}  # the jobs' cursors too stay where they were
    mine = {r["job"] for r in summary["jobs"]}
    kept = [r for r in before.get("jobs", []) if isinstance(r, dict) and r.get("job") not in mine]
    rank = {name: i for i, name in enumerate(order)}
    summary["jobs"] = sorted([*kept, *summary["jobs"]], key=lambda r: rank.get(str(r.get("job")), len(rank)))
    summary["full_run_end"] = full_run_end(saved)
    cursor = saved["cursor"] if saved["cursor"] is not None else started
    return ended, cursor, summary
