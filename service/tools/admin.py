"""admin domain: server_health, get_server_config, get_metrics, get_audit_log, list_vaults,
reload_vault and reset_vault_cache.

Touches: settings (read only), the app's Prometheus registry (`extensions["metrics"]`), the
`event_log` table, the indexer of a vault and the index tables. No tool here changes a note:
`reset_vault_cache` drops and rebuilds only the vault's index rows (the cache), which is why it
is `destructive` with `confirm="always"` — search is degraded until the rebuild finishes.
Guarantees: secrets never leave `get_server_config` (SecretStr values and anything under a
secret-looking key are masked); the audit log exposes hashes, never raw arguments.
"""

from __future__ import annotations

import platform
import re
import sqlite3
import time
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pydantic import BaseModel, Field

from service.errors import ConfigError, Conflict, IndexUnavailable
from service.indexer.jobs import IndexJobs
from service.indexer.runner import indexer_of
from service.obs.metrics import Metrics
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.registry import ToolSpec

_SECRET_KEY = re.compile(r"(secret|password|passwd|token|api_?key|authorization|headers|credential)", re.I)
_URL_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")
MASK = "**********"


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def _metrics(ctx: ToolContext) -> Metrics:
    found = ctx.services.extensions.get("metrics")
    assert isinstance(found, Metrics)
    return found


# -- server_health -------------------------------------------------------------------------


class ServerHealthIn(ToolInput):
    pass


class VaultIndexState(BaseModel):
    vault: str = Field(description="Vault id.")
    state: str = Field(description="Index state: starting, reconciling, ready, failed, or none (no indexer).")
    ready: bool = Field(description="The initial reconcile is complete.")
    backlog: int = Field(description="Notes waiting to be (re)indexed.")


class ServerHealthOut(ToolOutput):
    status: str = Field(description="ok when every vault's index is ready, else degraded.")
    versions: dict[str, str | None] = Field(description="vaultgate, python, sqlite and mcp versions.")
    backends: dict[str, Any] = Field(description="Storage backends: driver, FTS5, sqlite-vec (with version/error).")
    embedding_model: str | None = Field(description="Active embedding model; null: none is configured.")
    uptime_seconds: float = Field(description="Seconds since the server started.")
    vaults: list[VaultIndexState] = Field(description="Index state per served vault.")
    bridge: str = Field(description="Obsidian bridge capability snapshot ('none configured' without a bridge).")


async def server_health(ctx: ToolContext, args: ServerHealthIn) -> ServerHealthOut:
    services = ctx.services
    states = []
    for vid, vault in services.vaults.items():
        indexer = indexer_of(vault)
        if indexer is None:
            states.append(VaultIndexState(vault=vid, state="none", ready=True, backlog=0))
        else:
            states.append(VaultIndexState(vault=vid, state=indexer.state, ready=indexer.ready, backlog=indexer.backlog))
    return ServerHealthOut(
        status="ok" if all(s.ready for s in states) else "degraded",
        versions={
            "vaultgate": _version("vaultgate"),
            "python": platform.python_version(),
            "sqlite": services.db.backends.sqlite_version or sqlite3.sqlite_version,
            "mcp": _version("mcp"),
        },
        backends=services.db.backends.as_dict(),
        embedding_model=None,  # no embedding backend exists yet; say so rather than guess
        uptime_seconds=round(time.time() - services.started_at, 3),
        vaults=states,
        bridge="none configured",
    )


# -- get_server_config ---------------------------------------------------------------------


class GetServerConfigIn(ToolInput):
    pass


class GetServerConfigOut(ToolOutput):
    config: dict[str, Any] = Field(description="The effective configuration, secrets masked as '**********'.")
    plugins: list[str] = Field(description="Obsidian plugins detected in the vault's .obsidian/plugins folder.")


def redact(value: Any, key: str = "") -> Any:
    """Mask anything stored under a secret-looking key and credentials embedded in URLs."""
    if isinstance(value, dict):
        if _SECRET_KEY.search(key) and value:
            return {k: MASK for k in value}
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key) for v in value]
    if isinstance(value, str):
        if _SECRET_KEY.search(key):
            return MASK
        return _URL_USERINFO.sub(MASK + "@", value)
    return value


