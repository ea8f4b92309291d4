"""run_consolidation's answer (the tool's and its MCP task's): a run's jobs and its counts, over
all its findings or over those one caller is shown (`service.tools.plane.shown_to`); and what
plane_status tells of the runs recorded: the last run's counts, the unfinished run."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.plane import plane as plane_module
from service.plane.findings import Shown
from service.plane.plane import Plane
from service.plane.runs import COUNTED, RunResult
from service.plane.state import unfinished_of
from service.tools.models import ToolOutput

Status = Literal["done", "running", "cancelled"]


class JobReportOut(BaseModel):
    job: str = Field(description="Job name.")
    status: str = Field(description="ran, skipped or failed.")
    reason: str | None = Field(
        description="Why it was skipped or failed, or that it stopped at max_findings (the rest are not gone)."
    )
    findings: int = Field(description="Findings it reported (of those the caller may see).")
    seconds: float = Field(description="How long it took.")


class RunOut(ToolOutput):
    run_id: str | None = Field(description="The run's id (null when a cancel found none).")
    status: Status = Field(description="Where the run is.")
    jobs: list[JobReportOut] = Field(
        description="Each job's outcome: when done, or cancelled (the jobs it recorded before; the job it was in "
        "recorded nothing, and the schedule's next run goes on with the jobs left)."
    )
    new: int = Field(description="New findings (of those the caller may see, as are again and gone).")
    again: int = Field(description="Findings found again (a dismissed one stays dismissed).")
    gone: int = Field(description="Open findings no longer found.")
    auto_applied: list[str] = Field(description="Findings applied by the run ([plane] auto_apply).")


def run_out(result: RunResult, shown: Shown | None = None, status: Status = "done") -> RunOut:
    """The run's answer: its counts over all its findings, or over those `shown` admits (`shown_to`).
    A cancelled run (`status`) answers with the jobs it recorded before the cancel."""
    counts, applied = result.counts or result.recorded.counts(), result.auto_applied
    per_job = {r.job: r.findings for r in result.jobs}
    if shown is not None:
        counts, per_job = result.recorded.counts(shown), result.recorded.per_job(shown)
        mine = result.recorded.ids(shown)
        applied = [fid for fid in applied if fid in mine]
    return RunOut(
        run_id=result.run_id,
        status=status,
        jobs=[
            JobReportOut(job=r.job, status=r.status, reason=r.reason, findings=per_job.get(r.job, 0), seconds=r.seconds)
            for r in result.jobs
        ],
        new=counts.get("new", 0),
        again=counts.get("again", 0),
        gone=counts.get("gone", 0),
        auto_applied=applied,
    )


def idle_out(run_id: str | None, status: Literal["running", "cancelled"]) -> RunOut:
    """A run's answer with nothing recorded (running, or cancelled before its first job ended)."""
    return RunOut(run_id=run_id, status=status, jobs=[], new=0, again=0, gone=0, auto_applied=[])


def iso(stamp: float | None) -> str | None:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).isoformat(timespec="seconds") if stamp else None


def last_counts(saved: dict[str, Any]) -> dict[str, int] | None:
    """The last run's new / again / gone as it recorded them (`RunResult.whole`); None before a run."""
    counts = saved["summary"].get("counts") if isinstance(saved["summary"], dict) else None
    if saved["last_run"] is None or not isinstance(counts, dict):
        return None
    return {k: int(counts.get(k, 0)) for k in COUNTED}


def unfinished_out(plane: Plane, saved: dict[str, Any]) -> dict[str, Any] | None:
    left = unfinished_of(saved)
    if left is None:
        return None
    done = [str(name) for name in left["done"]]
    rest = [j.name for j in plane.jobs if j.name not in done]
    began, now = float(left["started_at"]), plane_module.wall()
    until = began + plane.settings.interval_minutes * 60 if began <= now else now  # begun "later": run whole now
    return {
        "run_id": left["run_id"],
        "started_at": iso(float(left["started_at"])),
        "done": done,
        "left": rest,
        "goes_on_until": iso(until),
    }
