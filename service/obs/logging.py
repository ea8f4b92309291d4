"""Structured logs on stderr, with secrets redacted.

stdout is reserved for the protocol in stdio mode and for the ready line in serve mode, so
every log record goes to stderr. `json` format emits one object per line.

A record is formatted where it is logged and written by a thread of its own (`StderrHandler`):
a parent that never reads the server's stderr fills the pipe, and a write to it then blocks.
Written where it was logged, that blocked the event loop, and the server froze (after ~500
failing calls at the default level, P1 s80). Up to `MAX_HELD` bytes of lines wait for the
thread; past that a line is dropped and counted, and the count is written once lines go out
again. Flushing (at exit: `logging.shutdown`) waits `FLUSH_S` at most.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import re
import sys
import threading
import time
from typing import Any, TextIO

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


MAX_HELD = 1024 * 1024  # bytes of log lines waiting for stderr: past this, lines are dropped (counted)
FLUSH_S = 1.0  # how long a flush (at exit) waits for the lines still held


class StderrHandler(logging.Handler):
    """Log lines to `stream` from a thread of its own, never blocking the caller (module docstring)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__()
        self.stream = stream if stream is not None else sys.stderr
        self.dropped = 0  # lines dropped so far: stderr was not read
        self._lines: collections.deque[str | list[int]] = collections.deque()  # a list: [lines dropped there]
        self._held = 0  # bytes in `_lines`
        self._writing = False
        self._changed = threading.Condition()
        self._pid = -1  # the process the thread runs in (a forked child starts its own)
        self._fd = _fd_of(self.stream)  # written with `os.write`: a thread blocked in it holds no lock of the stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record) + "\n"
        except Exception:  # noqa: BLE001 - logging's own rule: a record that fails to format is reported
            self.handleError(record)
            return
        with self._changed:
            if self._held and self._held + len(text) > MAX_HELD:  # (a line alone is never dropped)
                self.dropped += 1
                if self._lines and isinstance(self._lines[-1], list):
                    self._lines[-1][0] += 1
                else:
                    self._lines.append([1])  # reported in its place, after the lines held before it
                return
            self._lines.append(text)
            self._held += len(text)
            if self._pid != os.getpid():
                self._pid = os.getpid()
                threading.Thread(target=self._run, name="vaultgate-log", daemon=True).start()
            self._changed.notify_all()

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._lines))
                item = self._lines[0]
                self._writing = True
            text = item if isinstance(item, str) else f"vaultgate: {item[0]} log lines dropped: stderr was not read\n"
            with contextlib.suppress(OSError, ValueError):  # a closed stderr: the line is lost, as ever
                self._write(text)
            with self._changed:
                self._lines.popleft()
                self._held -= len(item) if isinstance(item, str) else 0
                self._writing = False
                self._changed.notify_all()

    def _write(self, text: str) -> None:
        if self._fd is None:
            self.stream.write(text)
            self.stream.flush()
            return
        data = text.encode(getattr(self.stream, "encoding", None) or "utf-8", "backslashreplace")
        while data:
            data = data[os.write(self._fd, data) :]

    def _at_fork_reinit(self) -> None:  # a forked child: the parent's thread and lines are not its own
        super()._at_fork_reinit()  # type: ignore[misc]  # (not in typeshed)
        self._changed = threading.Condition()
        self._lines.clear()
        self._held, self._writing = 0, False

    def flush(self) -> None:
        """Wait until the lines held are written, `FLUSH_S` at most (stderr may not be read)."""
        with self._changed:
            self._changed.wait_for(lambda: not self._lines and not self._writing, timeout=FLUSH_S)

    def counts(self) -> dict[str, Any]:
        with self._changed:
            return {"held_bytes": self._held, "dropped": self.dropped}


def _fd_of(stream: TextIO) -> int | None:
    """The descriptor under `stream` once what it buffers is out; None for a stream without one."""
    try:
        fd = stream.fileno()
        stream.flush()
    except (AttributeError, OSError, ValueError):
        return None
    return fd


def setup_logging(settings: LogSettings) -> None:
    handler = StderrHandler(sys.stderr)
    if settings.format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.level.upper())
    for noisy in ("uvicorn.access", "httpx", "httpx2", "mcp.server.lowlevel", "mcp.server.streamable_http"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
