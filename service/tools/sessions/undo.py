"""sessions domain: undo_last_plan — reverse a plan run's file effects from its journal.

Touches: the files the run changed (restored through `service.vault.restore`, under each path's
lock, all or nothing) and the `plan_runs`/`plan_journal` tables. The undo is itself a run
(kind `undo`) whose restores are journaled, so undoing it is a redo. A file someone else
changed since the run wrote it is a conflict: the undo is refused and the conflicts listed,
unless `skip_conflicts` leaves those files as they are. The caller needs the write ACL on every
path the run touched, and the read ACL too unless the run was made under its own grant (a drop
folder's writer undoes its own run there), checked before any human is asked (the vault's trash folder excepted:
the run's own deletions put files there; and Obsidian's settings files under `.obsidian/`, which
no note tool names: only the tools that follow Obsidian, bookmarks and a move's or delete's
workspace rewrite, put them in a run). A path it may not read is not named in the refusal.

Whose run: without `run_id`, the caller's own newest undoable run in the vault (another agent's
runs are never picked for you); a `run_id` of another caller's run needs the `admin` scope
(otherwise it is answered like a run that does not exist, so run ids of others are not probed).

Two callers (or two servers on one vault) undoing one run at once: the undo claims the run first
(`Journal.claim_undo`), so one undoes it and the other is answered `conflict`, already undone.
"""

from __future__ import annotations

from functools import partial

import anyio
from pydantic import BaseModel, Field

from service.errors import AclDenied, Conflict, ToolNotFound
from service.obs.sessions import caller_hash
from service.plans.journal import RunRow
from service.plans.undo import UndoPlan, apply_undo, plan_undo
from service.policy.confirmations import ChangePreview
from service.policy.task_owners import TaskOwners, owner_key
from service.security.scopes import holds
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import Catalog, ToolSpec


class UndoIn(ToolInput):
    run_id: str | None = Field(
        default=None,
        max_length=64,
        description="Run to reverse; default: your newest undoable run here. Another caller's run needs admin.",
    )
    skip_conflicts: bool = Field(default=False, description="Leave files changed by someone else since; undo the rest.")
    dry_run: bool = Field(default=False, description="Report what would be restored and the conflicts; change nothing.")


class ConflictItem(BaseModel):
    path: str = Field(description="The file.")
    step: str | None = Field(description="The step that changed it.")
    expected_etag: str | None = Field(description="What the run left (null: the run removed it).")
    current_etag: str | None = Field(description="What is there now (null: absent).")


class ActedItem(BaseModel):
    step: str = Field(description="The plan step.")
    tool: str = Field(description="Its tool, which acted in Obsidian (a command, a template, a QuickAdd choice).")
    calls: int = Field(description="Its calls that ran.")


class UndoOut(ToolOutput):
    run_id: str = Field(description="The run reversed.")
    undo_run_id: str | None = Field(description="The undo run (undo it to redo); null on a dry run.")
    restored: list[str] = Field(description="Paths put back as they were (folders included).")
    conflicts: list[ConflictItem] = Field(description="Files changed since the run wrote them (left alone).")
    not_undone: list[ActedItem] = Field(
        default_factory=list,
        description="Steps that acted in Obsidian: what Obsidian did (a command's effects, a template's or "
        "QuickAdd choice's scripts) is not in the journal and stays; look there. The note execute_template made "
        "is journaled and undone.",
    )
    dry_run: bool = Field(description="True when nothing was changed.")

    def to_text(self) -> str:
        verb = "would restore" if self.dry_run else "restored"
        text = f"{verb} {len(self.restored)} path(s) of run {self.run_id}; {len(self.conflicts)} conflict(s)"
        if self.not_undone:
            text += f"; {len(self.not_undone)} step(s) acted in Obsidian and are not undone"
        return text


