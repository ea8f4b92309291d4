"""The sensitive-content guard of the call's vault, and what search tools need of it.

`guard_of(ctx)` builds the `Guard` (`service.retrieval.sensitive`) from `[sensitive]`, the vault's
`sensitive_mode` and `[search] sensitive_terms` / `sensitive_tags`, once per distinct
configuration (cached). Tools that show note text they were not asked for by path (snippets,
chunks, passages, bundles) pass it through the guard:

- `excerpts(guard, conn, note_ids)` reads those notes' stored verdicts (`secret_verdicts`, kept
  for a note's version and the guard's fingerprint), else scans their bodies and properties
  (index tables `notes`, `note_text`; once per note version, remembered on the guard: one
  verdict per note, that of its last version seen) and returns an
  `Excerpts`: `show(note_id, text)` redacts an excerpt of a note under the mode (its own spans,
  and any word of the note's secrets: a snippet may begin inside one), `heading` / `anchor` do it
  for a chunk's heading and the heading a link opens, `secret(note_id)` and
  `sensitive(note_id, text, tags, heading)` flag (a passage by what it says);
- `note_excerpts(...)`: the same for search items, whose `sensitive` is the note's flag in every
  mode: a secret, or a topic anywhere in the note (`topical_notes`: body, property values, tags,
  title, headings; judged once per note version);
- `without_secrets(guard, conn, keep)`: under `exclude`, a semantic `NoteFilter` that also
  refuses notes holding a secret;
- `unjudged(...)` / `store(...)`: scan the notes without a stored verdict for their version and
  store what was found (`service.tools.query_warmup`, in the background once a vault's index is
  ready and again after changes): at 100k notes a search by meaning then scans nothing, where
  it scanned ~5-7 ms of notes never seen before.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from service.retrieval.sensitive import Guard
from service.settings import SensitiveMode, Settings
from service.tools.context import ToolContext
from service.vault.vault import Vault

if TYPE_CHECKING:  # annotations only: the semantic search's modules load with the first search
    from service.semantic.engine import ChunkRow
    from service.semantic.search import NoteFilter


@lru_cache(maxsize=32)
def _build(
    mode: SensitiveMode,
    builtin: bool,
    patterns: tuple[tuple[str, str], ...],
    keys: tuple[str, ...],
    terms: tuple[str, ...],
    tags: tuple[str, ...],
) -> Guard:
    return Guard.build(mode, builtin=builtin, patterns=dict(patterns), secret_keys=keys, terms=terms, tags=tags)


def guard_of(ctx: ToolContext) -> Guard:
    return guard_for(ctx.services.settings, ctx.vault)


def guard_for(settings: Settings, vault: Vault) -> Guard:
    """The guard of `vault` under `settings` (the same object for the same configuration)."""
    conf = settings.sensitive
    return _build(
        vault.config.sensitive_mode or conf.mode,
        conf.builtin_patterns,
        tuple(sorted(conf.patterns.items())),
        tuple(conf.secret_keys),
        tuple(settings.search.sensitive_terms),
        tuple(settings.search.sensitive_tags),
    )


@dataclass
class Excerpts:
    """What the guard says about a set of indexed notes (by note id)."""

    guard: Guard
    words: dict[int, frozenset[str]] = field(default_factory=dict)
    secrets: set[int] = field(default_factory=set)
    # search items: the notes naming a topic anywhere (`note_excerpts`), so a note has one flag in
    # every search mode; None for passages (a chunk is flagged by what it says)
    topics: set[int] | None = None

    def show(self, note_id: int, text: str) -> str:
        return self.guard.excerpt(text, self.words.get(note_id, frozenset()))

    def secret(self, note_id: int) -> bool:
        return note_id in self.secrets

    def heading(self, note_id: int, heading: str | None) -> str | None:
        """A chunk's heading as it may be shown (a secret in a heading is redacted as in its text)."""
        return None if heading is None else self.show(note_id, heading)

    def anchor(self, note_id: int, heading: str | None) -> str | None:
        """The heading a link may open: none when the heading is redacted (the link opens the note;
        a redacted anchor would name no heading, and the heading itself would carry the secret)."""
        return heading if heading is not None and self.show(note_id, heading) == heading else None

    def sensitive(self, note_id: int, text: str, tags: Iterable[str] = (), heading: str | None = None) -> bool:
        if self.topics is not None:
            return note_id in self.secrets or note_id in self.topics
        return note_id in self.secrets or self.guard.topical(text, tags, heading)


