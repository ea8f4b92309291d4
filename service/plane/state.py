"""What the plane keeps of its runs per vault (`plane_state`): the last run, the schedule's cursor and
the summary, with each job's cursor (`job_since`) and own memory (`kept`), and the run of every job
not finished yet (`unfinished`: its id, start, the jobs it recorded and their counts, `with_job`)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any


def upsert(
    conn: sqlite3.Connection, vault_id: str, last_run: float | None, cursor: float | None, summary: dict[str, Any]
) -> None:
    conn.execute(
        "INSERT INTO plane_state(vault_id, last_run, last_run_id, cursor, summary) VALUES (?,?,?,?,?)"
        " ON CONFLICT(vault_id) DO UPDATE SET last_run=excluded.last_run, last_run_id=excluded.last_run_id,"
        " cursor=excluded.cursor, summary=excluded.summary",
        (vault_id, last_run, summary.get("run_id"), cursor, json.dumps(summary)),
    )


def saved_in(conn: sqlite3.Connection, vault_id: str) -> dict[str, Any]:
    """The vault's state as `Plane.saved` reads it, in a transaction of the writer."""
    row = conn.execute(
        "SELECT last_run, last_run_id, cursor, summary FROM plane_state WHERE vault_id = ?", (vault_id,)
    ).fetchone()
    if row is None:
        return {"last_run": None, "last_run_id": None, "cursor": None, "summary": {}}
    return {"last_run": row[0], "last_run_id": row[1], "cursor": row[2], "summary": json.loads(row[3] or "{}")}


def unfinished_of(saved: dict[str, Any]) -> dict[str, Any] | None:
    """The run of every job that recorded some of its jobs and not its end (a cancel, a stop, a
    kill): `run_id`, `started_at`, `done` (the jobs it recorded), `counts` (their new / again / gone,
    `counted_of`). None: there is none."""
    summary = saved["summary"] if isinstance(saved["summary"], dict) else {}
    left = summary.get("unfinished")
    if not isinstance(left, dict) or not isinstance(left.get("started_at"), int | float) or not left.get("run_id"):
        return None
    return left if isinstance(left.get("done"), list) else None


def counted_of(left: dict[str, Any]) -> dict[str, int]:
    """New / again / gone of an unfinished run's jobs recorded (`unfinished_of`): what the run that
    goes on with it counts from. A run left unfinished before they were kept: none (its part only)."""
    counts = left.get("counts")
    if not isinstance(counts, dict):
        return {}
    return {str(k): int(v) for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}


def goes_on(saved: dict[str, Any], now: float, interval_s: float) -> dict[str, Any] | None:
    """The unfinished run a run of the schedule goes on with (its jobs left only): one that began
    less than an interval ago. Older, its jobs' findings are an interval old: a whole run starts; so
    does one begun after `now` (the clock went back: its age is not known)."""
    left = unfinished_of(saved)
    return left if left is not None and 0 <= now - float(left["started_at"]) < interval_s else None


def with_job(
    saved: dict[str, Any],
    report: dict[str, Any],
    order: list[str],
    *,
    cursor: float | None,
    kept: dict[str, Any] | None,
    unfinished: dict[str, Any] | None,
) -> tuple[float | None, float | None, dict[str, Any]]:
    """The state once a job of a run is recorded (its findings in the same transaction): its report
    in place of its last one, its cursor (a run of every job) and its own memory (a job that ran),
    and the run still `unfinished` (a run of every job; a run of some keeps the one there). The
    last run, its id and the schedule's anchor stay until the run's end (`state_after`)."""
    summary = dict(saved["summary"]) if isinstance(saved["summary"], dict) else {}
    rank = {name: i for i, name in enumerate(order)}
    jobs = [r for r in summary.get("jobs", []) if isinstance(r, dict) and r.get("job") != report["job"]]
    summary["jobs"] = sorted([*jobs, report], key=lambda r: rank.get(str(r.get("job")), len(rank)))
    if cursor is not None:
        summary["cursors"] = {**(summary.get("cursors") or {}), report["job"]: cursor}
    if kept is not None:
        summary["kept"] = {**(summary.get("kept") or {}), report["job"]: kept}
    if unfinished is not None:
        summary["unfinished"] = unfinished
    return saved["last_run"], saved["cursor"], summary


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


def cursors_of(saved: dict[str, Any]) -> dict[str, float]:
    """Each job's cursor as saved (`job_since` reads one)."""
    summary = saved["summary"] if isinstance(saved["summary"], dict) else {}
    cursors = summary.get("cursors")
    return (
        {str(k): float(v) for k, v in cursors.items() if isinstance(v, int | float)}
        if isinstance(cursors, dict)
        else {}
    )


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
    if unfinished_of(saved) is not None:  # a run of every job not finished: the schedule goes on with it
        summary["unfinished"] = before["unfinished"]
    cursor = saved["cursor"] if saved["cursor"] is not None else started
    return ended, cursor, summary
