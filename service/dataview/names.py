"""The Dataview pages by base name, for link resolution: lower-case base names (without '.md')
to the paths with that name, the shortest path first (the order in which Obsidian's link lookup
picks one: `service.obsidian.link_order`).

Held as an array of the names' hashes, sorted, beside the paths in that order: no string or
dict entry per name (at 10^5 notes a dict of every lower-case name took ~11 MB of the page
image). A hash shared by two names is told apart by the names themselves, computed again from
the paths. Touches nothing outside itself.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Collection

from service.obsidian.link_order import closeness


class Names:
    """Lower-case base names -> the paths with that name (by depth, then path)."""

    __slots__ = ("_hashes", "_paths")

    def __init__(self, paths: Collection[str]) -> None:
        ranked = sorted(paths, key=closeness)
        hashes = array("q", (hash(base_name(p)) for p in ranked))
        at = sorted(range(len(ranked)), key=hashes.__getitem__)  # stable: equal hashes keep their rank
        self._hashes = array("q", (hashes[i] for i in at))
        self._paths = [ranked[i] for i in at]

    def get(self, name: str) -> list[str]:
        """The paths whose lower-case base name (without '.md') is `name`, the shortest path first."""
        h = hash(name)
        lo = bisect.bisect_left(self._hashes, h)
        hi = bisect.bisect_right(self._hashes, h, lo)
        return [p for p in self._paths[lo:hi] if base_name(p) == name]


def base_name(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md").lower()
