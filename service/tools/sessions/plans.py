"""sessions domain: validate_plan, execute_plan, get_plan_run, cancel_plan (action plans, seed 002).

Touches: the vault only through the plan's own steps, each a call through the whole dispatch
chain as the caller (`plan_host`); the `plan_runs`/`plan_journal` tables of the state database
(`service.plans.journal`). validate_plan changes nothing (it runs the plan's leading read-only
steps and the moves' dry runs); execute_plan validates again, asks a human once for the whole
plan when any step could need it (the preview is the effects summary, bound to the plan's
hash), then runs it — in the call, with a progress notification per call, or in the background
(`background: true`, then get_plan_run / cancel_plan). The engine is `service.plans`.
"""

from __future__ import annotations

import hashlib
from functools import partial
from typing import Any

from pydantic import BaseModel, Field

from service.errors import Conflict, ServerStopping, ToolNotFound, ValidationFailed, VaultgateError
from service.obs.sessions import caller_hash
from service.plans.check import Checked, check_plan
from service.plans.model import PLAN_VERSION, plan_hash
from service.plans.runner import Runner, RunState, StepOutcome
from service.plans.summary import Effects, PlanEffects
from service.policy.approval import APPROVAL, PlanApproval
from service.policy.confirmations import ChangePreview
from service.policy.task_owners import TaskOwners, owner_key
from service.security.scopes import holds
from service.tools.context import ToolContext
from service.tools.models import JsonValue, ToolInput, ToolOutput
from service.tools.sessions.plan_host import PlanHost, parse_plan
from service.tools.spec import Catalog, ToolSpec

PLAN_DOC = "The action plan (JSON Schema: docs/plan.schema.json): goal, optional assumptions/params, steps."


class PlanIn(ToolInput):
    plan: dict[str, JsonValue] = Field(description=PLAN_DOC)
    params: dict[str, JsonValue] = Field(default_factory=dict, description="Values of the plan's ${params}.")


class ProblemItem(BaseModel):
    step: str | None = Field(description="Step id (with [index] for one foreach item); null for the whole plan.")
    code: str = Field(description="What is wrong: unknown_tool, validation_error, cycle, bad_reference, acl_denied...")
    message: str = Field(description="Details.")
    details: dict[str, JsonValue] | None = Field(
        default=None,
        description="The details of the error the call would answer, where the check foresees its refusal as the "
        "earlier steps leave the vault: invalid arguments (issues, accepted), a path or name the vault refuses or "
        "the ACL denies, a note not found (closest names), a heading, block or anchor a note lacks (not_found, with "
        "the headings or block ids there are), a line holding no task (not_a_task), a block id taken "
        "(block_id_taken), a character a note's encoding cannot hold (unrepresentable); null for other problems.",
    )
    hint: str | None = Field(default=None, description="That error's hint: what to do instead (null: none).")


class ValidateOut(ToolOutput):
    valid: bool = Field(description="True when execute_plan would start it.")
    version: str = Field(description="Plan format version.")
    plan_hash: str = Field(description="Hash of the plan and its parameter values (a confirmation binds to it).")
    effects_hash: str = Field(description="Pass to execute_plan: it refuses if the vault changed the effects since.")
    order: list[str] = Field(description="Step ids in run order.")
    problems: list[ProblemItem] = Field(description="Everything wrong, with step ids; empty when valid.")
    effects: PlanEffects = Field(description="What the plan would change, and its risk level.")

    def to_text(self) -> str:
        head = "valid" if self.valid else f"{len(self.problems)} problem(s)"
        return f"{head}\n{self.effects.preview('')}"


class ExecuteIn(PlanIn):
    background: bool = Field(default=False, description="Return a run_id at once; poll get_plan_run.")
    effects_hash: str | None = Field(default=None, description="validate_plan's effects_hash: refuse if it changed.")
    dry_run: bool = Field(default=False, description="Validate and return the effects; run nothing.")


class StepItem(BaseModel):
    id: str = Field(description="Step id.")
    tool: str = Field(description="Its tool.")
    status: str = Field(description="ok | failed | skipped | cancelled | not_run.")
    calls: int = Field(description="Calls made (foreach items).")
    failed_calls: int = Field(description="Calls that failed.")
    errors: list[dict[str, str]] = Field(description="The first errors (code, message).")
    result: JsonValue = Field(default=None, description="Its result, when the step has captureAs.")


