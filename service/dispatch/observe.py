"""The observe layer: outermost, so it sees every outcome, including translated errors.

For every call, success or failure: Prometheus metrics, one audit event (queued for the
event_log, the CloudEvents spool and the optional push — `service.obs.audit`) and one
OpenTelemetry SERVER span when tracing is configured; with a workspace session open for the
caller in that vault, the event is also mirrored to its JSONL trace (`service.obs.sessions`).
Guarantee: it never blocks or fails the call — an emit failure is counted
on `vaultgate_observe_drops_total` and dropped.
With `log.calls` on (the default), one line per call on the `vaultgate.calls` logger:
tool, vault, outcome (`ok`, `input_required` or the error code), milliseconds and the caller's
hash (the first 12 hex of SHA-256 of the principal's subject: stable, never the token); the JSON
log format carries the same fields as keys. It is INFO for a failure, an `input_required` and a
call slower than `log.call_info_ms`, DEBUG for the rest (a line per fast call cost ~4 % of the
event loop under 32 clients); when the level is off, the line is not even formatted.
Policy facts are derived from the result: error code `throttled` → throttle hit,
`elicit_required` or an InputRequiredResult (status `input_required`) → confirmation trip,
`notes["replayed"]` → idempotency replay, `notes["confirmed"]` → confirmation consumed.
Label values are bounded: a tool name that is no tool is labelled `tool="unknown"`, a vault
string that is no configured vault `vault="unknown"` (callers cannot mint series).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Container
from typing import Any

from service.dispatch.context import CallContext, Next, ToolResult
from service.obs.audit import AuditSink
from service.obs.metrics import Metrics
from service.obs.sessions import SessionTraces
from service.obs.tracing import Tracing

log = logging.getLogger(__name__)
calls_log = logging.getLogger("vaultgate.calls")
UNKNOWN = "unknown"


@functools.lru_cache(maxsize=1024)  # a server has few callers; a call asks twice (audit, log line)
def caller_hash_of(subject: str) -> str:
    """The caller as logs, metrics and the audit log show it: a stable hash, never the name."""
    return hashlib.sha256(subject.encode()).hexdigest()[:16]


def _status(result: ToolResult, *, detailed: bool) -> str:
    """`ok`, `input_required` (asked the client first), else the error code (or `error`)."""
    if result.input_required is not None:
        return "input_required"
    if result.is_error:
        return (result.error_code or "error") if detailed else "error"
    return "ok"


class Observe:
    name = "observe"

    def __init__(
        self,
        metrics: Metrics,
        audit: AuditSink | None = None,
        tracing: Tracing | None = None,
        sessions: SessionTraces | None = None,
        vault_ids: Container[str] = (),
        log_calls: bool = False,
        call_info_ms: float = 0.0,
    ) -> None:
        self.log_calls = log_calls
        self.call_info_ms = call_info_ms  # a success this fast is logged at DEBUG (0: every call at INFO)
        self.metrics = metrics
        self.vault_ids = vault_ids  # the configured vaults (a live view: vaults added later count)
        self.audit = audit
        self.tracing = tracing
        self.sessions = sessions  # `service.obs.sessions.SessionTraces`: mirrors calls of open sessions
        # (status, vault, tool) -> the series a call of that outcome counts in: prometheus's
        # `labels()` checks and joins the label values at every call (~2.5 us of ~4 for the pair).
        # Bounded as the labels are (`_labels`); nothing removes a series from these metrics.
        self._series: dict[tuple[str, str, str], tuple[Any, Any]] = {}

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        start_ns = time.time_ns()
        result = await next(call)
        try:
            self._record(call, result)
        except Exception:  # observability must never fail the call
            log.exception("recording metrics failed")
            self.metrics.emit_drops.labels(sink="metrics").inc()
        # INFO is the least any line needs (a failure, an input_required, a slow call): when even
        # INFO is off the line is not formatted; `_log_line` picks DEBUG or INFO per call.
        if self.log_calls and calls_log.isEnabledFor(logging.INFO):
            try:
                self._log_line(call, result)
            except Exception:
                log.exception("logging the call failed")
        if self.audit is not None or self.sessions is not None or (self.tracing is not None and self.tracing.enabled):
            try:
                self._trail(call, result, start_ns)
            except Exception:
                log.exception("recording the audit event failed")
                self.metrics.emit_drops.labels(sink="audit").inc()
        return result

    def _log_line(self, call: CallContext, result: ToolResult) -> None:
        ms = (time.perf_counter() - call.started) * 1000
        outcome = _status(result, detailed=True)
        level = logging.DEBUG if outcome == "ok" and ms < self.call_info_ms else logging.INFO
        if not calls_log.isEnabledFor(level):
            return
        labels = self._labels(call)
        fields = {
            "tool": labels["tool"],  # bounded: a name that is no tool is "unknown"
            "vault": labels["vault"] or "-",
            "outcome": outcome,
            "ms": round(ms, 1),
            "caller": caller_hash_of(call.principal.subject)[:12],
        }
        text = " ".join(f"{key}={value}" for key, value in fields.items())
        calls_log.log(level, "call %s", text, extra={"fields": fields})

    def _trail(self, call: CallContext, result: ToolResult, start_ns: int) -> None:
        end_ns = time.time_ns()
        vault = call.vault.id if call.vault is not None else None
        caller_hash = caller_hash_of(call.principal.subject)
        status = _status(result, detailed=False)
        overflow = call.notes.get("overflow_bytes")
        if overflow is None and result.error_code == "overflow" and isinstance(result.structured, dict):
            overflow = result.structured["error"].get("details", {}).get("bytes")  # a tool's own (read_note)
        # end_session hands over the session it closed, so its own call still lands in the trace.
        session = call.notes.get("session")
        if session is None and self.sessions is not None and vault:
            session = self.sessions.seen(caller_hash, vault)  # shared state: a start/end on another server counts
        if session is not None:
            call.notes["session_id"] = session.id
        if self.audit is not None or session is not None:
            event = {
                "at": start_ns / 1e9,
                "vault": vault,
                "tool": call.tool,
                "caller_hash": caller_hash,
                "transport": call.transport,
                "status": status,
                "error_code": result.error_code,
                "args_hash": call.args_hash,
                "duration_ms": round((end_ns - start_ns) / 1e6, 3),
                "correlation_id": call.correlation_id,
                "confirmed": call.notes.get("confirmed"),
                "replayed": bool(call.notes.get("replayed")),
                "overflow_bytes": overflow,
                "session_id": call.notes.get("session_id"),
            }
            if self.audit is not None:
                self.audit.emit(event)
            if session is not None and self.sessions is not None:
                self.sessions.mirror(session, event)
        if self.tracing is not None and self.tracing.enabled:
            attributes: dict[str, Any] = {
                "vaultgate.vault": vault or "",
                "vaultgate.tool": call.tool,
                "vaultgate.caller_hash": caller_hash,
                "vaultgate.status": status,
                "vaultgate.error_code": result.error_code or "",
                "vaultgate.confirmation": str(call.notes.get("confirmed") or ""),
                "vaultgate.overflow_bytes": int(overflow or 0),
                "vaultgate.correlation_id": call.correlation_id,
            }
            self.tracing.record(f"tools/call {call.tool}", start_ns, end_ns, attributes, result.error_code)

    def _labels(self, call: CallContext) -> dict[str, str]:
        if call.vault is not None:
            vault = call.vault.id
        else:
            raw = call.raw_args.get("vault")
            vault = "" if raw is None else raw if isinstance(raw, str) and raw in self.vault_ids else UNKNOWN
        return {"vault": vault, "tool": call.tool if call.spec is not None else UNKNOWN}

    def _record(self, call: CallContext, result: ToolResult) -> None:
        m = self.metrics
        labels = self._labels(call)
        status = _status(result, detailed=True)
        key = (status, labels["vault"], labels["tool"])
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = (m.calls.labels(status=status, **labels), m.duration.labels(**labels))
        series[0].inc()
        series[1].observe(time.perf_counter() - call.started)
        code = result.error_code
        if code == "throttled":
            m.throttle_hits.labels(**labels).inc()
        if call.notes.get("confirmation_trip"):  # only the call whose confirm layer asked (not a facade around it)
            m.confirmation_trips.labels(**labels).inc()
        if call.notes.get("replayed"):
            m.idempotency_replays.labels(**labels).inc()
        if call.notes.get("confirmed"):
            m.confirmation_consumptions.labels(**labels).inc()
