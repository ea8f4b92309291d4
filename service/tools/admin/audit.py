"""admin domain, telemetry: get_metrics and get_audit_log.

Touches: the app's Prometheus registry (`services.metrics`, read only) and the `event_log`
table (read only). Guarantee: the audit log exposes caller and argument hashes, never subjects
or raw arguments; it first waits (bounded) for the audit writer so recent calls are included.
`all_vaults` is refused (`forbidden`) to a token bound to one vault.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from service.errors import Forbidden
from service.obs.metrics import Metrics
from service.security.binding import bound_vault
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.spec import ToolSpec


def _metrics(ctx: ToolContext) -> Metrics:
    return ctx.services.metrics


# -- get_metrics ---------------------------------------------------------------------------


def _check_all_vaults(ctx: ToolContext, all_vaults: bool) -> None:
    """`all_vaults` reaches past the caller's vault: refused to a token bound to one vault."""
    if not all_vaults:
        return
    services = ctx.services
    bound = bound_vault(ctx.principal, len(services.vaults), services.settings.default_vault_id)
    if bound is not None:
        raise Forbidden(
            "this token is bound to one vault; all_vaults would show others",
            details={"bound_vault": bound, "field": "all_vaults"},
            hint="Drop all_vaults to see this vault only.",
        )


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
    _check_all_vaults(ctx, args.all_vaults)
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
    # Events are written off the call path; show what has been emitted up to now.
    await ctx.services.audit.drained(within=5.0)
    _check_all_vaults(ctx, args.all_vaults)
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
    rows = await ctx.services.state.fetchall(
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


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_metrics",
        domain="admin",
        title="Call metrics",
        description="Calls per tool since the server started (by status, errors, mean latency) for this vault or all.",
        input_model=GetMetricsIn,
        output_model=GetMetricsOut,
        handler=get_metrics,
        scopes=("admin",),
        scope_class="admin",
        tags=("admin",),
    ),
    ToolSpec(
        name="get_audit_log",
        domain="admin",
        title="Audit log",
        description="Recent tool calls of this vault, newest first: tool, status, error code, duration, caller and "
        "argument hashes (never raw arguments). Filter by tool, status (ok/error/an error code) and since.",
        input_model=GetAuditLogIn,
        output_model=GetAuditLogOut,
        handler=get_audit_log,
        scopes=("admin",),
        scope_class="admin",
        tags=("admin",),
    ),
)