class RunOut(ToolOutput):
    run_id: str = Field(description="The run (get_plan_run, cancel_plan, undo_last_plan).")
    status: str = Field(description="running | done | failed | cancelled | interrupted.")
    calls_done: int = Field(description="Tool calls finished.")
    calls_total: int = Field(description="Tool calls expected after foreach expansion.")
    steps: list[StepItem] = Field(description="Each step's outcome, in run order.")
    undone_by: str | None = Field(default=None, description="The undo run that reversed this run.")
    effects: PlanEffects | None = Field(default=None, description="Dry run: what the plan would change.")

    def to_text(self) -> str:
        return f"run {self.run_id}: {self.status}, {self.calls_done}/{self.calls_total} calls"


class RunIdIn(ToolInput):
    run_id: str = Field(min_length=1, max_length=64, description="A run_id from execute_plan or run_macro.")


def effects_hash(effects: Effects) -> str:
    return hashlib.sha256(effects.model_dump_json().encode()).hexdigest()[:16]


async def checked_plan(
    ctx: ToolContext, registry: Catalog, document: dict[str, Any], params: dict[str, Any]
) -> Checked:
    """The plan checked for this call (kept in the call's notes: confirm_when and the handler share it)."""
    cached = ctx.notes.get("plan_checked")
    if isinstance(cached, Checked):
        return cached
    checked = await check_plan(parse_plan(document), params, PlanHost(ctx, registry))
    ctx.notes["plan_checked"] = checked
    return checked


def _problems(checked: Checked) -> list[ProblemItem]:
    return [
        ProblemItem(step=p.step, code=p.code, message=p.message, details=p.details, hint=p.hint)
        for p in checked.problems
    ]


async def validate_plan(ctx: ToolContext, args: PlanIn, *, registry: Catalog) -> ValidateOut:
    checked = await checked_plan(ctx, registry, args.plan, args.params)
    return ValidateOut(
        valid=checked.ok,
        version=PLAN_VERSION,
        plan_hash=plan_hash(checked.plan, checked.params),
        effects_hash=effects_hash(checked.effects),
        order=[s.id for s in checked.order],
        problems=_problems(checked),
        effects=checked.effects,
    )


async def needs_human(ctx: ToolContext, checked: Checked, registry: Catalog) -> bool:
    """Whether some call of the plan would ask a human: then the plan asks once, up front.

    A call whose arguments are known now asks what the direct call would (the tool's own
    `confirm_when` with these arguments, a destructive tool, an execute scope). A call that
    works on what an earlier step of the plan changes (a note the plan creates, moves or edits
    first), whose `confirm_when` cannot judge it against the vault as it is now (it fails: the
    note is not there yet), or whose arguments are known only at run time counts as asking when
    its tool ever may."""
    for _step, tool, args, on_plan in checked.calls:
        spec = registry.get(tool)
        if spec is None:
            continue
        if spec.destructive or spec.confirm == "always" or any(s.startswith("execute:") for s in spec.scopes):
            return True
        asks = spec.confirm_when if spec.confirm == "conditional" else None
        if asks is None:
            continue
        if on_plan:
            return True
        try:
            if await asks(ctx, spec.input_model.model_validate(args)) is not None:
                return True
        except VaultgateError:
            return True  # it meets the vault as the plan leaves it, not as it is: ask
    for _step, tool in checked.late:
        spec = registry.get(tool)
        if spec is not None and (spec.destructive or spec.confirm != "never"):
            return True
    return False


def plan_preview(ctx: ToolContext, checked: Checked, head: str = "") -> ChangePreview:
    """What a human approves for a plan: the effects summary and every file it changes that is
    known now (the moves' and rewrites' own dry runs included); files found only at run time are
    named as such in the summary. The notes it deletes are named with their etags: a token
    minted for them is refused once one was edited (the preview changed: asked again), as
    delete_note's own confirmation is."""
    files, complete = checked.effects.changed_files()
    summary = head + checked.effects.preview(checked.plan.goal)
    if not complete:
        summary += (
            "\nsome steps change files known only at run time: the list below is what is known now, "
            "and those steps may also change, move or delete files it lists"
        )
    versions = [f"{rel} {etag}" for rel in checked.effects.files_deleted if (etag := _etag(ctx, rel)) is not None]
    if versions:
        summary += "\nas they are now: " + ", ".join(versions)
    return ChangePreview.of(summary, files)


def _etag(ctx: ToolContext, rel: str) -> str | None:
    try:
        return ctx.vault.files.current_etag(ctx.vault.paths.resolve(rel))
    except VaultgateError:
        return None


async def execute_confirm_when(ctx: ToolContext, args: ExecuteIn, *, registry: Catalog) -> ChangePreview | None:
    if args.dry_run:
        return None
    checked = await checked_plan(ctx, registry, args.plan, args.params)
    if not checked.ok or not await needs_human(ctx, checked, registry):
        return None  # an invalid plan is refused by the handler without asking anyone
    return plan_preview(ctx, checked)


