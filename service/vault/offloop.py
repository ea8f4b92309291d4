"""Work on a whole note that runs in a worker thread once the note is long.

Parsing, splitting or diffing a note is linear in its size (~0.25-0.45 s per MB on a loaded
machine): on the event loop, an 18 MB note held every other client's call for seconds (T1 s62
#13). A note longer than `OFF_LOOP_CHARS` is therefore handled with `asyncio.to_thread`; a
shorter one inline, where a thread hop would cost more than the work.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, Protocol, TypeVar

OFF_LOOP_CHARS = 64 * 1024  # parsing this much takes ~20 ms here

P = ParamSpec("P")
T = TypeVar("T")


class _OnDisk(Protocol):  # a `VaultPath` (not imported: `service.vault.files` imports this module)
    @property
    def abs(self) -> Path: ...


V = TypeVar("V", bound=_OnDisk)


async def sized(size: int, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)`: in a worker thread when `size` (characters or bytes of the note it
    works on) is past `OFF_LOOP_CHARS`, inline otherwise."""
    if size > OFF_LOOP_CHARS:
        return await asyncio.to_thread(fn, *args, **kwargs)
    return fn(*args, **kwargs)


def size_of(vp: _OnDisk) -> int:
    """The note's size on disk now (0 when it cannot be read: the work then runs inline and
    answers as for any missing or odd file)."""
    try:
        return os.stat(vp.abs).st_size
    except (OSError, ValueError):
        return 0


async def read(read_note: Callable[[V], T], vp: V) -> T:
    """`read_note(vp)` (`VaultFiles.read`): decoding and hashing a long note's bytes in a worker thread."""
    return await sized(size_of(vp), read_note, vp)
