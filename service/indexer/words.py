"""The word index of a cold load, built while the single writer waits for parsed notes.

A bulk load into an empty index drops the triggers that keep `fts_words` in step with
`note_text` (`bulk.py`) and used to build the whole word index by one FTS5 'rebuild' after the
last batch: ~8 s of one core at 100k notes before the index could say ready, the other core idle.
During the load the writer often waits for the next parsed batch (the parse worker is the slower
side on 2 CPUs); `WordCatchUp.step` fills that wait: one small write transaction indexes the
words of the next notes already stored, in `note_id` order, so at the end only the notes stored
since the last step are left (`bulk.restore_indexes(words_from=...)`).

Why this is exact: while the word triggers are deferred on an empty index, a cold load only
inserts notes (each path once, ids growing) and nothing else writes `note_text` (writes through
vaultgate and the watcher's wait for the load: `reconcile.py`), so a row indexed here stays as
it was indexed; the rows after `upto` are indexed at the end. A load that fails, or a process
that dies, leaves the triggers deferred: the word index is then rebuilt from `note_text` in one
pass, as before, whatever the steps had indexed.
"""

from __future__ import annotations

from typing import Any

# Notes whose words one step indexes: ~15-25 ms of the writer's thread on the 100k workload, so a
# parsed batch that arrives meanwhile waits at most about that long for the writer.
STEP_NOTES = 200


class WordCatchUp:
    def __init__(self) -> None:
        self.upto = 0  # every note_text row with note_id <= upto is in fts_words
        self.steps = 0

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
            " SELECT note_id, title, body FROM note_text WHERE note_id > ? AND note_id <= ?",
            (self.upto, last),
        )
        return int(last)

    def advance(self, last: int) -> None:
        """A step's transaction committed: the notes up to `last` are in the word index."""
        self.upto = max(self.upto, last)
        self.steps += 1
