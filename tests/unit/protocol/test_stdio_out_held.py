"""Lines held while stdout has no room (`Outbox.later`) go on when there is room again: also
those the reader thread held (it reads stdin until the loop takes over, `StdinLines`). The calls
that filled the room could all end between the thread's check and its hold: the last `release`
had then already run, nothing else would release the line, and its client waited for the answer
forever. The thread now has the loop run `release` for the first line it holds."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from service.protocol.stdio_out import HOLD_AT, Outbox


class Front:
    lines: Any = None  # the thread reads stdin: nothing to pause on the loop
    pumps: Any = None


async def test_a_line_the_reader_thread_held_goes_on_once_the_calls_ended() -> None:
    box = Outbox()
    counts = iter([HOLD_AT])  # the calls running: full at the thread's check, all ended right after it

    class Fast:
        ended: Any = None

        def running(self) -> int:
            return next(counts, 0)

    box.watch(Fast(), Front())
    ran: list[str] = []
    # the calls' last release ran before the hold (nothing held then): no call ends after it
    assert await asyncio.to_thread(box.later, lambda: ran.append("line"))
    for _ in range(3):  # only the release the thread asked for runs
        await asyncio.sleep(0)
    assert ran == ["line"]


async def test_the_thread_holds_its_line_while_the_loop_releases_earlier_ones() -> None:
    """Order: a line read after those being released waits behind them, even when the room
    reopened meanwhile."""
    box = Outbox()
    running = [HOLD_AT]

    class Fast:
        ended: Any = None

        def running(self) -> int:
            return running[0]

    box.watch(Fast(), Front())
    order: list[str] = []

    def first() -> None:
        order.append("first")
        # the reader thread gets the next line while the loop releases this one
        reader = threading.Thread(target=lambda: box.later(lambda: order.append("second")) or order.append("not held"))
        reader.start()
        reader.join()

    assert box.later(first)  # on the loop: held (room full)
    running[0] = 0
    box.release()
    for _ in range(3):
        await asyncio.sleep(0)
    assert order == ["first", "second"]
