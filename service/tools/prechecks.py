"""Prechecks of the conditionally confirmed tools (the precheck layer): the cheap "can this call succeed at all"
checks that run before idempotency, throttling and the confirmation gate, so a call that must
fail answers its real error (`note_not_found`, `already_exists`, `acl_denied`, `conflict`, ...)
instead of asking a human to approve it.

Each hook repeats only the handler's own first checks (same errors, same ACL decisions); the
handler still checks again under its locks, so a precheck never widens or replaces anything.
The moves, rewrite_links and rename_tag prechecks live beside their tools; this module holds
those of delete_note (notes) and reset_vault_cache (admin).
Touches: vault files (stat only), the indexer and index jobs (read only).
"""

from __future__ import annotations

from typing import Any

from service.errors import Conflict, IndexUnavailable
from service.tools.context import ToolContext
from service.vault.readonly import refuse_read_only


async def delete_note_precheck(ctx: ToolContext, args: Any) -> None:
    """delete_note permanent: the note exists, the caller may delete it, the etag still matches."""
    if not args.permanent:
        return  # to .trash: recoverable, asks nobody; the handler's own checks suffice
    from service.tools.notes.base_files import note_or_file

    vp = await note_or_file(ctx, args.path, "delete")  # a base, canvas, attachment too
    refuse_read_only(vp.abs, vp.rel, entry=True)  # chmod a-w: not deleted, and no human asked to approve it
    expected = args.expected_etag
    if expected is not None:
        current = ctx.vault.files.current_etag(vp)
        if current != expected:
            raise Conflict(
                f"{vp.rel!r} changed since it was read",
                details={"path": vp.rel, "expected_etag": expected, "current_etag": current},
            )


async def reset_vault_cache_precheck(ctx: ToolContext, args: Any) -> None:
    """reset_vault_cache: the vault has an index, and no reindex is running for it."""
    from service.indexer.runner import indexer_of

    jobs = ctx.services.index_jobs
    if indexer_of(ctx.vault) is None:
        raise IndexUnavailable(f"vault {ctx.vault.id!r} has no index", details={"vault": ctx.vault.id})
    if jobs.active(ctx.vault.id) is not None:
        raise Conflict(
            "a reindex is running for this vault",
            details={"vault": ctx.vault.id},
            hint="Wait for the running reindex (index_status) and call reset_vault_cache again.",
        )
