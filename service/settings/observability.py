"""What the server records about itself: the audit log (`[audit]`), CloudEvents (`[events]`),
OpenTelemetry traces (`[otel]`), agent session traces (`[sessions]`) and its own log (`[log]`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from service.settings.base import Section


class AuditSettings(Section):
    enabled: bool = Field(default=True, description="One event_log row per tool call (args_hash, never arguments).")
    retention_days: float = Field(default=30, gt=0, description="event_log rows older than this are trimmed.")
    queue_size: int = Field(default=10_000, ge=100, description="Events buffered before new ones are dropped.")


class EventsSettings(Section):
    spool: bool = Field(default=True, description="CloudEvents JSONL per vault per day under the data dir.")
    spool_dir: Path | None = Field(default=None, description="Where the spool goes; default: <data dir>/events.")
    push_url: str | None = Field(default=None, description="Also POST each batch (JSON array) to this URL.")
    push_timeout_seconds: float = Field(default=2.0, gt=0)
    retention_days: float = Field(default=14, gt=0, description="Spool files older than this are deleted.")


class OtelSettings(Section):
    endpoint: str | None = Field(
        default=None, description="OTLP/HTTP traces endpoint, e.g. http://localhost:4318/v1/traces; unset = no tracing."
    )
    service_name: str = "vaultgate"
    headers: dict[str, str] = Field(default_factory=dict, description="Extra OTLP headers (e.g. an API key).")


class SessionSettings(Section):
    trace_folder: str = Field(default="Agent Sessions", description="Vault folder for session traces (JSONL).")
    retention_days: float = Field(default=30, gt=0, description="Session traces older than this are deleted.")


class LogSettings(Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["json", "text"] = "text"
    calls: bool = Field(
        default=True,
        description="One line per tool call (tool, vault, outcome code, milliseconds, hashed caller) "
        "on the `vaultgate.calls` logger: INFO for failures and slow calls, DEBUG for the others "
        "(see `call_info_ms`).",
    )
    call_info_ms: float = Field(
        default=1000,
        ge=0,
        description="A call that succeeds within this many milliseconds is logged at DEBUG; failures, "
        "confirmations asked and slower calls at INFO. 0 logs every call at INFO.",
    )
