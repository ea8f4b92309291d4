"""The word index of a cold load, built while the single writer waits for parsed notes.

A bulk load into an empty index drops the triggers that keep `fts_words` in step with
`note_text` (`bulk.py`) and used to build the whole word index by one FTS5 'rebuild' after the
last batch: ~8 s of one core at 100k notes before the index could say ready, the other core idle.
During the load the writer often waits for the next parsed batch (the parse worker is the slower
side on 2 CPUs); `WordCatchUp.step` fills that wait: one small write transaction indexes the
words of the next notes already stored, in `note_id` order, so at the end only the notes stored
since the last step are left (`bulk.restore_indexes(words_from=...)`).

Why this is exact: while the word triggers are deferred on an empty index, a cold load only
inserts notes (each path once, ids growing), and the only other writes of `note_text` are those
made through vaultgate during the load (`early.py`; the watcher's wait for its end), which run
inside `around`: the words of every note stored so far are indexed first, the triggers are back
for that write's own rows only, and `upto` moves past them. So every row up to `upto` is in the
word index as it is in `note_text`; the rows after it are indexed at the end. A load that fails,
or a process that dies, leaves the triggers deferred: the word index is then rebuilt from
`note_text` in one pass, as before, whatever the steps had indexed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from service.indexer.bulk import WORD_TRIGGERS

T = TypeVar("T")

# Notes whose words one step indexes: ~15-25 ms of the writer's thread on the 100k workload, so a
# parsed batch that arrives meanwhile waits at most about that long for the writer.
STEP_NOTES = 200


class WordCatchUp:
    def __init__(self) -> None:
        self.upto = 0  # every note_text row with note_id <= upto is in fts_words
        self.steps = 0
        self._held: int | None = None  # what `around` indexed up to, until its transaction commits

    def step(self, conn: Any) -> int | None:
        """Index the words of up to `STEP_NOTES` stored notes after `upto` (in the writer's
        transaction); the last note id indexed, None when none was left. Hand it to `advance`
        once the transaction committed."""
        last = conn.execute(
            "SELECT max(note_id) FROM (SELECT note_id FROM note_text WHERE note_id > ? ORDER BY note_id LIMIT ?)",
            (self.upto, STEP_NOTES),
        ).fetchone()[0]
        if last is None:
            return None
        conn.execute(
            "INSERT INTO fts_words(rowid, title, body)"
            " SELECT note_id, title, body FROM note_words WHERE note_id > ? AND note_id <= ?",
            (self.upto, last),
        )
        return int(last)

    def advance(self, last: int) -> None:
        """A step's transaction committed: the notes up to `last` are in the word index."""
        self.upto = max(self.upto, last)
        self.steps += 1

    def around(self, conn: Any, write: Callable[[Any], T]) -> T:
        """Run `write`, an index update made during the load (`early.py`), in this transaction
        with the word index kept in step: the words of every note stored so far are indexed, the
        word triggers are created for the write and dropped after it (`deferred_indexes` keeps
        them deferred), and the last note id is held for `committed`. One transaction: rolled
        back, nothing of it stays."""
        self._held = None
        conn.execute(
            "INSERT INTO fts_words(rowid, title, body) SELECT note_id, title, body FROM note_words WHERE note_id > ?",
            (self.upto,),
        )
        marks = ",".join("?" * len(WORD_TRIGGERS))
        made = conn.execute(
            f"SELECT name, sql FROM deferred_indexes WHERE name IN ({marks})"
            " AND name NOT IN (SELECT name FROM sqlite_master WHERE type = 'trigger')",
            WORD_TRIGGERS,
        ).fetchall()
        for _name, sql in made:
            conn.execute(sql)
        out = write(conn)
        for name, _sql in made:
            conn.execute(f'DROP TRIGGER "{name}"')
        self._held = int(conn.execute("SELECT coalesce(max(note_id), 0) FROM note_text").fetchone()[0])
        return out

    def committed(self) -> None:
        """The transaction `around` ran in committed."""
        if self._held is not None:
            self.upto = max(self.upto, self._held)
            self._held = None