VERDICTS_MAX = 20_000  # notes remembered per guard (~200 bytes each)
# The verdict of every note without a secret: one object, not a tuple and an empty frozenset
# (~270 bytes) per note.
CLEAN: tuple[bool, frozenset[str]] = (False, frozenset())


def known(guard: Guard, note_id: int, etag: str) -> tuple[bool, frozenset[str]] | None:
    """The verdict `guard` remembers for the note at version `etag`; None when not judged yet.

    The memo holds one entry per note, that of the last version seen: a note written again
    replaces its entry. Kept by (note, version), every write left a dead entry behind, and under
    a steady mix of writes and searches the memo grew by ~5 MB an hour until it was cleared."""
    found = guard.verdicts.get(note_id)
    return found[1] if found is not None and found[0] == etag else None


def _stored(guard: Guard, secret: int, words: str) -> tuple[bool, frozenset[str]]:
    return (True, frozenset(words.split())) if secret else CLEAN


def excerpts(
    guard: Guard, conn: sqlite3.Connection, note_ids: Iterable[int], etags_out: dict[int, str] | None = None
) -> Excerpts:
    """What `guard` says of these notes. A note's verdict is read from `secret_verdicts` when it
    was stored for its current version under this guard (`fill`, in the background), else from
    the guard's memo, else the note is scanned (once per version: the answer is kept on the
    guard, so a search showing the same notes again reads only etags). `etags_out`: filled with
    the topic version (`_version`) of each note found (`note_excerpts` passes them on to
    `topical_notes`)."""
    out = Excerpts(guard)
    ids = sorted(set(note_ids))
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            "SELECT n.id, n.etag, n.title, v.secret, v.words FROM notes n LEFT JOIN secret_verdicts v"
            f" ON v.note_id = n.id AND v.etag = n.etag AND v.guard = ? WHERE n.id IN ({marks})",
            [guard.fingerprint, *part],
        )
        todo = []
        etags: dict[int, str] = {}
        for nid, etag, title, secret, words in rows:
            if etags_out is not None:
                etags_out[nid] = _version(etag, title)
            verdict = _stored(guard, secret, words) if secret is not None else known(guard, nid, etag)
            if verdict is None:
                todo.append(nid)
                etags[nid] = etag
            elif verdict[0]:
                out.secrets.add(nid)
                out.words[nid] = verdict[1]
        for nid, verdict in _scan(guard, conn, todo, etags).items():
            if verdict[0]:
                out.secrets.add(nid)
                out.words[nid] = verdict[1]
    return out


def note_excerpts(guard: Guard, conn: sqlite3.Connection, note_ids: Iterable[int]) -> Excerpts:
    """`excerpts` for search items: `sensitive` is the note's flag, whatever the item shows."""
    ids = list(note_ids)
    etags: dict[int, str] = {}
    out = excerpts(guard, conn, ids, etags)
    out.topics = topical_notes(guard, conn, ids, etags)  # the etags just read: no second lookup
    return out


_HEADING = re.compile(r"(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$")


def _version(etag: object, title: object) -> str:
    """What a note's topic verdict holds for: its content (the etag) and its title, which the etag
    does not cover (note ids are reused: a note made with the content of the note just deleted
    takes its id, and was judged by that note's title)."""
    return f"{etag}\0{title}"


