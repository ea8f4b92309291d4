"""plane domain: the consolidation plane — plane_status, run_consolidation, list_findings,
dismiss_finding, apply_finding.

A finding is what a consolidation job noticed (`service.plane`); an actionable one carries an
action plan. `apply_finding` runs that plan through `execute_plan` on the whole chain (validated,
previewed, confirmed where its steps need a human, journaled, undoable with `undo_last_plan`)
after checking that the notes it is about have not changed since it was found (their etags): a
changed one is refused with `conflict` (unless the finding is about two observations of one entity,
both still there as found: `service.plane.holds`), and the next run finds it again if it holds. The
call first claims the finding (open → applying, atomically): of concurrent calls one runs the
plan, the others get `conflict`; a plan run that does not complete (`failed`, `cancelled`) is a
`conflict` error naming its run and failed steps, and the finding is open again.
A caller sees only the findings about notes it may read (and the vault-wide ones when no path
rule restricts it), and every count it is given — `plane_status`'s by kind and per job,
`run_consolidation`'s per job and new / again / gone, `list_findings`' total — is counted over
those findings only; the note text a finding quotes is shown as the search tools show it (a secret
redacted under `[sensitive]`: `shown`). Touches: `plane_findings` and `plane_state` (state database); the vault only
through the plans it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.errors import AclDenied, Conflict, ModeUnavailable, NoteNotFound, ValidationFailed
from service.plane.findings import Finding, Shown, known_kind
from service.plane.plane import Plane
from service.retrieval.sensitive import Guard
from service.security.scopes import narrowing
from service.security.visible import unrestricted
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.plane.answers import RunOut, idle_out, iso, last_counts, run_out, unfinished_out
from service.tools.plane.applying import no_plan_hint, run_plan
from service.tools.plane.shown import shown
from service.tools.sensitive import guard_of
from service.tools.spec import ToolSpec

WAIT_S = 10.0  # run_consolidation without `wait`: how long it waits before answering with the running run


def _plane(ctx: ToolContext) -> Plane:
    if ctx.services.plane is None:  # pragma: no cover - the app always has one
        raise ModeUnavailable("the consolidation plane is not running")
    return ctx.services.plane


def shown_to(ctx: ToolContext) -> Shown | None:
    """Which findings the caller is shown, by the notes they are about (None: all of them): those
    about notes it may read every one of; a vault-wide finding (about no note) only when no path
    rule restricts it."""
    if unrestricted(ctx):
        return None
    return lambda paths: bool(paths) and all(ctx.can_read(p) for p in paths)


def _visible(ctx: ToolContext, finding: Finding) -> bool:
    shown = shown_to(ctx)
    return shown is None or shown(finding.paths)


# -- plane_status -----------------------------------------------------------------------------


class StatusIn(ToolInput):
    pass


class JobStatus(BaseModel):
    job: str = Field(description="Job name.")
    needs: list[str] = Field(description="What it needs (index, memory, vectors, llm).")
    available: bool = Field(description="Whether it can run now.")
    reason: str | None = Field(description="Why not, when it cannot.")
    last_status: str | None = Field(description="ran, skipped or failed at the last run.")
    last_findings: int | None = Field(
        description="Findings it reported at the last run (for a caller a path rule restricts: those it may see; "
        "null when that is not known)."
    )
    last_reason: str | None = Field(description="Why it was skipped, failed or stopped at max_findings last run.")


class StatusOut(ToolOutput):
    vault: str = Field(description="Vault id.")
    enabled: bool = Field(description="Whether runs start by themselves ([plane] enabled).")
    interval_minutes: int = Field(description="Minutes between two runs.")
    after_changes: int = Field(description="Changed notes that start a run sooner.")
    last_run: str | None = Field(description="When the last run ended (ISO UTC).")
    last_run_id: str | None = Field(description="Its id.")
    last_counts: dict[str, int] | None = Field(
        description="The last run's findings: new, again (found again) and gone, over the whole run (one a cancel, "
        "a stop or a kill ended part way and the schedule went on with: both parts). null before a run, and for a "
        "caller a path rule restricts (counted over all findings; run_consolidation's answer counts its own)."
    )
    last_run_went_on: str | None = Field(
        description="When the last run went on after a cancel, a stop or a kill (ISO UTC): its jobs before ran "
        "from its start, the others from then. null: it ran in one go."
    )
    next_run: str | None = Field(description="When the next run is due at the latest (null when disabled).")
    running: dict[str, Any] | None = Field(description="The run in progress: run_id, job, done, total.")
    unfinished: dict[str, Any] | None = Field(
        description="A run of every job a cancel, a stop or a kill ended part way: run_id, started_at, done (the "
        "jobs it recorded, each whole), left (the schedule's next run runs these only, while the run began less "
        "than interval_minutes ago; a whole run after that) and goes_on_until (that moment, ISO UTC). null: none."
    )
    jobs: list[JobStatus] = Field(description="Each job, in run order.")
    findings: dict[str, dict[str, int]] = Field(
        description="Findings by kind and status (open, dismissed...), of those the caller may see."
    )
    gateway: str = Field(description="The inference gateway: 'not configured', or its model and URL (and last error).")
    auto_apply: list[str] = Field(description="Finding kinds runs apply by themselves.")


async def plane_status(ctx: ToolContext, args: StatusIn) -> StatusOut:
    plane = _plane(ctx)
    saved = await plane.saved(ctx.vault.id)
    summary = saved["summary"] if isinstance(saved["summary"], dict) else {}
    last = summary.get("jobs", [])
    by_job = {r.get("job"): r for r in last if isinstance(r, dict)}
    shown = shown_to(ctx)
    jobs = []
    for job in plane.jobs:
        reason = plane.missing(job, ctx.vault)
        report = by_job.get(job.name, {})
        found = report.get("findings")
        if shown is not None and found:  # counted again over the findings the caller may see
            run_id = report.get("run_id")
            found = await plane.findings.of_run(ctx.vault.id, job.name, run_id, shown) if run_id else None
        jobs.append(
            JobStatus(
                job=job.name,
                needs=list(job.needs),
                available=reason is None,
                reason=reason,
                last_status=report.get("status"),
                last_findings=found,
                last_reason=report.get("reason"),
            )
        )
    counts = await plane.findings.counts(ctx.vault.id, shown)
    return StatusOut(
        vault=ctx.vault.id,
        enabled=plane.settings.enabled,
        interval_minutes=plane.settings.interval_minutes,
        after_changes=plane.settings.after_changes,
        last_run=iso(saved["last_run"]),
        last_run_id=saved["last_run_id"],
        last_counts=last_counts(saved) if shown is None else None,
        last_run_went_on=iso(summary.get("went_on_at")) if saved["last_run"] is not None else None,
        next_run=iso(plane.next_run(saved)),
        running=plane.running.get(ctx.vault.id),
        unfinished=unfinished_out(plane, saved),
        jobs=jobs,
        findings=counts,
        gateway=plane.gateway.describe(),
        auto_apply=list(plane.settings.auto_apply),
    )


# -- run_consolidation ------------------------------------------------------------------------


class RunIn(ToolInput):
    jobs: list[str] | None = Field(default=None, max_length=20, description="Only these jobs (default: all).")
    wait: bool | None = Field(
        default=None,
        description="true: wait for the run's end (progress meanwhile); false: answer at once; unset: wait up "
        "to 10 s, then answer with the running run (plane_status shows it).",
    )
    cancel: bool = Field(
        default=False,
        description="Stop the run in progress instead: the jobs it finished stay recorded (the answer lists them), "
        "the job in progress records nothing; once the run is recorded, it applies no further auto_apply finding.",
    )


async def run_consolidation(ctx: ToolContext, args: RunIn) -> RunOut:
    plane = _plane(ctx)
    vid = ctx.vault.id
    if args.cancel:  # its answer: the jobs it recorded (a job ends recorded whole, or not at all)
        stopped = await plane.cancel(vid)
        if stopped is None or stopped.result is None:
            return idle_out(stopped.run_id if stopped else None, "cancelled")
        return run_out(stopped.result, shown_to(ctx), "cancelled")
    names = {j.name for j in plane.jobs}
    unknown = sorted(set(args.jobs or ()) - names)
    if unknown or args.jobs == []:  # an empty list would run nothing and stand as the last run
        what = (
            f"no consolidation job {unknown[0]!r}" if unknown else "jobs is empty: name some, or leave it out for all"
        )
        raise ValidationFailed(what, details={"field": "jobs", "jobs": sorted(names)})

    async def progress(done: int, total: int, message: str) -> None:
        with contextlib.suppress(Exception):  # a gone client does not stop the run
            await ctx.progress(done, total, message)

    launched, _joined = plane.launch(vid, only=args.jobs, progress=progress)
    within = WAIT_S if args.wait is None else (None if args.wait else 0.0)
    if within != 0.0:
        # waiting is no work: the run gives way to the other calls, not to this one
        with contextlib.suppress(TimeoutError), plane.activity.aside() if plane.activity else contextlib.nullcontext():
            try:
                return run_out(await asyncio.wait_for(asyncio.shield(launched.task), within), shown_to(ctx))
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if not launched.task.cancelled() or (current is not None and current.cancelling()):
                    raise  # this call was cancelled, not the run
            # another caller cancelled the run this call waited for: what it recorded, as its cancel answers
            if launched.result is None:
                return idle_out(launched.run_id, "cancelled")
            return run_out(launched.result, shown_to(ctx), "cancelled")
    return idle_out(launched.run_id, "running")


# -- list_findings / dismiss_finding / apply_finding ------------------------------------------


class ListIn(ToolInput):
    kind: str | None = Field(default=None, max_length=60, description="Only this kind (duplicate, broken_link...).")
    status: Literal["open", "applying", "dismissed", "applied", "gone"] | None = Field(
        default="open", description="Only findings in this state (default open; null: all)."
    )
    limit: int = Field(default=50, ge=1, le=500, description="Findings per page.")
    cursor: str | None = Field(default=None, description="`next_cursor` from the previous page.")


class FindingOut(BaseModel):
    id: str = Field(description="Finding id (`f-…`).")
    job: str = Field(description="The job that found it.")
    kind: str = Field(description="What kind of finding.")
    title: str = Field(description="One line.")
    detail: dict[str, Any] = Field(description="What was found.")
    paths: list[str] = Field(description="The notes it is about.")
    plan: dict[str, Any] | None = Field(description="The action plan that acts on it (null: to read only).")
    status: str = Field(description="open, applying (a call is running its plan now), dismissed, applied or gone.")
    found_at: str | None = Field(description="When it was first found (ISO UTC).")


class ListOut(ToolOutput):
    items: list[FindingOut] = Field(description="Findings, oldest first.")
    total: int = Field(description="Findings matching, of those the caller may see.")
    next_cursor: str | None = Field(description="Cursor for the next page, None at the end.")


def _finding_out(f: Finding, guard: Guard) -> FindingOut:
    title, detail, plan = shown(guard, f)  # secrets quoted from notes: as the search tools show them
    return FindingOut(
        id=f.id,
        job=f.job,
        kind=f.kind,
        title=title,
        detail=detail,
        paths=f.paths,
        plan=plan,
        status=f.status,
        found_at=iso(f.found_at),
    )


async def list_findings(ctx: ToolContext, args: ListIn) -> ListOut:
    plane = _plane(ctx)
    if args.kind is not None:
        known_kind(args.kind)
    state = {"k": args.kind, "s": args.status}
    offset = decode_cursor(args.cursor, **state)
    page, total = await plane.findings.page(
        ctx.vault.id, status=args.status, kind=args.kind, offset=offset, limit=args.limit, shown=shown_to(ctx)
    )
    more = offset + len(page) < total
    return ListOut(
        items=[_finding_out(f, guard_of(ctx)) for f in page],
        total=total,
        next_cursor=encode_cursor(offset + args.limit, **state) if more else None,
    )


class FindingIn(ToolInput):
    finding_id: str = Field(pattern=r"^f-[0-9a-f]{12}$", description="The finding (`f-…`).")


class DismissOut(ToolOutput):
    finding_id: str = Field(description="The finding.")
    status: str = Field(description="dismissed: later runs keep it dismissed.")


async def _finding(ctx: ToolContext, finding_id: str) -> Finding:
    found = await _plane(ctx).findings.get(ctx.vault.id, finding_id)
    if found is None or not _visible(ctx, found):
        raise NoteNotFound(
            f"no finding {finding_id!r}",
            details={"finding_id": finding_id},
            hint="list_findings lists the findings you may see, with their ids (status: null for all of them).",
        )
    return found


def _check_write(ctx: ToolContext, found: Finding) -> None:
    """Changing a finding's state (for every caller, and for auto_apply) needs write access to the
    notes it is about; a vault-wide one (about no note) a write scope not narrowed to a folder."""
    guard = ctx.services.guard
    denied = [p for p in found.paths if not guard.allows(ctx.principal, ctx.vault, p, "write")]
    if denied or (not found.paths and narrowing(ctx.principal.scopes, "write:vault") is not None):
        raise AclDenied(
            f"dismissing finding {found.id!r} needs write access to the notes it is about",
            details={"finding_id": found.id, "path": denied[0] if denied else None, "op": "write"},
        )


async def dismiss_finding(ctx: ToolContext, args: FindingIn) -> DismissOut:
    found = await _finding(ctx, args.finding_id)
    _check_write(ctx, found)
    await _plane(ctx).findings.mark(found.id, "dismissed")
    return DismissOut(finding_id=found.id, status="dismissed")


class ApplyIn(FindingIn):
    dry_run: bool = Field(default=False, description="Check the finding and return its plan's effects; change nothing.")


class ApplyOut(ToolOutput):
    finding_id: str = Field(description="The finding.")
    status: str = Field(
        description="applied (a plan run that did not complete is an error; the finding stays open); dry-run."
    )
    run: dict[str, Any] = Field(
        description="execute_plan's answer (its run_id undoes it with undo_last_plan); for a dry run, its effects."
    )


async def apply_finding(ctx: ToolContext, args: ApplyIn) -> ApplyOut:
    plane = _plane(ctx)
    found = await _finding(ctx, args.finding_id)
    if found.plan is None:
        raise ValidationFailed(
            "this finding has no plan: it is to read",
            details={"finding_id": found.id, "kind": found.kind},
            hint=no_plan_hint(found.kind),
        )
    if args.dry_run:  # what applying would change, with the checks applying makes: nothing claimed, nothing run
        if found.status != "open":
            raise Conflict(f"the finding is {found.status}", details={"finding_id": found.id, "status": found.status})
        return ApplyOut(finding_id=found.id, status="dry-run", run=await run_plan(ctx, found, None, dry_run=True))
    if found.status != "open" or not await plane.findings.claim(ctx.vault.id, found.id):
        status = found.status if found.status != "open" else "applying"  # another call claimed it first
        raise Conflict(
            f"the finding is {status}",
            details={"finding_id": found.id, "status": status},
            hint="list_findings shows the open findings; undo_last_plan reverses an applied one.",
        )
    try:
        run = await run_plan(ctx, found, args.elicit_token)
    except BaseException:
        await plane.findings.release(found.id)  # not applied: open again
        raise
    run_id = run.get("run_id")
    await plane.findings.mark(found.id, "applied", run_id=str(run_id) if run_id else None)
    return ApplyOut(finding_id=found.id, status="applied", run=run)


_STATE = {"scopes": ("write:vault",), "scope_class": "write", "mutating": True, "reads_index": False}

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="plane_status",
        domain="plane",
        title="Consolidation status",
        description="The consolidation plane of the vault: its jobs (enabled or why not), last and next run, the "
        "run in progress, findings by kind and status, and the inference gateway's state.",
        input_model=StatusIn,
        output_model=StatusOut,
        handler=plane_status,
        reads_index=False,
        tags=("plane",),
    ),
    ToolSpec(
        name="run_consolidation",
        domain="plane",
        title="Run consolidation now",
        description="Run the consolidation jobs now (all, or those named): duplicates, contradictions, stale items, "
        "the vault audit, topic maps, a digest. Waits up to 10 s with progress, then answers with the running "
        "run (wait=true: to its end); cancel=true stops it. As an MCP task: progress and cancellation through "
        "the task. Findings: list_findings.",
        input_model=RunIn,
        output_model=RunOut,
        handler=run_consolidation,
        task_support=True,
        scopes=("admin",),
        scope_class="admin",
        mutating=True,
        idempotent=False,
        reads_index=False,
        tags=("plane", "admin"),
    ),
    ToolSpec(
        name="list_findings",
        domain="plane",
        title="List consolidation findings",
        description="Findings of the consolidation runs, paginated, by kind and status: what was found, the notes "
        "it is about and the action plan that acts on it (apply_finding runs it).",
        input_model=ListIn,
        output_model=ListOut,
        handler=list_findings,
        reads_index=False,
        tags=("plane",),
    ),
    ToolSpec(
        name="dismiss_finding",
        domain="plane",
        title="Dismiss a finding",
        description="Dismiss a consolidation finding: later runs keep it dismissed and never apply it.",
        input_model=FindingIn,
        output_model=DismissOut,
        handler=dismiss_finding,
        tags=("plane",),
        **_STATE,  # type: ignore[arg-type]
    ),
    ToolSpec(
        name="apply_finding",
        domain="plane",
        title="Apply a finding",
        description="Run a finding's action plan with execute_plan (validated, confirmed where needed, journaled, "
        "undoable with undo_last_plan), refused when its notes changed since it was found. dry_run=true: the "
        "plan's effects (the files it would change), nothing changed.",
        input_model=ApplyIn,
        output_model=ApplyOut,
        handler=apply_finding,
        forwards_destructive=True,
        tags=("plane",),
        idempotent=False,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        reads_index=False,
    ),
)
