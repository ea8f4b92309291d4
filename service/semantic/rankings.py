"""Rankings of the exact scan kept with the matrix snapshot they rank (`vectors.scan_ranking`).

An agent asks one question of several tools (search_hybrid, then context_for_query), and a
ranking depends on nothing but the snapshot's rows and the query vector: the last `KEPT` rankings
of the installed snapshot are kept, each with the answers it gave per k. Installing another
snapshot (any change of the vault's chunks or vectors) drops them (`drop`), so a ranking is never
used over other rows. Kept beside the snapshots, not on them: a ranking refers to its snapshot,
and a snapshot referring back would be freed only by a full garbage collection. Touches nothing
but its own dictionaries (callers hold the lock that guards the snapshots).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

Ranking = Callable[[int], list[tuple[int, float]]]  # k -> the k best (chunk id, similarity)
Query = tuple[int, int, bytes]  # (first-pass rows threshold, candidate share, the query vector's bytes)
KEPT = 8  # per snapshot, each with its answers and its first pass's estimates (firstpass.candidates) or similarities


class Rankings:
    """Per (vault, model): the installed snapshot and its kept rankings by query."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], tuple[object, OrderedDict[Query, Ranking]]] = {}

    def get(self, key: tuple[str, str], snapshot: object, query: Query) -> Ranking | None:
        entry = self._kept.get(key)
        if entry is None or entry[0] is not snapshot:
            return None
        found = entry[1].get(query)
        if found is not None:
            entry[1].move_to_end(query)
        return found

    def keep(self, key: tuple[str, str], snapshot: object, query: Query, ranking: Ranking) -> None:
        entry = self._kept.get(key)
        if entry is None or entry[0] is not snapshot:
            entry = self._kept[key] = (snapshot, OrderedDict())
        entry[1][query] = ranking
        while len(entry[1]) > KEPT:
            entry[1].popitem(last=False)

    def drop(self, key: tuple[str, str]) -> None:
        self._kept.pop(key, None)


def remembered(top: Ranking) -> Ranking:
    """`top` with each k's answer kept (a copy handed out: callers may change their list)."""
    answers: dict[int, list[tuple[int, float]]] = {}

    def once(k: int) -> list[tuple[int, float]]:
        found = answers.get(k)
        if found is None:
            found = answers[k] = top(k)
        return list(found)

    return once
