"""When the stdio front answers a `read_note` itself, before the server is built, and when the
server starts loading (the front: `service.protocol.stdio_front`; the reads:
`service.protocol.first_reads`).

The front holds one `ReadGate`. It opens when the store of an earlier start holds `facts` (what
that start's app said a read relies on) and the client's `initialize` was answered; it closes for
good at the first question the front hands to the server (`defer`: every later question waits
behind it, in order), when stdin closes, and when the server is built (`take`). While it is open
the server does not load: `wait_quiet` holds the command line until no question was answered
here for `QUIET_S` (loading alongside would take the interpreter from the reader), the gate
closed, or `QUIET_MAX_S` passed. Standard library only: the reads' own modules load at the first
`tools/call`.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from service.protocol.first_reads import FirstReads

QUIET_S = 0.1  # the server loads once no question was answered here for this long ...
QUIET_MAX_S = 2.0  # ... or this long after the first answers at most


class ReadGate:
    """Whether the front may still answer a read itself; what it answered (for the replay)."""

    def __init__(self, target: str | None) -> None:
        self.target = target  # the vault folder or config file served
        self.facts: dict[str, Any] | None = None  # `first_reads.facts_of` the last start's app (the store's)
        self.closed = threading.Event()  # a question went to the server, stdin closed, or the server is built
        self.last_answer = 0.0  # monotonic time of the last answer the front gave
        self._reads: FirstReads | None = None  # made at the first `tools/call` while open

    def answered(self) -> None:
        self.last_answer = time.monotonic()

    def defer(self) -> None:
        """A question goes to the server: every later one waits for it too, in order."""
        self.closed.set()

    def answer(self, msg: dict[str, Any], handshake: Any, write: Callable[[bytes], None]) -> bool:
        """Whether `msg` (a `tools/call`) was answered here (its line given to `write`), on a
        connection whose `initialize` was answered with `handshake` (None: not yet)."""
        if msg.get("method") != "tools/call" or "id" not in msg:
            return False
        if self.closed.is_set() or handshake is None or self.facts is None:
            return False
        if self._reads is None:
            from service.protocol.first_reads import FirstReads

            self._reads = FirstReads.from_store(self.facts, self.target)
            if self._reads is None:
                self.facts = None
                return False
        line = self._reads.answer(msg, handshake)
        if line is None:
            return False
        write(line)
        self.answered()
        return True

    def wait_quiet(self) -> bool:
        """Block while the gate is open and the client's questions keep being answered here; True."""
        deadline = time.monotonic() + QUIET_MAX_S
        while self.facts is not None and not self.closed.is_set():
            left = min(self.last_answer + QUIET_S, deadline) - time.monotonic()
            if left <= 0:
                break
            self.closed.wait(left)
        return True

    def take(self) -> FirstReads | None:
        """The server is built: the gate closes; the reads answered so far, if any."""
        self.closed.set()
        reads, self._reads = self._reads, None
        return reads