def acted_in_obsidian(registry: Catalog, row: RunRow) -> list[ActedItem]:
    """The run's steps whose tool acts in the running Obsidian (scope class `execute`) and ran:
    only vaultgate's own file changes are journaled, so an undo cannot reverse theirs."""
    out = []
    for step in row.outcome:
        spec = registry.get(str(step.get("tool", "")))
        ran = int(step.get("calls", 0) or 0) - int(step.get("failed_calls", 0) or 0)
        if spec is not None and spec.scope_class == "execute" and ran > 0:
            out.append(ActedItem(step=str(step.get("id", "")), tool=spec.name, calls=ran))
    return out


async def _target(ctx: ToolContext, run_id: str | None) -> RunRow:
    journal = ctx.services.plans.journal
    me = caller_hash(ctx.principal.subject)
    row = await journal.run(run_id) if run_id is not None else await journal.last_undoable(ctx.vault.id, me)
    foreign = row is not None and row.caller != me and not holds(ctx.principal.scopes, "admin")
    if row is None or row.vault_id != ctx.vault.id or foreign:
        raise ToolNotFound(
            "no plan run of yours to undo in this vault" if run_id is None else f"no plan run {run_id!r} in this vault",
            details={"run_id": run_id, "vault": ctx.vault.id},
            hint="Without run_id it undoes your latest plan run in this vault that is not undone yet; there is none."
            if run_id is None
            else "Pass a run_id execute_plan answered you with in this vault, or none for your latest run.",
        )
    if row.status == "running":
        raise Conflict("the run is still running", details={"run_id": row.id}, hint="cancel_plan it first.")
    if await ctx.services.plans.journal.undone(row):
        raise _already_undone(row)
    return row


def _already_undone(row: RunRow) -> Conflict:
    return Conflict(
        "the run is already undone",
        details={"run_id": row.id, "undone_by": row.undone_by},
        hint="Undo the undo run (undone_by) to redo it.",
    )


async def _check_acl(ctx: ToolContext, run_id: str, plan: UndoPlan) -> None:
    """Every path the undo restores must be writable by the caller, and readable too unless the
    run was made under the caller's own grant (which wrote those paths and knows their names: a
    drop folder's writer may undo its own run there). A path it may not read is not named (nor
    counted): the refusal looks the same whichever hidden paths another grant's run touched."""
    trash = ctx.vault.files.trash_folder.strip("/") + "/"
    guard, unwritable = ctx.services.guard, []
    own = await TaskOwners(ctx.services.plans.journal.db).owner(run_id) == owner_key(ctx.principal)
    for rel in sorted(plan.paths):
        if rel.startswith(trash) or rel + "/" == trash or rel.startswith(".obsidian/"):
            continue
        if not own and not guard.allows(ctx.principal, ctx.vault, rel, "read"):
            raise AclDenied(
                f"run {run_id!r} changed paths you may not read: only a caller who may read and write them can undo it",
                details={"run_id": run_id, "op": "read", "rule": "the run touched paths hidden from you"},
            )
        if not guard.allows(ctx.principal, ctx.vault, rel, "write"):
            unwritable.append(rel)
    if unwritable:
        rel = unwritable[0]
        raise AclDenied(f"the path ACL does not let you write {rel!r}", details={"path": rel, "op": "write"})


