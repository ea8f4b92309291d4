"""Start-up: `bulk_create_notes` calls a killed process left half done are rolled back.

`bulk_create_notes` is all or nothing while its process lives (`service.vault.commit` undoes the
notes written when one write fails or the call is cancelled). A process killed in the middle
cannot undo anything, so the call runs as a journaled run of kind `bulk` (`Journal.recording`):
at the next start the journal marks it `interrupted`, and `roll_back_interrupted_bulk` restores
every file it touched from the journal (a note it created is removed, a note it overwrote gets
its old bytes back, folders it made are removed when empty). A file someone changed since is left
as it is and named in the log. The rollback is itself a journaled run (kind `undo`): undoing it
with `undo_last_plan` re-applies the notes that were written.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from service.plans.journal import Journal
from service.plans.undo import apply_undo, plan_undo
from service.vault.vault import Vault

log = logging.getLogger("vaultgate.plans")
ROLLBACK_CALLER = "vaultgate"


async def roll_back_interrupted_bulk(journal: Journal, vaults: Mapping[str, Vault]) -> list[str]:
    """Roll back every interrupted, not yet undone bulk run of the served vaults; their ids."""
    await journal.recover()
    done: list[str] = []
    for row in await journal.interrupted(kind="bulk"):
        vault = vaults.get(row.vault_id)
        if vault is None:
            continue  # a vault no longer served keeps its journal for when it is
        entries = await journal.entries(row.id)
        plan = plan_undo(vault.files, entries)
        if plan.conflicts:
            log.warning(
                "interrupted bulk_create_notes %s: left as they are, changed since: %s",
                row.id,
                ", ".join(str(c["path"]) for c in plan.conflicts),
            )
            plan = plan_undo(vault.files, entries, skip={str(c["path"]) for c in plan.conflicts})
        async with journal.recording(
            row.vault_id, ROLLBACK_CALLER, kind="undo", goal=f"roll back of interrupted {row.goal}", undoes=row.id
        ) as undo_id:
            await apply_undo(vault.files, plan)
        await journal.mark_undone(row.id, undo_id)
        log.warning(
            "rolled back an interrupted bulk_create_notes in vault %r: %d change(s) reversed",
            row.vault_id,
            len(plan.restores),
        )
        done.append(row.id)
    return done
