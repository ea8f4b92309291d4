"""The client's stdin as lines: read by a thread, then (pipes and sockets) by the event loop.
Every byte is delivered once and in order, whichever side reads it; the end of input once."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

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
    lines = StdinLines(-1, lambda line: None, lambda: None)
    push = pusher(lambda line, msg: got.append((line, msg)), lambda: got.append("closed"), lines)
    push(b"queued\n", {"q": 1})
    assert got == []  # from the thread: through the loop
    await asyncio.sleep(0)
    assert got == [(b"queued\n", {"q": 1})]
    lines.on_loop = True
    push(b"direct\n", None)
    push(None)
    assert got[1:] == [(b"direct\n", None), "closed"]


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
