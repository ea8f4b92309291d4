"""A line written from the stdin reader thread while the main thread is still importing asyncio
(a stdio start's first reads are answered on that thread, beside the server's imports) goes
out: `sys.modules` then holds a half-built `asyncio` without `get_running_loop`, and the reader
thread died on the AttributeError, leaving the client waiting for its answer for ever."""

from __future__ import annotations

import io
import sys
import threading
import types

import pytest

from service.protocol import stdio_out
from service.protocol.stdio_out import Outbox


def test_a_line_written_while_asyncio_is_half_imported_goes_out(monkeypatch: pytest.MonkeyPatch) -> None:
    half_built = types.ModuleType("asyncio")  # as `import asyncio` leaves it before `from .events import *`
    fake_sys = types.SimpleNamespace(
        modules={"asyncio": half_built}, maxsize=sys.maxsize, platform=sys.platform, byteorder=sys.byteorder
    )
    monkeypatch.setattr(stdio_out, "sys", fake_sys)
    box = Outbox()
    box.out = io.BytesIO()
    failures: list[BaseException] = []

    def reader() -> None:
        try:
            box.write(b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
        except BaseException as exc:  # noqa: BLE001 - what the reader thread died of
            failures.append(exc)

    thread = threading.Thread(target=reader)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert failures == []
    assert box.out.getvalue() == b'{"jsonrpc":"2.0","id":1,"result":{}}\n' and box.written == 1
