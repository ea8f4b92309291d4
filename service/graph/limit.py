"""When a long graph computation ends (`Limit`), and the signal that its caller is gone (`Stopped`):
a leaf module the analytics (`service.graph.analytics`), Louvain (`service.graph.louvain`), the
link graph's build and the consolidation plane's worker threads share."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


class Stopped(Exception):  # noqa: N818 - a signal, not a fault
    """The work's `Limit.stop` was set: its caller is gone (cancelled, disconnected, server stopping)."""


@dataclass(eq=False)
class Limit:
    """When a long computation ends: at once when `stop` is set (`Stopped`), early with what it
    has past `deadline` (`time.monotonic()` seconds). `turns`, when set, is called at each check:
    background work waits there while the server's calls run (`JobContext.give_way`)."""

    deadline: float = math.inf
    stop: threading.Event = field(default_factory=threading.Event)
    turns: Callable[[], object] | None = None

    def up(self) -> bool:
        """Raise `Stopped` when stopped; True when the deadline has passed."""
        if self.stop.is_set():
            raise Stopped
        if self.turns is not None:
            self.turns()
            if self.stop.is_set():
                raise Stopped
        return time.monotonic() > self.deadline


NO_LIMIT = Limit()
