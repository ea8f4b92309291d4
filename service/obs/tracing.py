"""OpenTelemetry: one SERVER span per tool call.

A per-app `TracerProvider` (never the global one) exporting over OTLP/HTTP when
`otel.endpoint` is set; with no endpoint there is no provider and `span()` costs nothing.
Tests pass their own exporter (e.g. the SDK's in-memory exporter). Span attributes: vault,
tool, caller hash, status, error code, whether a confirmation was used, overflow bytes.

The MCP SDK's own `OpenTelemetryMiddleware` (on `Server.middleware`) is kept on purpose: it
uses the *global* tracer provider, which vaultgate never installs, so it records nothing and
no span is duplicated — but it does put the client's W3C `traceparent` (from `_meta`) into
the current context, so the tool-call span recorded here joins the caller's trace. An operator
who installs a global provider (e.g. `opentelemetry-instrument`) gets the SDK's protocol span
as the outer span and this tool-call span inside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service.settings import OtelSettings

if TYPE_CHECKING:  # the SDK is imported only when tracing is on (it costs start-up time)
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Tracer


class Tracing:
    def __init__(self, cfg: OtelSettings, exporter: SpanExporter | None = None) -> None:
        self.provider: TracerProvider | None = None
        self.tracer: Tracer | None = None
        if exporter is None and not cfg.endpoint:
            return
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter(endpoint=cfg.endpoint, headers=cfg.headers or None)
            processor: Any = BatchSpanProcessor(exporter)
        else:
            processor = SimpleSpanProcessor(exporter)
        self.provider = TracerProvider(resource=Resource.create({"service.name": cfg.service_name}))
        self.provider.add_span_processor(processor)
        self.tracer = self.provider.get_tracer("vaultgate")

    @property
    def enabled(self) -> bool:
        return self.tracer is not None

    def record(self, name: str, start_ns: int, end_ns: int, attributes: dict[str, Any], error: str | None) -> None:
        """Emit one finished SERVER span (built after the call, so the hot path pays nothing extra)."""
        if self.tracer is None:
            return
        from opentelemetry.trace import SpanKind, Status, StatusCode

        span = self.tracer.start_span(name, kind=SpanKind.SERVER, start_time=start_ns, attributes=attributes)
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, error))
        span.end(end_time=end_ns)

    def shutdown(self) -> None:
        if self.provider is not None:
            self.provider.shutdown()