async def get_server_config(ctx: ToolContext, args: GetServerConfigIn) -> GetServerConfigOut:
    plugins_dir = ctx.vault.paths.root / ".obsidian" / "plugins"
    plugins = sorted(p.name for p in plugins_dir.iterdir() if p.is_dir()) if plugins_dir.is_dir() else []
    return GetServerConfigOut(config=redact(ctx.services.settings.redacted()), plugins=plugins)


# -- get_metrics ---------------------------------------------------------------------------


class GetMetricsIn(ToolInput):
    all_vaults: bool = Field(default=False, description="Summarise every vault, not only the selected one.")


class ToolCallSummary(BaseModel):
    vault: str = Field(description="Vault id ('' for calls that named no known vault).")
    tool: str = Field(description="Tool name.")
    calls: int = Field(description="Calls since the server started.")
    errors: int = Field(description="Calls that ended in an error.")
    by_status: dict[str, int] = Field(description="Calls per status ('ok' or an error code).")
    mean_ms: float = Field(description="Mean duration in milliseconds.")


class GetMetricsOut(ToolOutput):
    since: float = Field(description="Unix time the counters started (server start).")
    items: list[ToolCallSummary] = Field(description="One entry per (vault, tool), busiest first.")
    drops: dict[str, int] = Field(description="Observability emits dropped per sink (audit, spool, push, ...).")


async def get_metrics(ctx: ToolContext, args: GetMetricsIn) -> GetMetricsOut:
    m = _metrics(ctx)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for family in m.calls.collect():
        for s in family.samples:
            if not s.name.endswith("_total"):
                continue
            key = (s.labels["vault"], s.labels["tool"])
            row = rows.setdefault(key, {"by_status": {}, "sum": 0.0, "count": 0})
            row["by_status"][s.labels["status"]] = int(s.value)
    for family in m.duration.collect():
        for s in family.samples:
            key = (s.labels.get("vault", ""), s.labels.get("tool", ""))
            if key in rows and s.name.endswith("_sum"):
                rows[key]["sum"] = s.value
            elif key in rows and s.name.endswith("_count"):
                rows[key]["count"] = int(s.value)
    drops = {
        s.labels["sink"]: int(s.value) for f in m.emit_drops.collect() for s in f.samples if s.name.endswith("_total")
    }
    items = []
    for (vault, tool), row in rows.items():
        if not args.all_vaults and vault != ctx.vault.id:
            continue
        calls = sum(row["by_status"].values())
        items.append(
            ToolCallSummary(
                vault=vault,
                tool=tool,
                calls=calls,
                errors=calls - row["by_status"].get("ok", 0),
                by_status=row["by_status"],
                mean_ms=round(row["sum"] / row["count"] * 1000, 3) if row["count"] else 0.0,
            )
        )
    items.sort(key=lambda i: (-i.calls, i.vault, i.tool))
    return GetMetricsOut(since=ctx.services.started_at, items=items, drops=drops)


# -- get_audit_log -------------------------------------------------------------------------


class GetAuditLogIn(ToolInput, Paging):
    all_vaults: bool = Field(
        default=False,
        description="Rows of every vault and of the server itself (e.g. maintenance), not only this vault.",
    )
    tool: str | None = Field(default=None, description="Only calls of this tool.")
    status: str | None = Field(default=None, description="'ok', 'error', or an error code (e.g. 'acl_denied').")
    since: float | None = Field(default=None, description="Only calls at or after this Unix time.")


class AuditRow(BaseModel):
    id: int = Field(description="Row id (increasing).")
    at: float = Field(description="Unix time the call started.")
    vault: str | None = Field(description="Vault id.")
    tool: str = Field(description="Tool name.")
    caller_hash: str = Field(description="Hash of the caller's subject (never the subject itself).")
    transport: str = Field(description="http, stdio or inproc.")
    status: str = Field(description="ok or error.")
    error_code: str | None = Field(description="The error code of a failed call.")
    args_hash: str = Field(description="Hash of the arguments (never the arguments).")
    duration_ms: float = Field(description="Duration in milliseconds.")
    correlation_id: str = Field(description="Correlation id of the call.")
    confirmed: bool = Field(description="A confirmation token was consumed.")
    replayed: bool = Field(description="Answered from the idempotency store.")
    session_id: str | None = Field(description="Workspace session the call belonged to.")


class GetAuditLogOut(ToolOutput):
    items: list[AuditRow] = Field(description="Newest first.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for older rows.")


