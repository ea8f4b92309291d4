"""Start-up: all-or-nothing calls a killed process left half done are rolled back.

`bulk_create_notes`, `move_note` and `rename_note` (a move with its link rewrites), `rewrite_links`
and `rename_tag` are all or nothing while their process lives (`service.vault.commit` undoes the
files written when one write fails or the call is cancelled). A process killed in the middle cannot
undo anything, so each call runs as a journaled run of kind `bulk` (`journaled`, around
`Journal.recording`): at the next start the journal marks it `interrupted`, and
`roll_back_interrupted_bulk` restores every file it touched from the journal (a note it created is
removed, a note it overwrote gets its old bytes back, a moved note or folder goes back, folders it
made are removed when empty). An `undo_last_plan` killed in the middle (kind `undo`) is rolled back
the same way, so the run it was undoing is whole again and still undoable. Runs are rolled back
newest first: a rollback that was itself killed is reversed before the run it was rolling back. A
file someone changed since is left as it is and named in the log. A rollback is itself a journaled
run (kind `undo`): undoing it with `undo_last_plan` re-applies the changes that were made.
Several servers may start together after a crash: each claims a run before rolling it back
(`Journal.claim_rollback`: its undo run opened and named in the run's `undone_by` in one
transaction, only while no other start did), so one of them rolls it back; a claim whose rollback
was killed or failed is taken up again by the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping

import anyio

from service.plans.journal import Journal, RunRow
from service.plans.undo import UndoPlan, apply_undo, plan_undo
from service.vault import case_renames
from service.vault.journal import RECORDER
from service.vault.vault import Vault

log = logging.getLogger("vaultgate.plans")
ROLLBACK_CALLER = "vaultgate"


@contextlib.asynccontextmanager
async def journaled(journal: Journal, vault_id: str, caller: str, goal: str) -> AsyncIterator[None]:
    """An all-or-nothing call's writes as a journaled run of kind `bulk`, so a process killed in
    the middle leaves a journal the next start rolls back; inside a plan step (or an undo), the
    journal recording already records them."""
    if RECORDER.get() is not None:
        yield
        return
    async with journal.recording(vault_id, caller, kind="bulk", goal=goal):
        yield


async def _interrupted(journal: Journal) -> list[RunRow]:
    """Interrupted all-or-nothing runs (bulk calls and undos), newest first."""
    rows = [*await journal.interrupted(kind="bulk"), *await journal.interrupted(kind="undo")]
    return sorted(rows, key=lambda r: r.started_at, reverse=True)


async def _plan(journal: Journal, vault: Vault, row: RunRow) -> UndoPlan:
    """What rolling `row` back restores: every file it touched but those changed since (logged)."""
    entries = await journal.entries(row.id)
    plan = plan_undo(vault.files, entries)
    if plan.conflicts:
        log.warning(
            "interrupted %s (%s): left as they are, changed since: %s",
            row.goal,
            row.id,
            ", ".join(str(c["path"]) for c in plan.conflicts),
        )
        plan = plan_undo(vault.files, entries, skip={str(c["path"]) for c in plan.conflicts})
    return plan


async def roll_back_interrupted_bulk(journal: Journal, vaults: Mapping[str, Vault]) -> list[str]:
    """Roll back every interrupted, not yet undone bulk or undo run of the served vaults, newest
    first; their ids. A case-only rename a crash cut in two is whole again first
    (`service.vault.case_renames`): the rollback then moves the note back from its new name."""
    for served in vaults.values():
        await asyncio.to_thread(case_renames.finish, served.paths.root)
    await journal.recover()
    done: list[str] = []
    for row in await _interrupted(journal):
        vault = vaults.get(row.vault_id)
        if vault is None:
            continue  # a vault no longer served keeps its journal for when it is
        goal = f"roll back of interrupted {row.goal}"
        undo_id = await journal.claim_rollback(row, ROLLBACK_CALLER, goal)
        if undo_id is None:
            continue  # another server starting meanwhile claimed it: it rolls it back
        try:
            async with journal.recording(row.vault_id, ROLLBACK_CALLER, kind="undo", goal=goal, opened=undo_id):
                plan = await _plan(journal, vault, row)  # read once claimed: nobody else restores it now
                await apply_undo(vault.files, plan)
        except BaseException:
            with anyio.CancelScope(shield=True):  # nothing restored (all or nothing): the next start tries again
                await journal.release_claim(row.id, undo_id)
            raise
        log.warning(
            "rolled back an interrupted %s in vault %r: %d change(s) reversed",
            row.goal,
            row.vault_id,
            len(plan.restores),
        )
        done.append(row.id)
    return done
