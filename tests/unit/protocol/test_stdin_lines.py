"""The client's stdin as lines: read by a thread, then (pipes and sockets) by the event loop.
Every byte is delivered once and in order, whichever side reads it; the end of input once."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.protocol.stdin_lines import StdinLines, pusher


class Seen:
    def __init__(self) -> None:
        self.lines: list[tuple[bytes, int]] = []  # (line, thread that delivered it)
        self.ends = 0
        self.ended = threading.Event()
        self.changed = threading.Condition()

    def line(self, line: bytes) -> None:
        with self.changed:
            self.lines.append((line, threading.get_ident()))
            self.changed.notify_all()

    def eof(self) -> None:
        self.ends += 1
        self.ended.set()

    def wait_lines(self, n: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.lines) >= n, timeout=30)

    def texts(self) -> list[bytes]:
        return [line for line, _ in self.lines]


def test_lines_split_across_reads_and_a_last_line_without_newline() -> None:
    read, write = os.pipe()
    seen = Seen()
    StdinLines(read, seen.line, seen.eof).start()
    long = b'{"x": "' + b"y" * 300_000 + b'"}'  # more than one read of the pipe
    for part in (b'{"a": 1}\n{"b"', b": 2}\n", long[:70_000], long[70_000:] + b"\n", b"\n", b"tail"):
        os.write(write, part)
    os.close(write)
    assert seen.ended.wait(30)
    assert seen.texts() == [b'{"a": 1}\n', b'{"b": 2}\n', long + b"\n", b"\n", b"tail"]
    assert seen.ends == 1


async def test_the_loop_takes_over_at_the_next_message_and_keeps_the_order() -> None:
    read, write = os.pipe()
    seen = Seen()
    lines = StdinLines(read, seen.line, seen.eof)
    lines.start()
    os.write(write, b"one\n")
    await asyncio.to_thread(seen.wait_lines, 1)
    assert lines.to_loop()
    assert not lines.on_loop  # the thread is still blocked in its read
    os.write(write, b"two\npart")  # the thread reads this, delivers "two" and hands "part" over
    await asyncio.to_thread(seen.wait_lines, 2)  # the thread has ended its last read: the rest is the loop's
    os.write(write, b"ial\nthree\n")
    os.close(write)
    await asyncio.to_thread(seen.ended.wait, 30)
    assert seen.texts() == [b"one\n", b"two\n", b"partial\n", b"three\n"]
    assert seen.ends == 1
    here = threading.get_ident()
    assert [tid == here for _, tid in seen.lines] == [False, False, True, True]


async def test_a_file_as_stdin_stays_with_the_thread(tmp_path: Path) -> None:
    source = tmp_path / "input.jsonl"
    source.write_bytes(b"one\ntwo\n")
    seen = Seen()
    fd = os.open(source, os.O_RDONLY)
    try:
        lines = StdinLines(fd, seen.line, seen.eof)
        assert not lines.to_loop()  # a regular file cannot be watched by the selector
        lines.start()
        await asyncio.to_thread(seen.ended.wait, 30)
    finally:
        os.close(fd)
    assert seen.texts() == [b"one\n", b"two\n"] and not lines.on_loop


async def test_the_pusher_hands_lines_over_directly_once_the_loop_reads() -> None:
    got: list[object] = []
    where: list[int] = []
    push = pusher(lambda line, msg: (got.append((line, msg)), where.append(threading.get_ident())), lambda: None)
    await asyncio.to_thread(push, b"queued\n", {"q": 1})
    await asyncio.sleep(0)
    assert got == [(b"queued\n", {"q": 1})] and where == [threading.get_ident()]  # from the thread: on the loop
    push = pusher(lambda line, msg: got.append((line, msg)), lambda: got.append("closed"))
    push(b"direct\n", None)  # on the loop, nothing waiting: at once
    push(None)
    assert got[1:] == [(b"direct\n", None), "closed"]


def _from_a_thread(work: Callable[[], object]) -> None:
    """`work` run by another thread while the loop waits for it without running: nothing the
    thread hands the loop is drained before it is done (as when the loop is busy with a call)."""
    thread = threading.Thread(target=work)
    thread.start()
    thread.join(60)
    assert not thread.is_alive()


async def test_a_burst_of_lines_from_the_thread_wakes_the_loop_once_and_keeps_their_order() -> None:
    """Each wake-up from a thread is a byte in the loop's self-pipe, which carries the signals
    too: ~600 short calls in one 64 KB chunk filled it (278 bytes) and a SIGTERM sent then was
    lost (CI, stop 82: `test_stdio_unread_stdout_e2e`). A line the loop pushes while earlier ones
    wait goes after them.

    The loop is held while the thread pushes: a drain that ran in the middle of the burst (the
    loop idle in `asyncio.to_thread`, as this test first did) made the next line a second wake-up,
    and the count 3 instead of 2 on a loaded machine."""
    loop = asyncio.get_running_loop()
    got: list[object] = []
    push = pusher(lambda line, msg: got.append(line), lambda: got.append("closed"))
    wakes = 0
    real = loop.call_soon_threadsafe

    def counted(*args: object) -> object:
        nonlocal wakes
        wakes += getattr(args[0], "__name__", "") == "drain"
        return real(*args)  # type: ignore[arg-type]

    lines = [b"%d\n" % i for i in range(1000)]
    loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
    try:
        _from_a_thread(lambda: [push(line) for line in lines])
        push(b"loop\n")  # on the loop while the thread's lines wait: after them
        assert (got, wakes) == ([], 1)  # all queued, one wake-up
        for _ in range(6000):
            if got:
                break
            await asyncio.sleep(0.01)
        assert got == [*lines, b"loop\n"]  # one drain, in order
        _from_a_thread(lambda: push(None))
        for _ in range(6000):
            if len(got) > len(lines) + 1:
                break
            await asyncio.sleep(0.01)
    finally:
        del loop.call_soon_threadsafe
    assert got == [*lines, b"loop\n", "closed"]
    assert wakes == 2  # one for the burst, one for the end


def test_a_line_over_the_limit_is_dropped_as_it_arrives_and_reported_in_its_place() -> None:
    read, write = os.pipe()
    seen = Seen()
    lines = StdinLines(read, seen.line, seen.eof, max_line=1000, on_oversize=lambda: seen.line(b"<oversize>"))
    lines.start()

    def feed() -> None:
        for part in (b"a\n", b"b" * 700, b"b" * 700, b"b" * 5000, b"\nc\n", b"d" * 1001 + b"\n", b"e" * 1000 + b"\n"):
            os.write(write, part)
        os.write(write, b"f" * 3000)  # the last line, over the limit and without a newline
        os.close(write)

    writer = threading.Thread(target=feed)
    writer.start()
    assert seen.ended.wait(30)
    writer.join(30)
    assert seen.texts() == [b"a\n", b"<oversize>", b"c\n", b"<oversize>", b"e" * 1000 + b"\n", b"<oversize>"]
    assert lines._parts == [] and lines._held == 0


def test_idle_only_once_every_line_written_was_delivered() -> None:
    """A signal before the server runs answers what waits for it, then exits (`stopping.
    stop_early_on_signal`): it waits for `idle`, so lines the client wrote just before the signal
    are read and answered rather than lost with the process (seen under load: a request written
    right before SIGTERM was never answered)."""
    read, write = os.pipe()
    seen = Seen()
    held = threading.Event()

    def slow_line(line: bytes) -> None:
        held.wait(30)  # the thread holds the first chunk's lines: the rest waits in the pipe
        seen.line(line)

    lines = StdinLines(read, slow_line, seen.eof)
    lines.start()
    os.write(write, b'{"id":1}\n')
    os.write(write, b'{"id":2}\n{"id":3}\n')
    assert not lines.idle()  # written, not delivered
    held.set()
    seen.wait_lines(3)
    for _ in range(3000):
        if lines.idle():
            break
        threading.Event().wait(0.01)
    assert lines.idle() and seen.texts() == [b'{"id":1}\n', b'{"id":2}\n', b'{"id":3}\n']
    os.close(write)
    assert seen.ended.wait(30) and lines.idle()
    os.close(read)


def test_not_idle_while_a_read_has_returned_but_its_bytes_are_not_delivered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The read that empties the pipe returns in C and then waits for the interpreter lock before
    the thread can deliver what it read: the pipe is empty meanwhile, so "waiting in a read of an
    empty pipe" was true of a thread that held the client's last lines, and a stop on a signal
    exited without answering them (CI: a `tools/list`, `read_note` and `prompts/list` written just
    before SIGTERM, none answered). Here the read is slowed down after it returns."""
    import service.protocol.stdin_lines as module

    real_read = os.read

    def slow_read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if data:
            time.sleep(0.3)  # returned, not delivered: the pipe is empty now
        return data

    monkeypatch.setattr(module.os, "read", slow_read)
    read, write = os.pipe()
    seen = Seen()
    lines = StdinLines(read, seen.line, seen.eof)
    lines.start()
    time.sleep(0.05)  # the thread waits for input
    os.write(write, b'{"id":1}\n')
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and not seen.lines:
        assert not lines.idle() or seen.lines, "idle while the line read was not delivered"
        time.sleep(0.001)
    assert seen.texts() == [b'{"id":1}\n']
    os.close(write)
    assert seen.ended.wait(30)
    os.close(read)


async def test_a_hang_up_while_paused_is_reported_and_the_lines_wait() -> None:
    """Paused (the answers wait for stdout), the loop reads no more, so the end of stdin was never
    seen: a client that closed stdin then left the server running (P1 s80). The hang-up is
    reported apart from the unread lines, which are still delivered, in order, on `resume`."""
    read, write = os.pipe()
    seen = Seen()
    lines = StdinLines(read, seen.line, seen.eof)
    lines.start()
    assert lines.to_loop()
    os.write(write, b"one\n")
    await asyncio.to_thread(seen.wait_lines, 1)
    for _ in range(6000):  # the thread hands over to the loop once its read is delivered
        if lines.on_loop:
            break
        await asyncio.sleep(0.01)
    assert lines.on_loop
    hung_up = asyncio.Event()
    assert lines.pause(hung_up.set)
    os.write(write, b"two\n")
    os.close(write)
    async with asyncio.timeout(60):
        await hung_up.wait()
    assert seen.texts() == [b"one\n"] and seen.ends == 0  # paused: nothing read meanwhile
    lines.resume()
    await asyncio.to_thread(seen.ended.wait, 60)
    assert seen.texts() == [b"one\n", b"two\n"] and seen.ends == 1