def run_out(state: RunState, undone_by: str | None = None) -> RunOut:
    return RunOut(
        run_id=state.run_id,
        status=state.status,
        calls_done=state.done,
        calls_total=state.total,
        steps=[StepItem(**o.as_dict()) for o in state.outcomes],
        undone_by=undone_by,
    )


def dry_run_out(checked: Checked) -> RunOut:
    """What a dry run answers: the effects, every step `not_run`."""
    return RunOut(
        run_id="",
        status="dry-run",
        calls_done=0,
        calls_total=checked.effects.estimated_steps,
        steps=[StepItem(**StepOutcome(s.id, s.tool).as_dict()) for s in checked.order],
        effects=checked.effects,
    )


async def start_run(ctx: ToolContext, checked: Checked, *, background: bool, registry: Catalog) -> RunOut:
    """Open the run in the journal and run it (here, or as a background task)."""
    plans = ctx.services.plans
    if plans.journal.stopping:  # a run started now would write its first steps while the server stops
        raise ServerStopping("the server is stopping: the plan was not started; call again once it is back")
    digest = plan_hash(checked.plan, checked.params)
    run_id = await plans.journal.open_run(
        ctx.vault.id,
        caller_hash(ctx.principal.subject),
        kind="plan",
        goal=checked.plan.goal,
        plan_hash=digest,
        total=checked.effects.estimated_steps,
    )
    await TaskOwners(plans.journal.db).record(run_id, ctx.principal)  # whose MCP task the run is, with its grant
    state = RunState(run_id, [StepOutcome(s.id, s.tool) for s in checked.order])
    state.total = checked.effects.estimated_steps
    plans.track(state)
    host = PlanHost(ctx, registry)
    runner = Runner(
        plans.journal, host.call, None if background else ctx.report, concurrency=plans.settings.max_concurrency
    )
    approved = ctx.notes.get("confirmed") is not None
    token = APPROVAL.set(PlanApproval(ctx.vault.id, ctx.principal.subject, digest) if approved else None)
    try:
        if background:
            plans.background(run_id, runner.run(checked, state))  # the task copies this context
            return run_out(state)
        await runner.run(checked, state)
    finally:
        APPROVAL.reset(token)
    await plans.prune()
    return run_out(state)


async def execute_plan(ctx: ToolContext, args: ExecuteIn, *, registry: Catalog) -> RunOut:
    checked = await checked_plan(ctx, registry, args.plan, args.params)
    # a stale review first: a vault that changed since can also be why a step now fails
    if args.effects_hash is not None and args.effects_hash != effects_hash(checked.effects):
        raise Conflict(
            "the vault changed since the plan was validated: its effects differ now",
            details={"expected_effects_hash": args.effects_hash, "effects": checked.effects.model_dump(by_alias=True)},
            hint="Validate the plan again and review the new effects.",
        )
    if not checked.ok:
        raise ValidationFailed(
            f"the plan has {len(checked.problems)} problem(s)",
            details={"field": "plan", "problems": [p.model_dump() for p in _problems(checked)]},
            hint="validate_plan lists them with their step ids.",
        )
    if args.dry_run:
        return dry_run_out(checked)
    return await start_run(ctx, checked, background=args.background, registry=registry)


async def _own_run(ctx: ToolContext, run_id: str, *, admin_reads: bool = False) -> tuple[RunState | None, Any]:
    """The caller's run; with `admin_reads`, another caller's run too for an admin who may read every
    file it changed (a run `auto_apply` made as vaultgate-plane: undo_last_plan reverses it, and
    get_plan_run shows it, as docs/consolidation.md says)."""
    plans = ctx.services.plans
    row = await plans.journal.run(run_id)
    owner = await TaskOwners(plans.journal.db).owner(run_id)  # the grant it was started under, when recorded
    mine = row is not None and row.caller == caller_hash(ctx.principal.subject)
    if (
        row is None
        or row.vault_id != ctx.vault.id
        or (mine and owner is not None and owner != owner_key(ctx.principal))
        or (not mine and not (admin_reads and await _admin_reads(ctx, run_id)))
    ):
        raise ToolNotFound(
            f"no plan run {run_id!r} of yours in this vault",
            details={"run_id": run_id},
            hint="Pass the run_id execute_plan answered you with, in the vault the plan ran in.",
        )
    return plans.live.get(run_id), row