async def undo_last_plan(ctx: ToolContext, args: UndoIn, *, registry: Catalog) -> UndoOut:
    row = await _target(ctx, args.run_id)
    acted = acted_in_obsidian(registry, row)
    plans = ctx.services.plans
    entries = await plans.journal.entries(row.id)
    files = ctx.vault.files
    plan = plan_undo(files, entries)
    await _check_acl(ctx, row.id, plan)
    conflicts = [ConflictItem(**c) for c in plan.conflicts]
    if conflicts and not args.skip_conflicts and not args.dry_run:
        raise Conflict(
            f"{len(conflicts)} file(s) changed since the run wrote them",
            details={"run_id": row.id, "conflicts": [c.model_dump() for c in conflicts]},
            hint="Pass skip_conflicts=true to leave those files as they are and undo the rest.",
        )
    if conflicts:
        plan = plan_undo(files, entries, skip={c.path for c in conflicts})
    restored = list(dict.fromkeys(e.path for e in plan.restores))
    if args.dry_run:
        return UndoOut(
            run_id=row.id, undo_run_id=None, restored=restored, conflicts=conflicts, not_undone=acted, dry_run=True
        )
    me, goal = caller_hash(ctx.principal.subject), f"undo of {row.id}: {row.goal}"
    undo_id = await plans.journal.claim_undo(row, me, goal)  # another caller undoing it at once: one of you
    if undo_id is None:
        raise _already_undone(await plans.journal.run(row.id) or row)
    try:
        async with plans.journal.recording(ctx.vault.id, me, kind="undo", goal=goal, opened=undo_id):
            await apply_undo(files, plan)
    except BaseException:
        with anyio.CancelScope(shield=True):  # all or nothing: nothing restored, the run is undoable again
            await plans.journal.release_claim(row.id, undo_id)
        raise
    await _findings_undone(ctx, row, frozenset(c.path for c in conflicts))
    await plans.prune()
    return UndoOut(
        run_id=row.id, undo_run_id=undo_id, restored=restored, conflicts=conflicts, not_undone=acted, dry_run=False
    )


async def _findings_undone(ctx: ToolContext, row: RunRow, kept: frozenset[str]) -> None:
    """A consolidation finding the undone run applied is open again (unless it is about a file in
    `kept`, a conflict left as it is); undoing an undo of it (a redo) applies it again, and so on
    down the chain of undos to the run that applied it."""
    if ctx.services.plane is None:
        return
    redone, base = False, row
    while base.kind == "undo" and base.undoes:
        below = await ctx.services.plans.journal.run(base.undoes)
        if below is None:
            return
        redone, base = not redone, below
    await ctx.services.plane.findings.undone(ctx.vault.id, base.id, redone=redone, kept=kept)


async def undo_confirm_when(ctx: ToolContext, args: UndoIn) -> ChangePreview | None:
    if args.dry_run:
        return None
    row = await _target(ctx, args.run_id)
    files = ctx.vault.files
    entries = await ctx.services.plans.journal.entries(row.id)
    plan = plan_undo(files, entries)
    await _check_acl(ctx, row.id, plan)  # a call that cannot succeed is refused before anyone is asked
    if plan.conflicts and not args.skip_conflicts:
        return None  # refused with the conflicts listed before anyone is asked (the handler)
    if plan.conflicts:
        plan = plan_undo(files, entries, skip={str(c["path"]) for c in plan.conflicts})
    restored = list(dict.fromkeys(e.path for e in plan.restores if e.kind == "file"))
    folders = sorted({e.path for e in plan.restores if e.kind == "folder"})
    moved = [f"{e.dst} to {e.path}" for e in plan.restores if e.kind == "move"]  # a folder, or a note (case only)
    summary = f"undo plan run {row.id} ({row.goal}): restore every file it changed"
    if folders:
        summary += f"; folders it created or removed: {', '.join(folders)}"
    if moved:
        summary += f"; renamed back: {', '.join(moved)}"
    return ChangePreview.of(summary, restored)


def tools(registry: Catalog) -> tuple[ToolSpec, ...]:
    """undo_last_plan, which names the steps that acted in Obsidian (it looks their tools up)."""
    return (_spec(registry),)


def _spec(registry: Catalog) -> ToolSpec:
    return ToolSpec(
        name="undo_last_plan",
        domain="sessions",
        title="Undo the last plan run",
        description="Reverse the file changes of your last plan run (or run_id) from its journal, newest first, "
        "all or nothing: created files removed, changed and deleted ones restored byte for byte, relocations and their "
        "link rewrites reversed. Refuses and lists conflicts when someone changed a file since, unless "
        "skip_conflicts. The undo is journaled too: undoing it redoes the run.",
        input_model=UndoIn,
        output_model=UndoOut,
        handler=partial(undo_last_plan, registry=registry),
        scopes=("write:vault", "delete:vault"),
        scope_class="delete",
        mutating=True,
        confirm="conditional",
        confirm_when=undo_confirm_when,
        idempotent=False,
        tags=("sessions", "plans"),
    )
