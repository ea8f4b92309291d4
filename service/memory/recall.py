"""The recall index: a vault's memory observations found by meaning and by words, fast.

One `Recall` per vault, shared by every caller (a query says which notes its caller may read),
holds each entity note parsed, its words' postings, and one vector per observation when
embeddings are on. A query first re-reads the notes whose stat (mtime, size, inode) changed, so
what was written (by a tool, a person, another process) is found by words at once; vectors follow
in the background, and until an observation has one it is ranked by words alone (`pending`).

Ranking (`search`), tuned on the LoCoMo dev conversations (docs/memory.md):
- words: BM25 over each observation's own words plus `NEAR_WEIGHT` of BM25 over the words
  around it (the entity's name and type, and its neighbours in the note), plus `RECORDED_NEAR` of
  the BM25 of the observations recorded just before and after it (`service.memory.order`: across
  notes, as a conversation's turns stored one per speaker), so a short turn such as "Yeah, I
  painted that lake sunrise last year!" is found by what its neighbours say too; the next hits
  then come from elsewhere (a hit beside one taken counts `NEIGHBOUR_DAMPING` as much);
- days: observations about a day or span the query names ("on 13 October, 2023", "in July
  2023", or a month without a year, "in June": June of any year; `service.memory.when`) count
  `1 + DATE_BOOST` times, and the date's words are not matched;
- names: an entity named in the query (name, alias, a person's first name) is its subject, not a word
  to match: its name is taken out of the words searched (a turn that only says "Thanks,
  Caroline!" no longer wins) and its observations count `1 + NAMED_BOOST` times; when no other
  word matches ("Caro", an alias), its observations are the hits;
- meaning: cosine of the query's vector with `"<entity>: <observation>"`'s, min-max scaled over
  the observations in scope, mixed with the words' score scaled by its best, `WORDS_SHARE` to
  the words. An observation sharing no word with the query is a hit only at cosine
  `MIN_COSINE` or more.

Vectors are kept in `memory_vectors` (by model and text hash): a restart embeds nothing again.
Touches the memory folder (reads only) and `memory_vectors`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from service.embeddings.protocol import Embedder
from service.memory import vectors as cache
from service.memory.model import Entity, Observation, inbox_key, parse
from service.memory.order import diverse, neighbours, spread, stamps
from service.memory.when import day_of, month_of, months, spans
from service.memory.words import bm25, first_names, names_in, postings, units_of, words
from service.settings import MemorySettings
from service.storage.db import Database
from service.vault.files import VaultFiles
from service.vault.offloop import sized
from service.vault.paths import VaultPath
from service.vault.vault import Vault

if TYPE_CHECKING:
    import numpy as np
else:
    from service.numpy_lazy import np  # imported at its first use

log = logging.getLogger(__name__)

WORDS_SHARE = 0.5  # words against meaning in the final score
NAMED_BOOST = 0.5  # observations of an entity the query names count this much more
MIN_COSINE = 0.3  # a hit by meaning alone needs at least this cosine
EMBED_BATCH = 32
RECORDED_NEAR = 0.4  # share of the words' score of the observations recorded just before and after
NEIGHBOUR_DAMPING = 0.6  # a hit whose neighbour is already shown counts this much (`order.diverse`)
DATE_BOOST = 0.5  # observations about a day or span the query names count this much more

Key = tuple[int, int, int]  # mtime_ns, size, inode


def vector_text(entity: Entity, obs: Observation) -> str:
    return f"{entity.name}: {obs.text}"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(slots=True)
class NoteEntry:
    rel: str
    vp: VaultPath
    key: Key
    etag: str
    entity: Entity
    own_len: list[int]  # per observation: its words (`service.memory.words`)
    near_len: list[int]  # the words around it
    own_post: dict[str, list[tuple[int, int]]]  # word -> (observation, count)
    near_post: dict[str, list[tuple[int, int]]]
    hashes: list[str]  # per observation: hash of its vector text
    days: list[int]  # per observation: the day it is about (its date, else when recorded; 0: none)
    months: list[int]  # per observation: the month of that day (1-12; 0: none)
    stamps: tuple[Any, Any]  # per observation: when recorded, and by whom (`order.stamps`)
    names: list[str] = field(default_factory=list)  # name and aliases, lower-cased


@dataclass(frozen=True, slots=True)
class Hit:
    score: float
    entry: NoteEntry
    index: int  # the observation's position in entry.entity.observations

    @property
    def observation(self) -> Observation:
        return self.entry.entity.observations[self.index]


def _key(stat: Any) -> Key:
    return (int(stat.st_mtime_ns), int(stat.st_size), int(stat.st_ino))


def _entry(rel: str, vp: VaultPath, key: Key, etag: str, entity: Entity) -> NoteEntry:
    units = units_of([o.text for o in entity.observations], f"{entity.name} {entity.entity_type}")
    names = [n.strip().lower() for n in (entity.name, *entity.aliases) if n and n.strip()]
    days = [day_of(o.fields.get("date") or o.fields.get("recorded") or "") or 0 for o in entity.observations]
    return NoteEntry(
        rel=rel,
        vp=vp,
        key=key,
        etag=etag,
        entity=entity,
        own_len=[sum(u.own.values()) for u in units],
        near_len=[sum(u.near.values()) for u in units],
        own_post=postings([u.own for u in units]),
        near_post=postings([u.near for u in units]),
        hashes=[text_hash(vector_text(entity, o)) for o in entity.observations],
        days=days,
        months=[month_of(d) for d in days],
        stamps=stamps(entity),
        names=names,
    )


class Recall:
    """The recall index of one vault's memory folder."""

    def __init__(
        self,
        vault_id: str,
        files: VaultFiles,
        resolve: Callable[[str], VaultPath],
        folder: str,
        db: Database,
        embedder: Callable[[], Embedder | None],
        inbox: str = "",
    ) -> None:
        self.vault_id = vault_id
        self.files = files
        self.resolve = resolve  # unrestricted: the caller's ACL is applied per query
        self.folder = folder.strip().strip("/")
        self.inbox = inbox_key(inbox)  # the capture inbox: a note, not an entity
        self.db = db
        self.embedder = embedder
        self.notes: dict[str, NoteEntry] = {}
        self.vectors: dict[str, np.ndarray[Any, Any]] = {}  # text hash -> unit vector (current model)
        self.model: str | None = None
        self.generation = 0
        self._layout_gen = -1
        self._order: list[NoteEntry] = []
        self._starts: list[int] = []
        self._matrix: np.ndarray[Any, Any] = np.zeros((0, 0), dtype=np.float32)
        self._have: np.ndarray[Any, Any] = np.zeros(0, dtype=bool)
        self._before: np.ndarray[Any, Any] = np.zeros(0, dtype=np.int64)
        self._days: np.ndarray[Any, Any] = np.zeros(0, dtype=np.int64)
        self._months: np.ndarray[Any, Any] = np.zeros(0, dtype=np.int64)
        self._after: np.ndarray[Any, Any] = np.zeros(0, dtype=np.int64)
        self._name_map: dict[str, set[str]] = {}
        self._first_map: dict[str, set[str]] = {}  # a person's first name -> their note
        self._refresh_lock = asyncio.Lock()
        self._pending: dict[str, str] = {}  # hash -> text still to embed
        self._embedding: asyncio.Task[None] | None = None

    # -- keeping up with the folder ---------------------------------------------------------

    async def refresh(self) -> None:
        """Read again the entity notes that changed on disk since the last query: listed on the
        event loop, read and parsed in a worker thread past `OFF_LOOP_CHARS` (a 10.7 MB note held
        the loop 20 s at each change), then applied on the loop, where searches read `notes`."""
        async with self._refresh_lock:
            seen, due = self._scan()
            read = await sized(sum(key[1] for _, key in due), lambda: [(r, self._load(r, key)) for r, key in due])
            changed = self._apply(seen, read)
            if changed:
                self.generation += 1
                await self._vectors_for(changed)

    def _scan(self) -> tuple[set[str], list[tuple[str, Key]]]:
        """The folder's entity notes now, and those whose stat changed since they were read."""
        try:
            folder = self.resolve(self.folder)
        except Exception:  # noqa: BLE001 - no memory folder (or an unusable one): no memory
            folder = None
        seen, due = set[str](), list[tuple[str, Key]]()
        if folder is not None and folder.abs.is_dir():
            for rel, dirent in self.files.walk(folder, recursive=False):
                if not rel.endswith(".md") or rel.casefold() == self.inbox:
                    continue
                try:
                    if not dirent.is_file(follow_symlinks=False):
                        continue
                    key = _key(dirent.stat(follow_symlinks=False))
                except OSError:
                    continue
                seen.add(rel)
                if (old := self.notes.get(rel)) is None or old.key != key:
                    due.append((rel, key))
        return seen, due

    def _apply(self, seen: set[str], read: list[tuple[str, NoteEntry | None]]) -> list[NoteEntry]:
        """`read` (the changed notes read again; None: gone, or no entity) in `notes`; what changed."""
        changed: list[NoteEntry] = []
        for rel, entry in read:
            if entry is None:
                seen.discard(rel)
                changed += [old] if (old := self.notes.pop(rel, None)) is not None else []  # gone: a change
            else:
                self.notes[rel] = entry
                changed.append(entry)
        return changed + [self.notes.pop(rel) for rel in [r for r in self.notes if r not in seen]]

    def _load(self, rel: str, key: Key) -> NoteEntry | None:
        try:
            vp = self.resolve(rel)
            note = self.files.read(vp)
        except Exception:  # noqa: BLE001 - vanished, unreadable or not a note: not memory
            return None
        entity = parse(note.content, rel.rsplit("/", 1)[-1].removesuffix(".md"))  # frontmatter broken: file name
        return _entry(rel, vp, key, note.etag, entity) if entity.name else None

    # -- vectors ------------------------------------------------------------------------------

    def _current_embedder(self) -> Embedder | None:
        try:
            embedder = self.embedder()
        except Exception:  # noqa: BLE001 - embeddings off: words only
            return None
        if embedder is not None and embedder.name != self.model:
            self.model, self.vectors, self._pending = embedder.name, {}, {}
            self.generation += 1
        return embedder

    async def _vectors_for(self, changed: list[NoteEntry]) -> None:
        embedder = self._current_embedder()
        if embedder is None:
            return
        wanted: dict[str, str] = {}
        for entry in (e for e in changed if self.notes.get(e.rel) is e):  # not one replaced or gone since
            for h, obs in zip(entry.hashes, entry.entity.observations, strict=True):
                if h not in self.vectors:
                    wanted[h] = vector_text(entry.entity, obs)
        if not wanted:
            return
        model = embedder.name
        keys = list(wanted)
        found = await self.db.run_read(lambda c: cache.stored(c, model, keys))
        for h, vec in found.items():
            self.vectors[h] = vec
            wanted.pop(h, None)
        self._pending.update(wanted)
        if self._pending and (self._embedding is None or self._embedding.done()):
            self._embedding = asyncio.create_task(self._embed(embedder), name=f"memory-vectors:{self.vault_id}")

    async def _embed(self, embedder: Embedder) -> None:
        while self._pending and embedder.name == self.model:
            batch = list(self._pending.items())[:EMBED_BATCH]
            try:
                rows = await embedder.embed_documents([text for _, text in batch])
            except Exception:  # noqa: BLE001 - the words still find them; tried again at the next change
                log.warning("embedding %d memory observations of %s failed", len(batch), self.vault_id, exc_info=True)
                return
            hashes = [h for h, _ in batch]
            vectors = np.asarray(rows, dtype=np.float32)
            with contextlib.suppress(Exception):  # kept in memory even when the cache write fails
                await self.db.run_write(partial(cache.store, model=embedder.name, hashes=hashes, vectors=vectors))
            for h, vec in zip(hashes, vectors, strict=True):
                self.vectors[h] = vec
                self._pending.pop(h, None)
            self.generation += 1

    @property
    def pending(self) -> int:
        """Observations still waiting for their vector."""
        return len(self._pending)

    async def settled(self, within: float = 600.0) -> None:
        """Until every observation known has its vector (tests, benchmarks)."""
        task = self._embedding
        if task is not None and not task.done():
            await asyncio.wait_for(asyncio.shield(task), within)

    async def stop(self) -> None:
        if self._embedding is not None and not self._embedding.done():
            self._embedding.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._embedding

    # -- the layout searched ------------------------------------------------------------------

    def _layout(self) -> None:
        if self._layout_gen == self.generation:
            return
        self._order = sorted(self.notes.values(), key=lambda e: e.rel)
        self._starts = []
        at = 0
        for entry in self._order:
            self._starts.append(at)
            at += len(entry.hashes)
        dim = next((len(v) for v in self.vectors.values()), 0)
        matrix = np.zeros((at, dim), dtype=np.float32)
        have = np.zeros(at, dtype=bool)
        if dim:
            for entry, start in zip(self._order, self._starts, strict=True):
                for i, h in enumerate(entry.hashes):
                    vec = self.vectors.get(h)
                    if vec is not None:
                        matrix[start + i] = vec
                        have[start + i] = True
        self._matrix, self._have = matrix, have
        self._days = np.asarray([d for entry in self._order for d in entry.days], dtype=np.int64)
        self._months = np.asarray([m for entry in self._order for m in entry.months], dtype=np.int64)
        parts = [(*e.stamps, start) for e, start in zip(self._order, self._starts, strict=True)]
        self._before, self._after = neighbours(parts, at)
        names: dict[str, set[str]] = {}
        for entry in self._order:
            for name in entry.names:
                names.setdefault(name, set()).add(entry.rel)
        self._name_map = names
        self._first_map = first_names([(e.rel, e.entity.name, e.entity.entity_type) for e in self._order], names)
        self._layout_gen = self.generation

    # -- searching ----------------------------------------------------------------------------

    def search(
        self,
        query: str,
        query_vector: np.ndarray[Any, Any] | None,
        *,
        limit: int,
        readable: Callable[[str], bool] | None = None,
        keep: Callable[[NoteEntry], bool] | None = None,
        keep_obs: Callable[[Observation], bool] | None = None,
    ) -> list[Hit]:
        """The best `limit` observations for `query` among the notes `readable` (None: all) and
        `keep` allow, and the observations `keep_obs` allows."""
        self._layout()
        named, rest = names_in(query, self._name_map, self._first_map)
        days, rest = spans(rest)
        named_months, rest = months(rest)
        terms = Counter(words(rest)) or Counter(words(query))
        total = len(self._have)
        if not total:
            return []
        scope = np.zeros(total, dtype=bool)
        boost = np.ones(total, dtype=np.float32)
        of_named = np.zeros(total, dtype=bool)  # the observations of the entities the query names
        entries: list[tuple[NoteEntry, int]] = []
        for entry, start in zip(self._order, self._starts, strict=True):
            if (readable is not None and not readable(entry.rel)) or (keep is not None and not keep(entry)):
                continue
            end = start + len(entry.hashes)
            if keep_obs is None:
                scope[start:end] = True
            else:
                for i, obs in enumerate(entry.entity.observations):
                    scope[start + i] = keep_obs(obs)
            if entry.rel in named:
                boost[start:end] = 1 + NAMED_BOOST
                of_named[start:end] = True
            entries.append((entry, start))
        if not scope.any():
            return []
        if days or named_months:
            about = np.isin(self._months, named_months) if named_months else np.zeros(total, dtype=bool)
            for first, last in days:
                about |= (self._days >= first) & (self._days <= last)
            boost[about] *= 1 + DATE_BOOST
        own, near = bm25(terms, entries, scope)
        lexical = own + near + RECORDED_NEAR * spread(np.where(scope, own, 0.0), self._before, self._after)
        score = np.zeros(total, dtype=np.float32)
        top = float(lexical.max()) if len(lexical) else 0.0
        if top > 0:
            score += (lexical / top).astype(np.float32)
        # nothing but the name matched ("Caro", "tell me about Caroline"): what is known of the entity
        hit = lexical > 0 if top > 0 else of_named.copy()
        if query_vector is not None and self._matrix.shape[1] == len(query_vector) and self._have.any():
            cosine = self._matrix @ np.asarray(query_vector, dtype=np.float32)
            usable = scope & self._have
            if usable.any():
                low, high = float(cosine[usable].min()), float(cosine[usable].max())
                scaled = np.where(usable, (cosine - low) / ((high - low) or 1.0), 0.0).astype(np.float32)
                # one still waiting for its vector is ranked by its words alone, not at half of them
                score = np.where(self._have, WORDS_SHARE * score + (1 - WORDS_SHARE) * scaled, score)
                hit |= usable & (cosine >= MIN_COSINE)
        score *= boost
        chosen = np.flatnonzero(hit & scope)
        if not len(chosen):
            return []
        ranked = chosen[np.argsort(-score[chosen], kind="stable")]
        best = diverse(ranked, score, self._before, self._after, limit, NEIGHBOUR_DAMPING)
        where = {start: entry for entry, start in entries}
        starts = np.asarray(self._starts)
        out = []
        for unit, value in best:
            at = int(np.searchsorted(starts, unit, side="right")) - 1
            start = self._starts[at]
            entry = where.get(start, self._order[at])
            out.append(Hit(value, entry, unit - start))
        return out


# -- one per vault ----------------------------------------------------------------------------


class MemoryRecall:
    """The app component holding each vault's recall index (made at its first use); stopping it
    stops their background embedding."""

    name = "memory-recall"

    def __init__(self, db: Database, memory: MemorySettings, embedder: Callable[[], Embedder | None]) -> None:
        self.db = db
        self.folder = memory.folder
        self.inbox = memory.inbox
        self.embedder = embedder
        self.indexes: dict[str, Recall] = {}

    def of(self, vault: Vault) -> Recall:
        found = self.indexes.get(vault.id)
        if found is None or found.files is not vault.files:
            found = self.indexes[vault.id] = Recall(
                vault.id,
                vault.files,
                lambda rel: vault.paths.resolve(rel, op="read"),
                self.folder,
                self.db,
                self.embedder,
                self.inbox,
            )
        return found

    async def start(self) -> None:
        """Nothing to start: an index is made at its vault's first memory call."""

    async def stop(self) -> None:
        for index in self.indexes.values():
            await index.stop()