async def _admin_reads(ctx: ToolContext, run_id: str) -> bool:
    """Whether an admin may see another caller's run: every path its journal names readable to
    them (a run that touched a hidden path stays unknown, named or not)."""
    if not holds(ctx.principal.scopes, "admin"):
        return False
    guard = ctx.services.guard
    for entry in await ctx.services.plans.journal.entries(run_id):
        for rel in (entry.path, entry.dst):
            if rel and not guard.allows(ctx.principal, ctx.vault, rel, "read"):
                return False
    return True


def _stored_step(outcome: dict[str, Any], run_status: str) -> StepItem:
    """A stored step outcome; an undo or bulk run closed before s75 stored a short one
    (`{id, tool, calls}`, written only for a run that ended `done`): the rest is filled in."""
    short: dict[str, Any] = {
        "status": "ok" if run_status == "done" else "failed",
        "calls": 0,
        "failed_calls": 0,
        "errors": [],
    }
    return StepItem(**{**short, **outcome})


async def get_plan_run(ctx: ToolContext, args: RunIdIn) -> RunOut:
    live, row = await _own_run(ctx, args.run_id, admin_reads=True)
    if live is not None:
        if live.status == "running":  # what the caller is told is stored: a kill -9 now loses none of it
            outcome = [o.as_dict() for o in live.outcomes]
            await ctx.services.plans.journal.checkpoint(live.run_id, live.done, live.total, outcome)
        return run_out(live, row.undone_by)
    steps = [_stored_step(o, row.status) for o in row.outcome]
    return RunOut(
        run_id=row.id,
        status=row.status,
        calls_done=row.steps_done,
        calls_total=row.steps_total,
        steps=steps,
        undone_by=row.undone_by,
    )


class CancelOut(ToolOutput):
    run_id: str = Field(description="The run.")
    status: str = Field(description="Its status now (a running run stops after its current call).")
    cancelling: bool = Field(description="True when the run was running and will stop after its current call.")


async def cancel_plan(ctx: ToolContext, args: RunIdIn) -> CancelOut:
    live, row = await _own_run(ctx, args.run_id)
    plans = ctx.services.plans
    if live is None or live.status != "running" or not plans.running_in_background(args.run_id):
        return CancelOut(run_id=row.id, status=live.status if live else row.status, cancelling=False)
    live.stop.set()
    return CancelOut(run_id=row.id, status=live.status, cancelling=True)


def tools(registry: Catalog) -> tuple[ToolSpec, ...]:
    return (
        ToolSpec(
            name="validate_plan",
            domain="sessions",
            title="Validate an action plan",
            description="Check an action plan (steps of tool calls with dependsOn, foreach, captureAs, $steps.<id> "
            "references, ${params}) without changing anything: tools, arguments, dependencies, references, scopes, "
            "path ACL, size. Returns the problems with step ids and the effects summary (files created, modified, "
            "deleted, relocated with their link rewrites, risk level). Run it before execute_plan.",
            input_model=PlanIn,
            output_model=ValidateOut,
            handler=partial(validate_plan, registry=registry),
            tags=("sessions", "plans"),
        ),
        ToolSpec(
            name="execute_plan",
            domain="sessions",
            title="Execute an action plan",
            description="Run a valid action plan: each step through the same checks as a direct call, one human "
            "confirmation for the whole plan when it needs one (the preview is the effects summary), a progress "
            "notification per call, every file change journaled so undo_last_plan can reverse it. Long plans: "
            "background=true, then get_plan_run and cancel_plan.",
            input_model=ExecuteIn,
            output_model=RunOut,
            handler=partial(execute_plan, registry=registry),
            scopes=("write:vault",),
            scope_class="write",
            mutating=True,
            confirm="conditional",
            confirm_when=partial(execute_confirm_when, registry=registry),
            idempotent=False,
            forwards_destructive=True,
            task_support=True,
            tags=("sessions", "plans"),
        ),
        ToolSpec(
            name="get_plan_run",
            domain="sessions",
            title="Get a plan run",
            description="Status and step outcomes of one of your plan runs (running in the background or finished); "
            "with the admin scope, of any run in the vault whose files you may read "
            "(consolidation's auto_apply runs too).",
            input_model=RunIdIn,
            output_model=RunOut,
            handler=get_plan_run,
            tags=("sessions", "plans"),
        ),
        ToolSpec(
            name="cancel_plan",
            domain="sessions",
            title="Cancel a background plan run",
            description="Stop one of your background plan runs after its current call; what it changed stays "
            "journaled (undo_last_plan reverses it).",
            input_model=RunIdIn,
            output_model=CancelOut,
            handler=cancel_plan,
            scopes=("write:vault",),
            scope_class="write",
            mutating=True,
            tags=("sessions", "plans"),
        ),
    )
