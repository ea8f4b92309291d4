"""What the Dataview pages and the Bases snapshot of one vault share: their tag tuples.

Both images read the same `notes.tags` text of every note and keep it as a tuple of tags (one
tuple per distinct text within an image). At 10^5 notes the workload's notes have ~65,000
distinct tag sets: ~4.2 MB of tuples in each image, the same tuples twice once both are built.
An image being built asks the other engine's live image of the vault for the note's tuple
(`peer_tags`) and keeps that object when it is equal to what it decoded, so the second image
built holds no tuple of its own for those notes.

Nothing is held here but weak references to the live images (`publish`): an image dropped as
idle is not kept by the other, which keeps only the tuples it uses; the tuples being immutable
and equal, which image made them does not show in any result. A note's tuple in the other image
may be older than the index being read (that image not rebuilt yet): it is used only when equal.
Touches nothing outside itself.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Protocol

Tags = tuple[str, ...]


class TagSource(Protocol):
    """A live image: the tags it holds for the note at `path` (None: no such note)."""

    def tags_of(self, path: str) -> Tags | None: ...


_lock = threading.Lock()
_live: weakref.WeakValueDictionary[tuple[str, str], TagSource] = weakref.WeakValueDictionary()
KINDS = ("dataview", "bases")


def publish(kind: str, vault_id: str, image: TagSource) -> None:
    """`image` is now `kind`'s (one of KINDS) image of the vault, weakly held."""
    with _lock:
        _live[kind, vault_id] = image


def peer_tags(kind: str, vault_id: str) -> Callable[[str], Tags | None]:
    """For an image of `kind` being built: the other engine's live image's tags by path (a
    function answering None when there is no such image)."""
    other = "bases" if kind == "dataview" else "dataview"
    with _lock:
        image = _live.get((other, vault_id))
    return image.tags_of if image is not None else _none


def _none(_path: str) -> Tags | None:
    return None


def borrowed(decoded: Tags, theirs: Tags | None) -> Tags:
    """`theirs` when equal to `decoded` (one tuple for both images), else `decoded`."""
    return theirs if theirs is not None and theirs == decoded and type(theirs) is tuple else decoded
