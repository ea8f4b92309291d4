"""Prometheus metrics for one app instance.

Each `Metrics` owns its own `CollectorRegistry`, so several apps in one process (tests) never
collide on series names. Other layers may call the counters directly (e.g. the policy layer:
`services.metrics.throttle_hits.labels(vault=..., tool=...).inc()`); the observe
layer also derives the same counters from error codes and `call.notes`, so the series move
even when nobody else calls them. Counter names end in `_total` in the exposition.

The series classes come from their own modules and the exposition (which imports `http.server`,
`urllib.request` and `wsgiref`: ~12 ms) at the first `render()` or `content_type()`: a stdio start
registers the `prometheus_client` package bare (`service.protocol.sdk_packages`), so its first
call waits for none of it.
"""

from __future__ import annotations

from prometheus_client.metrics import Counter, Gauge, Histogram
from prometheus_client.registry import CollectorRegistry

_LABELS = ("vault", "tool")
# Prometheus' defaults start at 5 ms: a read takes 1-3 ms, so the low end is finer.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """The vaultgate series; `render()` gives the Prometheus text exposition."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.calls = Counter(
            "vaultgate_tool_calls", "Tool calls by vault, tool and status", (*_LABELS, "status"), registry=r
        )
        self.duration = Histogram(
            "vaultgate_tool_call_duration_seconds", "Tool call duration", _LABELS, registry=r, buckets=DURATION_BUCKETS
        )
        self.throttle_hits = Counter("vaultgate_throttle_hits", "Calls refused by the throttle", _LABELS, registry=r)
        self.confirmation_trips = Counter(
            "vaultgate_confirmation_trips", "Calls that required a confirmation", _LABELS, registry=r
        )
        self.confirmation_consumptions = Counter(
            "vaultgate_confirmation_consumptions", "Confirmation tokens consumed", _LABELS, registry=r
        )
        self.idempotency_replays = Counter(
            "vaultgate_idempotency_replays", "Calls answered from the idempotency store", _LABELS, registry=r
        )
        self.emit_drops = Counter(
            "vaultgate_observe_drops", "Observability emits that failed and were dropped", ("sink",), registry=r
        )
        self.index_backlog = Gauge("vaultgate_index_backlog", "Notes waiting to be indexed", ("vault",), registry=r)
        self.index_notes = Gauge("vaultgate_index_notes", "Notes in the index", ("vault",), registry=r)
        self.index_lag = Gauge(
            "vaultgate_index_lag_seconds",
            "Seconds since the index last applied a change while a backlog waits (0 when caught up)",
            ("vault",),
            registry=r,
        )
        self.embedding_backlog = Gauge(
            "vaultgate_embedding_backlog", "Chunks waiting for a vector (semantic search)", ("vault",), registry=r
        )
        self.embedding_failing = Gauge(
            "vaultgate_embedding_failing",
            "1 while the embedding job's last pass failed (provider down, model unusable), else 0",
            ("vault",),
            registry=r,
        )
        self.watch_polling = Gauge(
            "vaultgate_index_watch_polling",
            "1 while the file watcher polls the vault instead of taking the OS's events (watch limit, watch_mode)",
            ("vault",),
            registry=r,
        )
        self.db_size = Gauge("vaultgate_db_size_bytes", "Size of cache.db and state.db plus their WALs", registry=r)
        self.maintenance_runs = Counter(
            "vaultgate_maintenance_runs", "Maintenance sweeps by outcome", ("status",), registry=r
        )

    def render(self) -> bytes:
        from prometheus_client.exposition import generate_latest

        return generate_latest(self.registry)


def content_type() -> str:
    """The exposition's media type (imports the exposition)."""
    from prometheus_client.exposition import CONTENT_TYPE_LATEST

    return CONTENT_TYPE_LATEST
