"""A line longer than PIPE_BUF goes out on the event loop when stdout has room for all of it (a
regular file, or a pipe whose free pages hold it), and through a worker thread otherwise: a
10-hit search answer is ~8 KB, and a thread for each was ~0.3 ms of every call over stdio."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from service.protocol import stdio_out
from service.protocol.stdio_out import PIPE_BUF, Outbox

LINE = b'{"jsonrpc":"2.0","id":1,"result":"' + b"x" * 8_000 + b'"}\n'


def _threads_used(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The lines `send` handed to a worker thread."""
    used: list[bytes] = []
    real = Outbox.write

    def counted(self: Outbox, data: bytes) -> None:
        used.append(data)
        real(self, data)

    monkeypatch.setattr(Outbox, "write", counted)
    return used


async def test_a_long_line_goes_out_on_the_loop_when_the_pipe_holds_it(
    pipe: tuple[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    r, out = pipe
    box = Outbox()
    box.out = out
    used = _threads_used(monkeypatch)
    assert len(LINE) > PIPE_BUF
    await box.send(LINE)
    assert used == [] and box.written == 1
    assert os.read(r, 65536) == LINE


async def test_a_long_line_waits_for_a_thread_when_the_pipe_is_nearly_full(
    pipe: tuple[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    r, out = pipe
    box = Outbox()
    box.out = out
    room = stdio_out._room(out.fileno())
    out.write(b"y" * (room - 100))  # the pipe keeps less room than the line needs
    assert stdio_out._room(out.fileno()) < len(LINE)
    used = _threads_used(monkeypatch)
    sent = asyncio.ensure_future(box.send(LINE))
    await asyncio.sleep(0)  # the send's first step: no room, so the line is handed to a thread
    assert box.queued == 1
    got = b""
    while not got.endswith(LINE):  # the reader drains the pipe; the thread's write then completes
        got += await asyncio.to_thread(os.read, r, 65536)
    await sent
    assert used == [LINE] and box.written == 1


def test_room_of_a_file_a_pipe_and_anything_else(pipe: tuple[int, Any], tmp_path: Path) -> None:
    _, out = pipe
    empty = stdio_out._room(out.fileno())
    assert empty >= 8 * 4096  # a Linux pipe of 64 KiB less two partial pages
    out.write(b"z" * 10_000)
    assert stdio_out._room(out.fileno()) <= empty - 8192
    with (tmp_path / "answers.jsonl").open("wb") as file:
        assert stdio_out._room(file.fileno()) > 10**9
    with open(os.devnull, "wb") as null:  # a character device: unknown, so a thread writes
        assert stdio_out._room(null.fileno()) == 0
