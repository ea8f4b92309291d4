"""Structured logs on stderr, with secrets redacted.

stdout is reserved for the protocol in stdio mode and for the ready line in serve mode, so
every log record goes to stderr. `json` format emits one object per line.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time

from service.settings import LogSettings

_SECRET = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}|(secret|token|api[_-]?key|password)=([^\s&]+)")


def redact_text(text: str) -> str:
    def mask(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(1) + "[redacted]"
        return f"{m.group(2)}=[redacted]"

    return _SECRET.sub(mask, text)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": round(time.time(), 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": redact_text(record.getMessage()),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):  # structured fields of the line (e.g. the per-call line)
            entry.update({key: value for key, value in fields.items() if key not in entry})
        if record.exc_info:
            entry["exc"] = redact_text(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))


def setup_logging(settings: LogSettings) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if settings.format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.level.upper())
    for noisy in ("uvicorn.access", "httpx", "httpx2", "mcp.server.lowlevel", "mcp.server.streamable_http"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
