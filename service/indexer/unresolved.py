"""The link targets that may be unresolved, by the name a new note must have to take them over.

A note that appears can only resolve links naming it (`PathSet.by_name`'s rule: the link's base
name, case folded, is the file's, with or without `.md`), so a new note's index update looks
for those links among the vault's unresolved ones (`rows.resolve_links`). In SQL that was a
substring test on every unresolved link of the vault: ~31 ms per new note at 100k notes (30,593
unresolved links; 13 ms on their own index), once per note created, in its save → searchable
time. `UnresolvedTargets` holds each distinct unresolved `target_raw` under its name (19,007 at
100k notes, a few MB), so the links are then fetched by equality on their partial index.

Guarantee: every `target_raw` of an unresolved link in the index is held (under
`key(target_raw)`), while the set is built; it may hold more (a target resolved since, or one
no link names any more): those are looked up and found resolved, never wrong. Links become
unresolved only when stored (`add` the targets of the links an incremental write stores) or when
resolution clears them (`resolve_links` adds those); a write that does not report its targets (a
reconcile's batches) `void`s the set, and the next use reads the distinct targets again from
their index (~9 ms at 100k). Past `GROWTH` additions since the last read (stale targets pile up)
the set is read again too.

Used in the writer's thread only (inside its transactions); `void` may come from any thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from service.graph.linkpath import base_name

GROWTH = 20_000  # additions, beyond the size last read, after which the set is read again
_DISTINCT = (
    "SELECT DISTINCT target_raw FROM links INDEXED BY links_unresolved WHERE vault_id = ? AND target_path IS NULL"
)


def key(raw: str) -> str:
    """The name a file must have for the link to resolve to it (`resolve_links`' rule)."""
    return base_name(raw.strip()).lower()


class UnresolvedTargets:
    def __init__(self, vault_id: str) -> None:
        self.vault_id = vault_id
        self.reads = 0  # distinct targets read from the index
        self._by_key: dict[str, set[str]] | None = None
        self._added = 0
        self._limit = GROWTH

    def void(self) -> None:
        self._by_key = None

    def add(self, raws: Iterable[str]) -> None:
        """Targets of links just stored or just made unresolved."""
        by_key = self._by_key
        if by_key is None:
            return
        for raw in raws:
            by_key.setdefault(key(raw), set()).add(raw)
            self._added += 1
        if self._added > self._limit:
            self._by_key = None

    def named(self, conn: sqlite3.Connection, names: Iterable[str]) -> list[str]:
        """The held targets a file with one of these names (lower case, with `.md` for notes)
        may take over."""
        by_key = self._by_key
        if by_key is None:
            by_key = {}
            rows = conn.execute(_DISTINCT, (self.vault_id,)).fetchall()
            for (raw,) in rows:
                by_key.setdefault(key(raw), set()).add(raw)
            self.reads += 1
            self._added, self._limit = 0, GROWTH + len(rows)
            self._by_key = by_key
        out: set[str] = set()
        for name in names:
            out.update(by_key.get(name, ()))
            if name.endswith(".md"):
                out.update(by_key.get(name[:-3], ()))
        return sorted(out)
