"""An edit of a note mixing line ends keeps each untouched line's end (e0e08bd) by matching the
changed lines of the old and the new text; that matching must stay cheap, for a note under 64 KB
is edited on the event loop (`service.vault.offloop.OFF_LOOP_CHARS`).

patch_note replacing a 1,000-line section (paragraphs between blank lines) of a 13 KB note that
mixes CRLF and lone CRs with 1,000 new lines of the same shape: difflib's matching without its
junk heuristic took 6-8 s, the whole server stalled meanwhile (a ticker on the loop saw no tick).

Both are measured in CPU time, not on the wall clock: the longest stretch of CPU the loop's thread
spent between two ticks, and the process's CPU for the call. On a loaded machine (CI: 4 workers on
2 cores) the wall clock measured the machine: at load 21, 0.25 s of the loop's CPU (a start-up
task after ready) took 2.3-6.5 s between two ticks, failing `longest < 1.0` every time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import anyio

from tests.conftest import started

LINES = 996
OLD = "".join(("" if i % 2 else f"p{i}") + ("\r\n" if i % 3 else "\r") for i in range(LINES))
NEW = "".join(("" if i % 3 else f"q{i}") + "\n" for i in range(LINES))
NOTE = "# M\r\n## Body\r\n" + OLD + "## End\rlast\r\n"


async def test_replacing_a_long_section_of_a_mixed_note_does_not_stall_the_server(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"M.md": NOTE})
    async with started(root) as vg:
        await vg.indexed()
        longest = 0.0

        async def ticker() -> None:
            nonlocal longest
            last = time.thread_time()  # the loop's thread: what it ran between two ticks
            while True:
                await anyio.sleep(0.01)
                now = time.thread_time()
                longest, last = max(longest, now - last), now

        async with anyio.create_task_group() as tg:
            tg.start_soon(ticker)
            await anyio.sleep(0.05)
            started_at = time.process_time()
            await vg.ok("patch_note", path="M", heading=["M", "Body"], position="replace", content=NEW)
            took = time.process_time() - started_at
            tg.cancel_scope.cancel()
        data = (root / "M.md").read_bytes()
        assert data.startswith(b"# M\r\n## Body\r\nq0") and data.endswith(b"## End\rlast\r\n"), data[:40]
        assert took < 2.0 and longest < 1.0, (took, longest)
