"""Whether a stdio client still reads stdout is judged by the bytes it reads, not whole lines
(P1 s81): a client that closed stdin while answers wait counted as gone when no line went out for
`GONE_S`, so a reader of one 1 MiB answer slower than ~35 KB/s was cut off mid-answer. And at the
end of stdin the lines still owed are written while the client reads them (`Outbox.stuck`), not
for 2 s in all; a client that reads nothing for `GONE_S` does not keep the process alive."""

from __future__ import annotations

import asyncio
import fcntl
import os
import sys
import termios
import threading
import time
from typing import Any

import pytest

from service.protocol import stdio_out
from service.protocol.stdio_out import Outbox

LONG = b'{"jsonrpc":"2.0","id":1,"result":"' + b"x" * 1_000_000 + b'"}\n'
WAIT_S = 60.0
FULL = 48_000  # bytes waiting in the pipe: full (64 KB of pages, some part-filled)


class _Front:
    lines = None

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def _on_eof(self) -> None:
        self.seen.append("eof")


def _unread(fd: int) -> int:
    size = bytearray(4)
    fcntl.ioctl(fd, termios.FIONREAD, size)
    return int.from_bytes(size, sys.byteorder)


def _read_all(r: int, size: int, delay: float = 0.0) -> bytes:
    got = bytearray()
    while len(got) < size:
        got += os.read(r, 65536)
        time.sleep(delay)
    return bytes(got)


async def test_a_reader_slower_than_a_line_per_check_is_not_gone(
    pipe: tuple[int, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stdin closed while a 1 MB answer is being written: the client reads 4 KB before each check,
    never a whole line between two, and still gets the line; before, the first check found no
    line written and dropped the client."""
    r, out = pipe
    # over the 1 s between checks: one check that samples the pipe while the writer thread is between
    # its write and its count (no progress seen) is not taken for a reader gone (0.2 s was: CI, s83)
    monkeypatch.setattr(stdio_out, "GONE_S", 2.0)
    seen: list[str] = []
    box = Outbox()
    box.out = out
    box.on_gone = lambda: seen.append("gone")
    box._front, box._paused = _Front(seen), True  # the reader is paused: answers wait (`later`)
    sent = asyncio.ensure_future(box.send(LONG))
    deadline = time.monotonic() + WAIT_S
    while _unread(out.fileno()) < FULL:  # the line did not fit: a thread fills the pipe
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    assert box.queued == 1
    checks, got = 0, bytearray()
    real = Outbox._check_gone

    def check(self: Outbox, *args: Any) -> None:
        nonlocal checks
        checks += 1
        got.extend(os.read(r, 4096))  # the slow client's progress (the pipe holds 16 times that): never a line
        real(self, *args)

    monkeypatch.setattr(Outbox, "_check_gone", check)
    box._hung_up()  # the client closed stdin
    deadline = time.monotonic() + WAIT_S
    while checks < 5 and not seen:  # each check after a read of 4 KB
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    assert seen == [] and box.written == 0 and checks < FULL // 4096
    got += await asyncio.to_thread(_read_all, r, len(LONG) - len(got))
    await sent
    box._paused = False
    assert bytes(got) == LONG and box.written == 1 and seen == []


async def _owed(box: Outbox, line: bytes) -> None:
    """`line` handed to a thread, then the send cancelled (the session ends at the end of stdin)."""
    sent = asyncio.ensure_future(box.send(line))
    await asyncio.sleep(0)  # the send's first step: no room for the line, so a thread gets it
    assert box.queued == 1
    sent.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sent


def test_the_lines_owed_at_the_end_go_to_a_slow_reader(pipe: tuple[int, Any]) -> None:
    r, out = pipe
    box = Outbox()
    box.out = out
    asyncio.run(_owed(box, LONG))
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(_read_all(r, len(LONG), delay=0.01)))
    reader.start()
    assert box.stuck() is False  # returns once the line is written: every byte read meanwhile
    reader.join(WAIT_S)
    assert got == [LONG] and box.owing == 0 and box.written == 1


def test_a_client_that_reads_nothing_does_not_keep_the_process(pipe: tuple[int, Any]) -> None:
    r, out = pipe
    box = Outbox()
    box.out = out
    asyncio.run(_owed(box, LONG))
    assert box.stuck(gone_s=0.3) is True  # no byte read for gone_s: the process exits as on a signal
    _read_all(r, len(LONG))  # let the thread finish its line (the fixture closes the pipe)
    deadline = time.monotonic() + WAIT_S
    while box.owing:
        assert time.monotonic() < deadline
        time.sleep(0.01)


class _Counting:
    """A stdout with no descriptor (`_fits`: room for any line), recording each write."""

    def __init__(self) -> None:
        self.writes: list[int] = []

    def write(self, data: memoryview) -> int:
        self.writes.append(len(data))
        return len(data)

    def flush(self) -> None:
        pass


def test_a_line_with_room_goes_in_one_write() -> None:
    """A 10-hit search answer (~8 KB) written on the loop is one write, one wake-up of the client;
    only a line that may block goes in `PIPE_BUF` pieces (for `drained`)."""
    box = Outbox()
    box.out = _Counting()
    line = b'{"jsonrpc":"2.0","id":1,"result":"' + b"x" * 8_400 + b'"}\n'
    asyncio.run(box.send(line))
    assert box.out.writes == [len(line)] and box.sent == len(line) and box.written == 1