_AUDIT_COLUMNS = (
    "id, at, vault_id, tool, caller_hash, transport, status, error_code, args_hash, duration_ms,"
    " correlation_id, confirmed, replayed, session_id"
)


async def get_audit_log(ctx: ToolContext, args: GetAuditLogIn) -> GetAuditLogOut:
    audit = ctx.services.extensions.get("audit")
    if audit is not None:
        # Events are written off the call path; show what has been emitted up to now.
        await audit.drained(within=5.0)
    where: list[str] = ["1 = 1"] if args.all_vaults else ["vault_id = ?"]
    params: list[Any] = [] if args.all_vaults else [ctx.vault.id]
    if args.tool:
        where.append("tool = ?")
        params.append(args.tool)
    if args.status in ("ok", "error"):
        where.append("status = ?")
        params.append(args.status)
    elif args.status:
        where.append("error_code = ?")
        params.append(args.status)
    if args.since is not None:
        where.append("at >= ?")
        params.append(args.since)
    shape = {"t": args.tool, "s": args.status, "f": args.since, "a": args.all_vaults}
    before = decode_cursor(args.cursor, **shape)  # keyset: rows with an id below this one
    if before:
        where.append("id < ?")
        params.append(before)
    rows = await ctx.services.db.fetchall(
        f"SELECT {_AUDIT_COLUMNS} FROM event_log WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT ?",
        (*params, args.limit + 1),
    )
    items = [
        AuditRow(
            id=r[0],
            at=r[1],
            vault=r[2],
            tool=r[3],
            caller_hash=r[4],
            transport=r[5],
            status=r[6],
            error_code=r[7],
            args_hash=r[8],
            duration_ms=r[9],
            correlation_id=r[10],
            confirmed=bool(r[11]),
            replayed=bool(r[12]),
            session_id=r[13],
        )
        for r in rows[: args.limit]
    ]
    more = len(rows) > args.limit
    return GetAuditLogOut(items=items, next_cursor=encode_cursor(items[-1].id, **shape) if more else None)


# -- list_vaults ---------------------------------------------------------------------------


class ListVaultsIn(ToolInput):
    pass


class VaultOut(BaseModel):
    id: str = Field(description="Vault id (pass as `vault`).")
    name: str = Field(description="Obsidian vault name.")
    default: bool = Field(description="Used when a call names no vault.")
    read_only: bool = Field(description="Writes are refused.")
    notes: int | None = Field(description="Indexed notes (null when the vault has no index).")


class ListVaultsOut(ToolOutput):
    items: list[VaultOut] = Field(description="The vaults this caller may use.")
    next_cursor: str | None = Field(default=None, description="Always null: every vault fits in one page.")


async def list_vaults(ctx: ToolContext, args: ListVaultsIn) -> ListVaultsOut:
    principal = ctx.call.principal
    default = ctx.services.settings.default_vault_id
    items = []
    for vid, vault in ctx.services.vaults.items():
        if principal.vault is not None and principal.vault != vid:
            continue  # a vault-bound token sees only its vault
        indexer = indexer_of(vault)
        notes = (await indexer.counts())["notes"] if indexer is not None else None
        items.append(
            VaultOut(id=vid, name=vault.name, default=vid == default, read_only=_read_only(ctx, vid), notes=notes)
        )
    return ListVaultsOut(items=items)


def _read_only(ctx: ToolContext, vid: str) -> bool:
    vault = ctx.services.vaults[vid]
    acl = vault.config.acl or ctx.services.settings.acl
    return bool(acl.read_only)


# -- reload_vault --------------------------------------------------------------------------


class ReloadVaultIn(ToolInput):
    pass


class ReloadVaultOut(ToolOutput):
    valid: bool = Field(description="The configuration on disk loads and validates.")
    error: str | None = Field(default=None, description="Why it does not (the running config stays in effect).")
    added: list[str] = Field(description="Vault ids on disk that are not served.")
    removed: list[str] = Field(description="Served vault ids no longer on disk.")
    changed: dict[str, list[str]] = Field(description="Per served vault, the settings that differ on disk.")
    applied: bool = Field(description="Always false: differences take effect at the next restart.")


