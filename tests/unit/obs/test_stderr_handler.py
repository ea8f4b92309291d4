"""Log lines go to stderr from a thread of their own (`service.obs.logging.StderrHandler`): a
parent that never reads the server's stderr blocked the logging call, on the event loop, and the
server froze (P1 s80 item 3). A bounded number of bytes waits; past it lines are dropped and
counted, and the count is written once stderr takes lines again."""

from __future__ import annotations

import io
import logging
import threading

import pytest

from service.obs import logging as obs_logging
from service.obs.logging import StderrHandler


class Stuck(io.StringIO):
    """A stream whose writes block until `go` is set (a pipe nobody reads)."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()

    def fileno(self) -> int:
        raise io.UnsupportedOperation("no descriptor")

    def write(self, text: str) -> int:
        assert self.go.wait(60)
        return super().write(text)


def test_logging_never_waits_for_a_stderr_nobody_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(obs_logging, "MAX_HELD", 4096)
    stream = Stuck()
    handler = StderrHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log = logging.getLogger("test.stderr_handler")
    log.addHandler(handler)
    log.propagate = False
    try:
        caller = threading.Thread(target=lambda: [log.warning("line %d %s", n, "x" * 90) for n in range(200)])
        caller.start()
        caller.join(60)
        assert not caller.is_alive()  # before: blocked in the first write
        assert 0 < handler.counts()["dropped"] < 200 and handler.counts()["held_bytes"] <= 4096
        stream.go.set()
        handler.flush()
        log.warning("after")
        handler.flush()
    finally:
        log.removeHandler(handler)
        stream.go.set()
    written = stream.getvalue().splitlines()
    kept = 200 - handler.dropped
    assert written[0].startswith("line 0 ") and len([w for w in written if w.startswith("line ")]) == kept
    assert written[-2:] == [f"vaultgate: {handler.dropped} log lines dropped: stderr was not read", "after"]