def _values(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _values(v)
    elif isinstance(value, list):
        for v in value:
            yield from _values(v)
    elif value is not None:
        yield str(value)


def _names_topic(guard: Guard, title: str, tags: str, properties: str, body: str) -> bool:
    try:
        tag_list, props = json.loads(tags or "[]"), json.loads(properties or "{}")
    except ValueError:
        tag_list, props = [], {}
    text = "\n".join([body, *_values(props)])
    heads = [title, *_HEADING.findall(body)]
    named_tags = [t for t in tag_list if isinstance(t, str)]
    return guard.topical("", named_tags) or any(guard.topical("", (), h) for h in heads) or guard.mentions(text)


def topical_notes(
    guard: Guard, conn: sqlite3.Connection, note_ids: Iterable[int], etags: dict[int, str] | None = None
) -> set[int]:
    """The notes of `note_ids` whose content names a health or money topic anywhere (`Guard.topical`
    on the body and the property values, the tags, the title and each heading): the topic half of
    a search item's `sensitive` flag, one per note, so every search mode flags a note alike. Judged
    once per note version and title, under the guard's terms and tags (`Guard.topics`). `etags`:
    every indexed note of `note_ids` with its `_version`, read by the caller in this transaction
    (a note missing from it is not in the index)."""
    ids = sorted(set(note_ids))
    found: set[int] = set()
    if not ids or (not guard.terms and not guard.tags):
        return found
    memo = guard.topics  # note -> (version, names a topic), the guard's own (its terms and tags)
    if len(memo) > VERDICTS_MAX:
        memo.clear()
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        q = f"SELECT id, etag, title FROM notes WHERE id IN ({','.join('?' * len(part))})"
        todo = []
        known_etags = (
            [(nid, etags[nid]) for nid in part if nid in etags]
            if etags is not None
            else [(nid, _version(etag, title)) for nid, etag, title in conn.execute(q, part)]
        )
        for nid, version in known_etags:
            seen = memo.get(nid)
            if seen is None or seen[0] != version:
                todo.append(nid)
            elif seen[1]:
                found.add(nid)
        if not todo:
            continue
        sql = (
            "SELECT n.id, n.etag, n.title, n.tags, n.properties, coalesce(t.body, '') FROM notes n"
            f" LEFT JOIN note_text t ON t.note_id = n.id WHERE n.id IN ({','.join('?' * len(todo))})"
        )
        for nid, etag, title, tags, props, body in conn.execute(sql, todo):
            named = _names_topic(guard, str(title), tags, props, str(body))
            memo[int(nid)] = (_version(etag, title), named)
            if named:
                found.add(int(nid))
    return found


def _judge(guard: Guard, conn: sqlite3.Connection, ids: list[int]) -> dict[int, tuple[bool, frozenset[str]]]:
    """The verdicts of notes `ids` (at most 500) at their indexed versions, scanned now."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    sql = (
        "SELECT n.id, n.properties, coalesce(t.body, '') FROM notes n LEFT JOIN note_text t ON t.note_id = n.id"
        f" WHERE n.id IN ({marks})"
    )
    out: dict[int, tuple[bool, frozenset[str]]] = {}
    for nid, props, body in conn.execute(sql, ids):
        try:
            properties = json.loads(props or "{}")
        except ValueError:
            properties = {}
        properties = properties if isinstance(properties, dict) else {}
        verdict = CLEAN
        if guard.secret(str(body), properties):
            verdict = (True, guard.secret_words(str(body), properties))
        out[int(nid)] = verdict
    return out


def _scan(
    guard: Guard, conn: sqlite3.Connection, ids: list[int], etags: dict[int, str]
) -> dict[int, tuple[bool, frozenset[str]]]:
    """`_judge`, the answers remembered on the guard at versions `etags`."""
    memo = guard.verdicts
    if ids and len(memo) > VERDICTS_MAX:
        memo.clear()
    out = _judge(guard, conn, ids)
    for nid, verdict in out.items():
        memo[nid] = (etags[nid], verdict)
    return out


# (note id, etag, holds a secret, its secret words space-separated): a row of `secret_verdicts`
Judged = tuple[int, str, int, str]


def unjudged(
    guard: Guard, conn: sqlite3.Connection, *, vault_id: str, after: int, batch: int, max_bytes: int
) -> tuple[int | None, list[Judged]]:
    """Scan the vault's next notes with ids past `after` that hold no stored verdict for their
    current version under `guard`: up to `batch` notes, and no more once `max_bytes` of them
    are scanned (one reader call holds the interpreter for the scan). Returns the last id looked
    at (None: none left) and the verdicts, for `store` on the writer (`QueryWarmup`)."""
    rows = conn.execute(
        "SELECT n.id, n.etag, n.size FROM notes n LEFT JOIN secret_verdicts v"
        " ON v.note_id = n.id AND v.etag = n.etag AND v.guard = ?"
        " WHERE n.vault_id = ? AND n.id > ? AND v.note_id IS NULL ORDER BY n.id LIMIT ?",
        (guard.fingerprint, vault_id, after, batch),
    ).fetchall()
    if not rows:
        return None, []
    taken, size = [], 0
    for nid, etag, nbytes in rows:
        taken.append((int(nid), str(etag)))
        size += int(nbytes)
        if size >= max_bytes:
            break
    verdicts = _judge(guard, conn, [nid for nid, _ in taken])
    out = [(nid, etag, int(v[0]), " ".join(sorted(v[1]))) for nid, etag in taken if (v := verdicts.get(nid))]
    return taken[-1][0], out


def store(guard: Guard, conn: sqlite3.Connection, *, judged: list[Judged]) -> int:
    """Store verdicts from `unjudged` (the writer, in its transaction); a note written or deleted
    since its scan keeps no row for the version scanned. Returns the rows stored."""
    before = conn.total_changes
    conn.executemany(
        "INSERT OR REPLACE INTO secret_verdicts(note_id, guard, etag, secret, words)"
        " SELECT id, ?, etag, ?, ? FROM notes WHERE id = ? AND etag = ?",
        [(guard.fingerprint, secret, words, nid, etag) for nid, etag, secret, words in judged],
    )
    return conn.total_changes - before


def without_secrets(guard: Guard, conn: sqlite3.Connection, keep: NoteFilter) -> NoteFilter:
    """`keep`, refusing notes that hold a secret when the mode is `exclude` (checked once per note)."""
    if not guard.excludes:
        return keep
    memo: dict[int, bool] = {}
    prior = keep.also

    def no_secret(row: ChunkRow) -> bool:
        if prior is not None and not prior(row):
            return False
        if row.note_id not in memo:
            memo[row.note_id] = excerpts(guard, conn, [row.note_id]).secret(row.note_id)
        return not memo[row.note_id]

    return dataclasses.replace(keep, also=no_secret)


async def excerpts_of(ctx: ToolContext, note_ids: Iterable[int]) -> Excerpts:
    """`excerpts` for the call's vault, on a pooled reader."""
    guard = guard_of(ctx)
    ids = list(note_ids)
    if not ids:
        return Excerpts(guard)
    return await ctx.services.db.run_read(lambda conn: excerpts(guard, conn, ids))


async def scrub(ctx: ToolContext, texts: dict[int, str]) -> dict[int, str]:
    """Excerpts by note id, as they may be shown (unchanged under `flag`)."""
    guard = guard_of(ctx)
    if not texts or not guard.redacts:
        return texts
    return await ctx.services.db.run_read(lambda conn: scrubbed(guard, conn, texts))


def scrubbed(guard: Guard, conn: sqlite3.Connection, texts: dict[int, str]) -> dict[int, str]:
    """`scrub` on a connection the caller holds already (a search's own query job: under 32
    agents a second trip to the reader pool per search held a reader ~17 ms)."""
    if not texts or not guard.redacts:
        return texts
    shown = excerpts(guard, conn, texts)
    return {nid: shown.show(nid, text) for nid, text in texts.items()}