async def reload_vault(ctx: ToolContext, args: ReloadVaultIn) -> ReloadVaultOut:
    from service.settings import load_settings

    current = ctx.services.settings
    if current.config_file is None:
        # Served straight from a folder: the only "config" is the folder itself.
        return ReloadVaultOut(valid=ctx.vault.paths.root.is_dir(), added=[], removed=[], changed={}, applied=False)
    try:
        fresh = load_settings(current.config_file)
    except ConfigError as exc:
        return ReloadVaultOut(valid=False, error=str(exc), added=[], removed=[], changed={}, applied=False)
    old = {v.id: v.model_dump(mode="json") for v in current.vaults}
    new = {v.id: v.model_dump(mode="json") for v in fresh.vaults}
    changed = {vid: sorted(k for k in old[vid] if old[vid].get(k) != new[vid].get(k)) for vid in old if vid in new}
    return ReloadVaultOut(
        valid=True,
        added=sorted(set(new) - set(old)),
        removed=sorted(set(old) - set(new)),
        changed={vid: keys for vid, keys in changed.items() if keys},
        applied=False,
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
    indexer = indexer_of(ctx.vault)
    jobs = ctx.services.extensions.get("index_jobs")
    if indexer is None or not isinstance(jobs, IndexJobs):
        raise IndexUnavailable(f"vault {ctx.vault.id!r} has no index", details={"vault": ctx.vault.id})
    if jobs.active(ctx.vault.id) is not None:
        raise Conflict(
            "a reindex is running for this vault",
            details={"vault": ctx.vault.id},
            hint="Wait for the running reindex (index_status) and call reset_vault_cache again.",
        )
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
    job, _, task = await jobs.launch(indexer, "full", progress=lambda done, total: ctx.progress(done, total))
    await task
    return ResetVaultCacheOut(vault=vid, dropped_notes=dropped, reindexed=job.progress, job_id=job.id)


def tools() -> list[ToolSpec]:
    admin: dict[str, Any] = {"scopes": ("admin",), "scope_class": "admin", "tags": ("admin",)}
    return [
        ToolSpec(
            "server_health",
            "admin",
            "Server health",
            "Versions (vaultgate, python, sqlite, mcp), active backends (FTS5, sqlite-vec, embedding model), "
            "index state per vault and the Obsidian bridge snapshot.",
            ServerHealthIn,
            ServerHealthOut,
            server_health,
            tags=("admin",),
        ),
        ToolSpec(
            "get_server_config",
            "admin",
            "Server configuration",
            "The effective configuration with every secret masked, and the Obsidian plugins found in the vault.",
            GetServerConfigIn,
            GetServerConfigOut,
            get_server_config,
            **admin,
        ),
        ToolSpec(
            "get_metrics",
            "admin",
            "Call metrics",
            "Calls per tool since the server started (by status, errors, mean latency) for this vault or all.",
            GetMetricsIn,
            GetMetricsOut,
            get_metrics,
            **admin,
        ),
        ToolSpec(
            "get_audit_log",
            "admin",
            "Audit log",
            "Recent tool calls of this vault, newest first: tool, status, error code, duration, caller and "
            "argument hashes (never raw arguments). Filter by tool, status (ok/error/an error code) and since.",
            GetAuditLogIn,
            GetAuditLogOut,
            get_audit_log,
            **admin,
        ),
        ToolSpec(
            "list_vaults",
            "admin",
            "List vaults",
            "The vaults this caller may use: id, Obsidian name, default flag, read-only flag, indexed notes.",
            ListVaultsIn,
            ListVaultsOut,
            list_vaults,
            tags=("admin",),
        ),
        ToolSpec(
            "reload_vault",
            "admin",
            "Re-validate the configuration",
            "Load the configuration file again and report whether it is valid and which vaults were added, "
            "removed or changed. Differences take effect at the next restart.",
            ReloadVaultIn,
            ReloadVaultOut,
            reload_vault,
            **admin,
        ),
        ToolSpec(
            "reset_vault_cache",
            "admin",
            "Reset the vault's index",
            "Drop every index row of the vault and rebuild it from the notes (search is degraded meanwhile). "
            "Never changes a note. Needs a human's confirmation.",
            ResetVaultCacheIn,
            ResetVaultCacheOut,
            reset_vault_cache,
            mutating=True,
            destructive=True,
            confirm="always",
            idempotent=False,
            **admin,
        ),
    ]
