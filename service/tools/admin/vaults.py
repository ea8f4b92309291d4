"""admin domain, vault maintenance: reload_vault and reset_vault_cache.

Touches: the configuration file (read only), the indexer of a vault, the index tables and the
jobs table. No tool here changes a note: `reset_vault_cache` drops and rebuilds only the
vault's index rows (the cache), which is why it is `destructive` with `confirm="always"` —
search is degraded until the rebuild finishes. `reload_vault` reports differences; with
`apply` it starts serving added vaults (through `services.add_vault`, i.e.
`VaultgateApp.add_vault`); removals and changes take effect at the next restart.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from service.errors import ConfigError
from service.indexer.runner import indexer_of
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.prechecks import reset_vault_cache_precheck
from service.tools.spec import ToolSpec

# -- reload_vault --------------------------------------------------------------------------


class ReloadVaultIn(ToolInput):
    apply: bool = Field(
        default=False,
        description="Start serving the vaults added on disk now (additions only; removals and changes need a restart).",
    )


class ReloadVaultOut(ToolOutput):
    valid: bool = Field(description="The configuration on disk loads and validates.")
    error: str | None = Field(default=None, description="Why it does not (the running config stays in effect).")
    added: list[str] = Field(description="Vault ids on disk that are not served.")
    removed: list[str] = Field(description="Served vault ids no longer on disk.")
    changed: dict[str, list[str]] = Field(description="Per served vault, the settings that differ on disk.")
    applied: list[str] = Field(description="Added vaults now being served (only with apply=true).")


async def reload_vault(ctx: ToolContext, args: ReloadVaultIn) -> ReloadVaultOut:
    from service.settings import load_settings

    current = ctx.services.settings
    if current.config_file is None:
        # Served straight from a folder: the only "config" is the folder itself.
        return ReloadVaultOut(valid=ctx.vault.paths.root.is_dir(), added=[], removed=[], changed={}, applied=[])
    try:
        fresh = load_settings(current.config_file)
    except ConfigError as exc:
        return ReloadVaultOut(valid=False, error=str(exc), added=[], removed=[], changed={}, applied=[])
    old = {v.id: v.model_dump(mode="json") for v in current.vaults}
    new = {v.id: v.model_dump(mode="json") for v in fresh.vaults}
    changed = {
        vid: sorted(k for k in old[vid].keys() | new[vid].keys() if old[vid].get(k) != new[vid].get(k))
        for vid in old
        if vid in new
    }
    added = sorted(set(new) - set(old))
    applied: list[str] = []
    add_vault = ctx.services.add_vault
    if args.apply:
        for cfg in fresh.vaults:
            if cfg.id in added:
                await add_vault(cfg)
                applied.append(cfg.id)
    return ReloadVaultOut(
        valid=True,
        added=added,
        removed=sorted(set(old) - set(new)),
        changed={vid: keys for vid, keys in changed.items() if keys},
        applied=applied,
    )


# -- reset_vault_cache ---------------------------------------------------------------------


class ResetVaultCacheIn(ToolInput):
    pass


class ResetVaultCacheOut(ToolOutput):
    vault: str = Field(description="Vault id.")
    dropped_notes: int = Field(description="Index rows (notes) dropped.")
    reindexed: int = Field(description="Notes indexed again by the rebuild.")
    job_id: str = Field(description="The rebuild's reindex job id.")


async def reset_vault_cache(ctx: ToolContext, args: ResetVaultCacheIn) -> ResetVaultCacheOut:
    await reset_vault_cache_precheck(ctx, args)  # again: a reindex may have started while a human confirmed
    indexer = indexer_of(ctx.vault)
    jobs = ctx.services.index_jobs
    assert indexer is not None
    vid = ctx.vault.id

    def drop(conn: Any) -> int:
        count = int(conn.execute("SELECT count(*) FROM notes WHERE vault_id = ?", (vid,)).fetchone()[0])
        # Child rows (text, FTS, tags, links, ...) go with their note through ON DELETE CASCADE.
        conn.execute("DELETE FROM notes WHERE vault_id = ?", (vid,))
        conn.execute("DELETE FROM index_state WHERE vault_id = ?", (vid,))
        return count

    # Under the indexer's apply lock, so no incremental batch interleaves with the drop.
    async with indexer._apply_lock:
        dropped = await ctx.services.db.run_write(drop)

    async def progress(done: int, total: int) -> None:
        await ctx.progress(done, total, f"reset_vault_cache: reindexed {done}/{total} notes")

    job, _, task = await jobs.launch(indexer, "full", progress=progress)
    try:
        # A cancelled call stops waiting; the rebuild goes on in the background (a cancelled
        # rebuild would leave the index empty) and index_status shows it.
        await asyncio.shield(task)
    finally:
        jobs.detach(job.id, progress)
    return ResetVaultCacheOut(vault=vid, dropped_notes=dropped, reindexed=job.progress, job_id=job.id)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="reload_vault",
        domain="admin",
        title="Re-validate the configuration",
        description="Load the configuration file again and report whether it is valid and which vaults were added, "
        "removed or changed. With apply=true, added vaults are served at once; removals and changes "
        "take effect at the next restart.",
        input_model=ReloadVaultIn,
        output_model=ReloadVaultOut,
        handler=reload_vault,
        scopes=("admin",),
        scope_class="admin",
        mutating=True,
        tags=("admin",),
    ),
    ToolSpec(
        name="reset_vault_cache",
        domain="admin",
        title="Reset the vault's index",
        description="Drop every index row of the vault and rebuild it from the notes (search is degraded meanwhile). "
        "Never changes a note. Needs a human's confirmation.",
        input_model=ResetVaultCacheIn,
        output_model=ResetVaultCacheOut,
        handler=reset_vault_cache,
        scopes=("admin",),
        scope_class="admin",
        mutating=True,
        destructive=True,
        confirm="always",
        precheck=reset_vault_cache_precheck,
        idempotent=False,
        tags=("admin",),
    ),
)
