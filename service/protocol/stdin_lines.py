"""The client's stdin as lines: read by a thread of its own at start, then by the event loop.

The stdio front (`service.protocol.stdio_front`) must answer the first questions before the
event loop and the server exist, so a thread reads stdin from the start. Once the loop runs the
session it calls `to_loop`: after the read the thread is blocked in returns (the client's next
message), the thread hands what it holds to the loop and ends, and the loop reads the pipe
itself, woken by the selector when data arrives (`loop.add_reader`). A message then reaches the
server without waking a second thread: a read at a pause in the calls took ~1.2 ms at the client
with the thread hand-over and ~1.0 ms without (docs/benchmarks.md).

Only pipes and sockets move to the loop (what MCP hosts spawn a server with); a file, a
terminal or an event loop without `add_reader` (Windows' proactor) keeps the thread. Lines keep
their newline; a last line without one is delivered at the end of input, then `on_eof` once.
Guarantees: every byte is delivered once and in order, whichever side reads it; a line longer
than `max_line` is never held in memory (the caller is told where it was, once).
"""

from __future__ import annotations

import json
import os
import stat
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:  # the front starts before asyncio is imported: only the standard library's light parts
    import asyncio
    from collections.abc import Callable
    from typing import Any

CHUNK = 64 * 1024
MAX_LINE = 16 * 1024 * 1024  # a longer line is refused, not held: the stdio front's message limit
MAX_PENDING = MAX_LINE  # bytes of lines kept for the session before it attaches: past this the reader waits


class StdinLines:
    """Lines of `fd` to `on_line`, then `on_eof()`; `start()` begins on a thread."""

    def __init__(
        self,
        fd: int,
        on_line: Callable[[bytes], None],
        on_eof: Callable[[], None],
        *,
        max_line: int = MAX_LINE,
        on_oversize: Callable[[], None] | None = None,
    ) -> None:
        """`on_oversize()` is called once for each line longer than `max_line` bytes (its bytes
        are dropped as they arrive, never held), in its place among the lines."""
        self.fd = fd
        self.on_line = on_line
        self.on_eof = on_eof
        self.max_line = max_line
        self.on_oversize = on_oversize or (lambda: None)
        self.on_loop = False  # the loop reads now (the thread has ended)
        self._parts: list[bytes] = []  # the line begun, not ended yet
        self._held = 0  # bytes in `_parts`
        self._dropping = False  # the line begun is over `max_line`: its bytes are dropped
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop waiting to take over
        self._reading = False  # the thread waits for input (`_waiter`): what it read was delivered
        self._ended = False
        self._hangup: Any = None  # while paused: an epoll object reporting the client's hang-up

    def start(self) -> None:
        threading.Thread(target=self._run, name="stdio-front", daemon=True).start()

    def to_loop(self) -> bool:
        """On the running loop: have it read from the thread's next hand-over on; False when this
        input cannot be watched by the loop (the thread goes on)."""
        import asyncio

        loop = asyncio.get_running_loop()
        if not _watchable(self.fd, loop):
            return False
        with self._lock:
            self._loop = loop
        return True

    def _run(self) -> None:
        wait = _waiter(self.fd)
        try:
            while True:
                if wait is not None:
                    self._reading = True
                    wait()  # consumes nothing: the bytes stay in the pipe until the flag is down
                    self._reading = False
                chunk = os.read(self.fd, CHUNK)
                if not chunk:
                    break
                self._feed(chunk)
                with self._lock:
                    loop = self._loop
                if loop is not None:
                    loop.call_soon_threadsafe(self._watch)
                    return
        except OSError:
            pass  # a closed or broken stdin is the end of input
        self._end()

    def idle(self) -> bool:
        """Whether every byte written to stdin so far was delivered (`on_line`): the thread waits
        for input on an empty pipe, or the input ended (a stop on a signal waits for this before
        the process exits: `service.protocol.stopping.stop_early_on_signal`). Unknown (the pipe's
        fill level cannot be read, or the loop reads now): True."""
        if self._ended or self.on_loop or self._loop is not None:
            return True
        if not self._reading:
            return False
        try:
            import fcntl
            import termios

            waiting = bytearray(4)
            fcntl.ioctl(self.fd, termios.FIONREAD, waiting)
        except (ImportError, OSError):
            return True
        return int.from_bytes(waiting, "little") == 0 and self._reading

    def pause(self, on_hangup: Callable[[], None] | None = None) -> bool:
        """On the loop: stop reading stdin until `resume` (answers wait for the client to read
        them: `service.protocol.stdio_out`); False when the loop does not read it (the thread
        does, or the input ended). Meanwhile `on_hangup()` is called (on the loop, once) if the
        client closes its end of stdin: unread lines leave the end of input unseen, but a pipe's
        hang-up is reported apart from its data (Linux's epoll; elsewhere it is not watched)."""
        if not self.on_loop or self._ended:
            return False
        import asyncio
        import select

        loop = asyncio.get_running_loop()
        loop.remove_reader(self.fd)
        if on_hangup is not None and hasattr(select, "epoll") and self._hangup is None:
            watch = select.epoll()
            try:
                watch.register(self.fd, 0)  # no events asked: only a hang-up (or an error) is reported
                loop.add_reader(watch.fileno(), self._hung_up, on_hangup)
            except (OSError, ValueError):
                watch.close()
            else:
                self._hangup = watch
        return True

    def resume(self) -> None:
        """On the loop: read stdin again after `pause`."""
        self._unwatch_hangup()
        self._watch()

    def _hung_up(self, on_hangup: Callable[[], None]) -> None:
        self._unwatch_hangup()
        on_hangup()

    def _unwatch_hangup(self) -> None:
        watch, self._hangup = self._hangup, None
        if watch is not None:
            import asyncio

            asyncio.get_running_loop().remove_reader(watch.fileno())
            watch.close()

    def _watch(self) -> None:
        """On the loop, after every line the thread delivered."""
        import asyncio

        self.on_loop = True
        asyncio.get_running_loop().add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        try:
            chunk = os.read(self.fd, CHUNK)  # the selector said data (or the end) is there
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            self._feed(chunk)
            return
        import asyncio

        asyncio.get_running_loop().remove_reader(self.fd)
        self._end()

    def _feed(self, chunk: bytes) -> None:
        if b"\n" not in chunk:
            self._hold(chunk)  # joined once the line ends: a long line is not copied per chunk
            return
        lines = chunk.split(b"\n")
        first = lines[0]
        if self._dropping:
            self._dropping = False
            self.on_oversize()
        else:
            if self._parts:
                first = b"".join([*self._parts, first])
                self._parts.clear()
                self._held = 0
            self._deliver(first + b"\n")
        for line in lines[1:-1]:
            self._deliver(line + b"\n")
        if lines[-1]:
            self._hold(lines[-1])

    def _hold(self, part: bytes) -> None:
        if self._dropping:
            return
        self._held += len(part)
        if self._held > self.max_line:
            self._parts.clear()
            self._held = 0
            self._dropping = True
        else:
            self._parts.append(part)

    def _deliver(self, line: bytes) -> None:
        if len(line) - 1 > self.max_line:
            self.on_oversize()
        else:
            self.on_line(line)

    def _end(self) -> None:
        if self._dropping:
            self._dropping = False
            self.on_oversize()
        elif self._parts:
            last = b"".join(self._parts)
            self._parts.clear()
            self._held = 0
            self.on_line(last)
        self._ended = True
        self.on_eof()


