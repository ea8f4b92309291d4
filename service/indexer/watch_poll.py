"""Polling: how the file watcher sees edits where the OS reports none.

Two cases. Linux's inotify has per-user limits, shared by every program the user runs (an
editor, a sync client, another server): `fs.inotify.max_user_watches` (one watch per folder) and
`fs.inotify.max_user_instances`. A vault whose folders do not fit cannot be watched: the watch
failed at its set-up and was set up again every 5 s, logging a traceback each time, and no edit
made by another program reached the index until a restart. And a network file system (NFS, SMB,
sshfs) raises no event here for an edit made on another machine: `[index] watch_mode = "poll"`.

Polling compares the vault with the index (`reconcile.drift`: a stat of every file, and the
index's rows of the files changed since the previous look, `look.py`; giving way to calls as a
start's reading does) every `[index] watch_poll_s`, and hands
what differs to the watcher as if the OS had reported it (`Watcher.handle`): applied only where
the file differs from the index, published with origin "external", our own writes left to their
own update. What the index holds below a folder a look cannot list is not taken for deleted, and
a look at a vault folder that cannot be listed, or lists nothing while the index holds files (a
share away), fails (`reconcile.drift`): it is tried again after the pause, said once in the log
while looks keep failing. A pause after a look lasts at least `SHARE` times the look's CPU time
(not its wall time, which grows while it gives way to calls), so a large vault's looks stay
under ~5 % of a core. Polling because of a limit tries the OS's watch again every
`RETRY_EVENTS_S`: a limit raised meanwhile (`sysctl fs.inotify.max_user_watches=...`), or
watches another program gave back, brings the events back without a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

MODIFIED, DELETED = 2, 3  # as `inotify.py` and watchfiles number an event's kind
LIMIT_ERRNOS = (errno.ENOSPC, errno.EMFILE)  # inotify_add_watch's watch limit, inotify_init1's instances
LIMIT_TEXT = "watch limit"  # how watchfiles (Rust notify) reports the limit: "OS file watch limit reached."
RETRY_EVENTS_S = 600.0
SHARE = 20  # a pause is at least this many times the look before it

# The vault paths whose files differ from the index, and the CPU seconds the look took.
DriftFn = Callable[[], Awaitable[tuple[list[str], float]]]
HandleFn = Callable[[set[tuple[int, str]]], Awaitable[None]]  # events, as (kind, absolute path)


def at_limit(exc: BaseException) -> bool:
    """Whether a failed watch failed on the OS's limit of watches (polling stands in for it)."""
    return isinstance(exc, OSError) and (exc.errno in LIMIT_ERRNOS or LIMIT_TEXT in str(exc).lower())


async def poll(
    drift: DriftFn, handle: HandleFn, every_s: float, stop: asyncio.Event, root: str, *, for_s: float | None = None
) -> bool:
    """Look for changes at once, then after each pause, until `stop` is set (True) or, with
    `for_s`, until the next look would begin past that many seconds (False). `root`: the vault
    folder's absolute path, ending with the separator."""
    began = time.monotonic()
    failing = False
    while True:
        try:
            rels, cpu_s = await drift()
            if rels:
                await handle({_event(root + rel.replace("/", os.sep)) for rel in rels})
            failing = False
        except Exception as exc:  # noqa: BLE001 - a look that failed is tried again after the pause
            if not failing:  # said once while looks keep failing (a share away for an hour)
                log.warning("looking for changes in %s failed (%s); trying again every %.0f s", root, exc, every_s)
            failing, cpu_s = True, 0.0
        pause = max(every_s, SHARE * cpu_s)
        if for_s is not None and time.monotonic() + pause - began > for_s:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), pause)
            return True


def _event(path: str) -> tuple[int, str]:
    return (MODIFIED if os.path.lexists(path) else DELETED), path
