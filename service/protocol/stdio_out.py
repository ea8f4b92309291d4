"""The client's stdout for the stdio front: whole lines under one lock, and `send` (the event
loop's way out) never blocks the loop.

A line the loop sends is written right there only when that cannot block: no line is waiting
for a worker thread (the order lines were sent in is kept), no thread is writing (the lock is
free) and the descriptor has room for the whole line now: a line of at most `PIPE_BUF` bytes
when `select` says writable (a write that size to a pipe is whole, never partial); a longer one
when stdout is a regular file, or a Linux pipe whose free pages hold it (`_room`: a 10-hit
search answer is ~8 KB, and a worker thread for each cost ~0.3 ms a call). Any other line is
written from a worker thread, which the sending task awaits; a cancelled send leaves the thread
to finish its line (or, not started yet, writes it from a thread of its own: every line handed
over is written, `owing` counts them). Before, lines up to 32 KB were written on the loop whatever the pipe held: a
client that stopped reading stdout blocked the event loop in that write, so neither the end of stdin nor SIGTERM/SIGINT
(handled on the loop) could stop the server, which ran until SIGKILL. At the end of stdin the
process waits for the lines still owed while the client reads them, and ends as a signal does
when none of their bytes was read for `GONE_S` (`stuck`, `service.serve_stdio`): a worker thread
blocked in a write cannot be joined. Before, it waited 2 s in all, and a slow reader's last
answers were cut (P1 s81). While `HOLD_AT`
lines wait for threads or `HOLD_AT` calls run, the client's next lines wait unstarted (`held`):
the work and the answers in memory stay bounded as they were when the loop blocked, and the loop
stops reading stdin until they have gone on (so the end of stdin is seen then; SIGTERM ends the
process meanwhile). If the client closes stdin meanwhile (`StdinLines.pause` reports the hang-up)
and no byte goes out for `GONE_S` while lines wait to be written, the client is gone: the lines
held are dropped, the end of stdin is handled at once and the server stops as on a signal
(`on_gone`, `service.serve_stdio`); before, the server ran on after its client had gone (P1 s80).
Progress is counted in bytes the client read (`drained`: lines are written in `PIPE_BUF` pieces,
less what the pipe still holds), not in whole lines: a reader of one 1 MiB answer slower than
~35 KB/s counted as gone (P1 s81).
"""

from __future__ import annotations

import io
import os
import select
import stat
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

PIPE_BUF = getattr(select, "PIPE_BUF", 512)  # POSIX guarantees 512; Linux 4096
HOLD_AT = 64  # lines waiting for a worker thread, or calls running: past this, the lines read next wait
GONE_S = 30.0  # stdin closed (paused, or at the end): how long no byte may be read before the client counts as gone
# (a batch client closes stdin after its requests and may read its answers slowly: 2 s dropped
# the answers owed to one that paused a few seconds between reads; R1 s80)


def _has_room(out: Any) -> bool:
    """A write of up to `PIPE_BUF` bytes to `out` returns at once (an object with no descriptor,
    as tests write to, always)."""
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return True
    try:
        return bool(select.select([], [fd], [], 0)[1])
    except (OSError, ValueError):  # closed, or a descriptor `select` cannot watch: a thread writes it
        return False


PAGE = 4096  # a Linux pipe's buffer is pages: the one being read and the one being filled are partial