class PendingLines(list[bytes]):
    """The lines the stdio front keeps for the SDK session until it attaches, at most about
    `MAX_PENDING` bytes: past that, the reader thread waits (`wait_room`, before it takes the
    front's lock) until the session takes them (`take`), so the client's further lines wait in
    the pipe and the client's writes block. Before, a client that flooded stdin before the
    server was loaded grew its memory without bound (P1 s80)."""

    def __init__(self) -> None:
        super().__init__()
        self.size = 0  # bytes held
        self._room = threading.Condition()

    def append(self, line: bytes) -> None:
        with self._room:
            super().append(line)
            self.size += len(line)

    def take(self) -> list[bytes]:
        """Every line kept, in order; room for more."""
        with self._room:
            taken = list(self)
            self.clear()
            self.size = 0
            self._room.notify_all()
        return taken

    def wait_room(self) -> None:
        """Block while `MAX_PENDING` bytes or more are kept (only before the attach: the reader
        thread; once attached, nothing is kept here)."""
        with self._room:
            self._room.wait_for(lambda: self.size < MAX_PENDING)


def _waiter(fd: int) -> Callable[[], object] | None:
    """Blocks until `fd` has input (or its end) without reading it: a read that has returned in C
    still waits for the interpreter lock before its thread can deliver or say so, and the pipe is
    empty meanwhile, so `idle` would take a thread holding the client's last lines for one
    waiting. None where `poll` is missing (Windows): the read itself waits, and `idle` is True
    only at the end of input."""
    import select

    if not hasattr(select, "poll"):
        return None
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return poller.poll


def _watchable(fd: int, loop: asyncio.AbstractEventLoop) -> bool:
    """A pipe or socket the loop's selector can watch."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return False
    try:
        loop.add_reader(fd, lambda: None)
    except (NotImplementedError, OSError, ValueError):
        return False
    loop.remove_reader(fd)
    return True


def pusher(send: Callable[[bytes, Any], None], close: Callable[[], None]) -> Callable[..., None]:
    """A line and its parse (or None: end of input) handed to the running loop: from the reader
    thread, or at once when the loop itself pushes (it reads `lines`, or releases lines held by
    `Outbox`) and no line read earlier waits.

    The thread's lines wait in one queue that a single callback drains: one wake-up of the loop
    for a chunk of lines, not one each. Each `call_soon_threadsafe` writes a byte to the loop's
    self-pipe, which also carries the signals (`signal.set_wakeup_fd`); a 64 KB chunk of short
    calls is ~600 lines, and past ~278 unread bytes the socket is full: a SIGTERM arriving then
    was lost and the server ran on until SIGKILL (CI, stop 82). Lines the loop releases itself
    (`Outbox.release`) no longer go through the self-pipe at all."""
    import asyncio
    from collections import deque

    loop = asyncio.get_running_loop()
    owner = threading.get_ident()
    queue: deque[tuple[bytes, Any] | None] = deque()
    guard = threading.Lock()
    scheduled = False

    def run(item: tuple[bytes, Any] | None) -> None:
        if item is None:
            close()
        else:
            send(*item)

    def drain() -> None:
        nonlocal scheduled
        while True:
            with guard:
                if not queue:
                    scheduled = False
                    return
                item = queue.popleft()
            run(item)

    def push(line: bytes | None, msg: Any = None) -> None:
        nonlocal scheduled
        item = None if line is None else (line, msg)
        on_loop = threading.get_ident() == owner
        with guard:
            direct = on_loop and not queue  # nothing read earlier waits: in order at once
            if not direct:
                queue.append(item)
                wake, scheduled = not scheduled, True
        if direct:
            run(item)
        elif wake:
            (loop.call_soon if on_loop else loop.call_soon_threadsafe)(drain)

    return push


def parsed(line: bytes) -> dict[str, Any] | None:
    """A line read back as the object it holds (None: no JSON object), once framing let it through."""
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    return msg if isinstance(msg, dict) else None