def _room(fd: int) -> int:
    """Bytes a write to `fd` takes at once without waiting for a reader (0 when unknown): any
    number for a regular file; for a Linux pipe, its free pages less one partly read and one
    partly filled (`F_GETPIPE_SZ`, `FIONREAD`: only this process writes it, so the room can only
    grow until the write)."""
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            return sys.maxsize
        if not stat.S_ISFIFO(mode) or not sys.platform.startswith("linux"):
            return 0
        import fcntl
        import termios

        size = fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)
        unread = int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder)
    except (OSError, ValueError, AttributeError):
        return 0
    return max(0, (size // PAGE - unread // PAGE - 2) * PAGE)


def _unread(fd: int) -> int:
    """Bytes written to the pipe `fd` and not read yet (0 when unknown: not a pipe, not Linux)."""
    try:
        import fcntl
        import termios

        return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder)
    except (OSError, ValueError, AttributeError, ImportError):
        return 0


def _fits(out: Any, size: int) -> bool:
    """A write of `size` bytes to `out` returns at once (an object with no descriptor, as tests
    write to, always)."""
    if size <= PIPE_BUF:
        return _has_room(out)
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return True
    return _room(fd) >= size


def _running_loop() -> Any:
    asyncio = sys.modules.get("asyncio")  # not imported yet: no loop (the front starts before it)
    if asyncio is None:
        return None
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
    except AttributeError:  # the main thread is importing it now (the module is in sys.modules half
        return None  # built): no loop runs yet; the reader thread's first answers raced this import


class Outbox:
    def __init__(self) -> None:
        self.out: Any = None  # a binary file with `write` (unbuffered: each line leaves at once)
        self.lock = threading.Lock()
        self.queued = 0  # lines handed to a worker thread and not written yet
        self._held: deque[Callable[[], None]] = deque()  # lines (the end) read while there was no room
        self._held_lock = threading.Lock()  # `later` may run on the reader thread
        self._loop: Any = None  # the running loop and its thread, once the session attaches (`watch`)
        self._loop_thread: int | None = None
        self._releasing = False
        self._writing: set[Any] = set()  # tasks sending lines `write` was given on the loop
        self.busy: Callable[[], int] = lambda: 0  # requests running (the fast path's calls)
        self._front: Any = None  # the stdio front (`watch`): its stdin reader is paused while lines wait
        self._paused = False
        self._gone = False  # stdin closed while stdout was not read: nothing waits here any more
        self.closed = False  # the client closed stdout: lines are dropped (`_put`)
        self.written = 0  # lines written so far
        self.sent = 0  # bytes written so far (`drained`)
        self.owing = 0  # lines handed to a thread and not written yet, cancelled sends' included (`stuck`)
        self._owing_lock = threading.Lock()
        self.on_gone: Callable[[], None] = lambda: None  # the client is gone: stop as on a signal

    def later(self, step: Callable[[], None]) -> bool:
        """Whether `step` (a line of the client to handle, the end of stdin) waits here: while
        HOLD_AT lines wait for a worker thread or HOLD_AT calls run, the lines read after them
        start nothing (their answers could not go out either) until there is room again; then
        the steps run in turn, on the loop (`release`).

        The reader thread (it reads stdin until the loop takes over) holds a step also while the
        loop releases (an earlier line may be on its way: order is kept), and has the loop run
        `release` when its step is the first to wait: the calls that filled the room may all
        end between its check and its hold, and nothing else would release the step (the
        client would wait for that answer forever)."""
        if self._gone:
            return False
        on_loop = self._loop_thread is None or threading.get_ident() == self._loop_thread
        with self._held_lock:
            if on_loop and self._releasing or not (self._held or self._full() or self._releasing):
                return False
            first = not self._held
            self._held.append(step)
        if on_loop:
            self._pause()
        elif first and self._loop is not None:
            self._loop.call_soon_threadsafe(self.release)
        return True

    def _pause(self) -> None:
        """Stop reading stdin (the loop reads it: `StdinLines.pause`) while lines wait here."""
        lines = None if self._front is None else self._front.lines
        if not self._paused and lines is not None and lines.pause(self._hung_up):
            self._paused = True

    def drained(self) -> int:
        """Bytes of the lines written that the client has read: any progress of a slow reader
        shows, even within one long line (written in `PIPE_BUF` pieces, each whole)."""
        try:
            fd = self.out.fileno()
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return self.sent
        return self.sent - _unread(fd)

    def _hung_up(self) -> None:
        """The client closed stdin while its lines wait here (on the loop)."""
        self._check_gone(self.drained(), time.monotonic())

    def _check_gone(self, mark: int, since: float) -> None:
        """Every second after the hang-up: gone when lines wait to be written and no byte was
        read for `GONE_S` (`since`: when `mark` bytes were); reading again, the reader sees the
        end of stdin itself."""
        if not self._paused or self._gone:
            return
        now, drained = time.monotonic(), self.drained()
        if not self.queued or drained != mark:
            mark, since = drained, now
        if now - since < GONE_S:
            _running_loop().call_later(min(1.0, GONE_S), self._check_gone, mark, since)
            return
        import logging

        logging.getLogger(__name__).warning(
            "stdin closed and stdout not read: %d lines of the client dropped unread", len(self._held)
        )
        self._gone = True
        self._held.clear()
        self._front._on_eof()
        self.on_gone()  # the SDK's answers wait for stdout: only a stop ends its session

    def run(self, step: Callable[[], None]) -> None:
        if not self.later(step):
            step()

    def watch(self, fast: Any, front: Any) -> None:
        """Count the requests running: the fast path's calls (`fast`, None when off) and those the
        SDK has not answered (`front.pumps`, once attached); a fast call that ends releases too."""
        self._front = front
        self._loop, self._loop_thread = _running_loop(), threading.get_ident()
        if fast is not None:
            fast.ended = self.release
        self.busy = lambda: (
            (0 if fast is None else fast.running()) + (0 if front.pumps is None else front.pumps.waiting())
        )

    def _full(self) -> bool:
        return self.queued >= HOLD_AT or self.busy() >= HOLD_AT

    def release(self) -> None:
        """A line went out or a call ended: held lines go on, in order, while there is room."""
        if not self._held or self._releasing:
            return
        self._releasing = True
        try:
            while True:
                with self._held_lock:  # against the reader thread's `later`
                    if not self._held or self._full():
                        break
                    step = self._held.popleft()
                step()
        finally:
            self._releasing = False
        if self._paused and not self._held:
            self._paused = False
            self._front.lines.resume()  # read stdin again

    def write(self, data: bytes) -> None:
        """One line to the client: from a thread (the reader's, a worker) it blocks until written;
        on the running event loop (a refusal the front answers itself) it never blocks: unless it
        can go out at once, it is sent as `send` sends, in a task of its own."""
        loop = _running_loop()
        if loop is not None and not self._write_now(data):
            task = loop.create_task(self.send(data))
            self._writing.add(task)
            task.add_done_callback(self._writing.discard)
            return
        if loop is None:
            with self.lock:
                self._put(data)
        elif self.closed:
            self._client_gone()

    def _put(self, data: bytes, piece: int = PIPE_BUF) -> None:
        """`data` to stdout in writes of `piece` bytes, the lock held; once the client has closed
        its end, nothing more. A line that may block goes in pieces a pipe takes whole (`drained`
        sees a slow reader's progress); one with room in the pipe in one write (`_write_now`:
        one wake-up of the client for a search answer, not two)."""
        if self.closed:
            return
        view = memoryview(data)
        try:
            while view:
                n = self.out.write(view[:piece])
                n = len(view[:piece]) if n is None else n  # a partial write (a signal) goes on
                self.sent += n
                view = view[n:]
        except (BrokenPipeError, ConnectionResetError):
            self.closed = True  # the loop stops the server (`_client_gone`) at its next line
            return
        self.written += 1

    def _client_gone(self) -> None:
        """stdout was closed by the client (on the loop): its answers have nowhere to go, so the
        lines held are dropped and the server stops as on a signal (`on_gone`). Before, every
        answer still owed raised BrokenPipeError in a task nobody awaited: hundreds of
        tracebacks on stderr."""
        if self._gone:
            return
        import logging

        logging.getLogger(__name__).info("the client closed stdout: the answers still owed are dropped")
        self._gone = True
        self._held.clear()
        self.on_gone()

    def _write_now(self, data: bytes) -> bool:
        """Write `data` here if that cannot block (module docstring); whether it was written
        (or dropped: the client closed stdout)."""
        if self.closed:
            self._client_gone()
            return True
        if self.queued or not self.lock.acquire(blocking=False):
            return False
        try:
            if not _fits(self.out, len(data)):
                return False
            self._put(data, len(data))
        finally:
            self.lock.release()
        if self.closed:
            self._client_gone()
        return True

    def stuck(self, gone_s: float = GONE_S) -> bool:
        """At the end of stdin (the loop stopped): wait until every line owed is written, while
        the client reads them; True when lines are still owed and none of their bytes was read
        for `gone_s` (the client reads stdout no more)."""
        mark, since = self.drained(), time.monotonic()
        while self.owing or self.lock.locked():
            now, drained = time.monotonic(), self.drained()
            if drained != mark:
                mark, since = drained, now
            elif now - since >= gone_s:
                return True
            time.sleep(0.05)
        return False

    def _write_owed(self, payload: bytes, claim: threading.Lock) -> None:
        """A line handed over by `send` to a thread, written once (whichever thread claims it)."""
        if not claim.acquire(blocking=False):
            return
        try:
            self.write(payload)
        finally:
            with self._owing_lock:
                self.owing -= 1

    async def send(self, payload: bytes) -> None:
        """One line to the client from the event loop, which it never blocks (module docstring)."""
        if self._write_now(payload):
            self.release()
            return
        from anyio import to_thread

        self.queued += 1
        with self._owing_lock:
            self.owing += 1
        claim = threading.Lock()
        try:
            await to_thread.run_sync(self._write_owed, payload, claim, abandon_on_cancel=True)
        except BaseException:  # cancelled (the session ends): a line the worker never started is not lost
            if not claim.locked():
                threading.Thread(target=self._write_owed, args=(payload, claim), daemon=True).start()
            raise
        finally:
            self.queued -= 1
        if self.closed:
            self._client_gone()
        self.release()
