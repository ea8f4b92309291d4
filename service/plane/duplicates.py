"""Job 1, duplicates: observations of one entity that say the same, and entities that are one.

- **Exact**: the same text after normalisation (case, spacing, end punctuation) — a hand edit or
  another process can write what `add_observations` would have skipped. Kind `duplicate`.
- **Near**: 60 % or more of their folded words in common (`service.memory.words`, of the
  statements as `service.plane.spelt` writes them), or, with vectors (embeddings on), a cosine
  of 0.80 or more and 15 % of their words in common — 0.85 when the words in common are only
  names, numbers and dates (`shares_only_facts`). Kind `near_duplicate`.
- **Guard**: two statements that differ in a number, a date (weekdays and months included), a
  name (a capitalised word inside the sentence), a negation or their tense (one states a fact as
  history: "Worked at Acme" / "Works at Acme") are never duplicates, however many
  words they share ("moved to Berlin in 2021" / "... in 2023"): left to the contradictions job.
  Both are read as `service.plane.spelt` writes them ("5 km" is "5 kilometres", "2019-03" "March
  2019", "every weekend" "on Saturdays and Sundays", and so not "on Saturdays").
  Nor are two whose words trade sides around a word that says which way — `over`, `than`, `to`,
  `from`, `before`, `after`… ("prefers email over phone" / "prefers phone over email"), nor two
  whose words differ in one word each, the rest alike ("drinks tea every morning" / "drinks coffee
  every morning": `one_word_swapped`).
- **Entities that are one**: names equal once case, accents, a plural `s` and punctuation are set
  aside, or one's alias is the other's name. Kind `duplicate_entity`.

The plan of a duplicate deletes the later observation by its block id (the first is kept, with
its provenance) — of a near duplicate whose words are all in the other's, the shorter one (the
other adds a detail: "Works at Acme" / "Works at Acme as a nurse"); that of two entities copies
the later one's observation lines into the first as written (`merge_observations`: block ids and
provenance kept) and then deletes the later note
(its deletion asks a human, as `delete_entities` always does; with `missing_ok: false`, so a
name that finds no note fails the run instead of deleting nothing); two notes with the same
`name` get no plan: the memory tools, which take names, cannot tell them apart. A note whose
frontmatter does not parse (the memory tools refuse its writes) is no candidate: it is one
finding `invalid_frontmatter`, with no plan, for a person to fix. An observation without a
block id (a hand-written line) is reported with no plan: deleting it by its text would delete
its twin too.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import unicodedata
from typing import TYPE_CHECKING, Any

from service.graph.linkpath import strip_md
from service.memory.history import History
from service.memory.model import Observation, file_name, normalize_text
from service.memory.recall import NoteEntry
from service.memory.words import words
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from service.plane.spelt import days_of, spelt

if TYPE_CHECKING:
    import numpy as np
else:
    from service.numpy_lazy import np  # imported at its first use

WORDS_SHARE = 0.6
MIN_COSINE = 0.8
MEANING_WORDS_SHARE = 0.15  # with vectors: a cosine of MIN_COSINE or more and this share of words
# with vectors, two that share no word but names, numbers and dates ("Bought a house in Oslo in 2013"
# / "Relocated to Oslo for work in 2013", 0.72-0.82 with the built-in model over 60 draws) need this
# much: the same fact in other words has 0.88-0.95 ("Visited Rome in 2010" / "Made a trip to Rome
# back in 2010", "Bought a house in Oslo" / "Became a homeowner in Oslo")
FACTS_ONLY_COSINE = 0.85
VECTORS_WAIT_S = 120.0  # how long a run waits for the observations' vectors still being computed
MAX_PAIRS_ENTITY = 600  # observations of one entity compared pairwise at most (beyond: exact only)
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without)\b|n't\b", re.IGNORECASE)
_NAME = re.compile(r"(?<=\w )[A-Z][\w'-]+")
_WHICH_WAY = frozenset(  # words whose two sides are not interchangeable
    {"over", "than", "to", "from", "into", "before", "after", "instead", "versus", "vs", "against", "above", "below"}
)
_MONTHS = frozenset(
    {
        *("january", "february", "march", "april", "may", "june", "july", "august"),
        *("september", "october", "november", "december", "monday", "tuesday", "wednesday"),
        *("thursday", "friday", "saturday", "sunday", "today", "yesterday", "tomorrow"),
    }
)


# a verb of the past: "Worked at Acme", "Lived in Paris", "Was based in Oslo", "Role was nurse"
# state history; a present perfect ("Has lived in Paris since 2010") still holds. Shared with the
# contradictions job, which reads such a fact as history beside a later one.
PAST = re.compile(r"\b(?:worked|lived|was|were)\b", re.I)
PERFECT = re.compile(r"\b(?:has|have|(?:he|she|it|who|that)'s|'ve)\s+$", re.I)  # "Ann's role was": no perfect


def in_past(text: str) -> bool:
    """Whether the statement says something in the past (a past verb with no has/have before it)."""
    return any(PERFECT.search(text[: m.start()]) is None for m in PAST.finditer(text))


def facts(text: str) -> tuple[frozenset[str], frozenset[str], bool, frozenset[str]]:
    """What must agree for two statements to be the same: numbers (in digits or words: "two" is
    2), named days and months, negation, names."""
    text = spelt(text)
    lowered = {w.lower() for w in re.findall(r"\w+", text)}
    calendar = frozenset(w.rstrip("s") for w in lowered if w.rstrip("s") in _MONTHS) | days_of(lowered)
    names = {n.lower() for n in _NAME.findall(text)} - {w for w in lowered if w.rstrip("s") in _MONTHS}
    return frozenset(_NUMBER.findall(text)), calendar, bool(_NEGATION.search(text)), frozenset(names)


def differs_in_fact(a: str, b: str) -> bool:
    """Another number, name, negation or tense ("Worked at Acme" / "Works at Acme": the one was
    history or the other is, and deleting either drops what holds now or what held); or other named
    days or months where both name some ("on Mondays" / "on Fridays"; "every weekend" / "on
    Saturdays and Sundays" says the same)."""
    numbers_a, days_a, negation_a, names_a = facts(a)
    numbers_b, days_b, negation_b, names_b = facts(b)
    if numbers_a != numbers_b or negation_a != negation_b or names_a != names_b or in_past(a) != in_past(b):
        return True
    return bool(days_a and days_b and days_a != days_b) or turned_round(a, b) or numbers_trade_places(a, b)


def shares_only_facts(a: str, b: str) -> bool:
    """Whether the words two statements have in common are all names, numbers and dates: the same
    place and year, said of two things ("Bought a house in Oslo in 2013" / "Relocated to Oslo for
    work in 2013")."""
    numbers_a, days_a, _, names_a = facts(a)
    numbers_b, days_b, _, names_b = facts(b)
    said = set(words(" ".join([*numbers_a, *days_a, *names_a, *numbers_b, *days_b, *names_b])))
    return not (set(words(spelt(a))) & set(words(spelt(b)))) - said


def _beside_numbers(text: str) -> dict[str, set[str]]:
    """The numbers each word stands beside (function words left out)."""
    tokens = words(spelt(text))
    out: dict[str, set[str]] = {}
    for i, token in enumerate(tokens):
        if token.isdigit():
            for n in (i - 1, i + 1):
                if 0 <= n < len(tokens) and not tokens[n].isdigit():
                    out.setdefault(tokens[n], set()).add(token)
    return out


def numbers_trade_places(a: str, b: str) -> bool:
    """The same numbers beside other words ("Agent 1 noted item 2" / "Agent 2 noted item 1"): a
    word both put beside a number has no number in common in the two."""
    near_a, near_b = _beside_numbers(a), _beside_numbers(b)
    return any(not near_a[w] & near_b[w] for w in near_a.keys() & near_b.keys())


def turned_round(a: str, b: str) -> bool:
    """The same words on the other sides of a word that says which way ("email over phone" /
    "phone over email", "dogs more than cats" / "cats more than dogs"): the opposite statement."""
    tokens_a, tokens_b = re.findall(r"\w+", spelt(a).lower()), re.findall(r"\w+", spelt(b).lower())
    for way in _WHICH_WAY.intersection(tokens_a, tokens_b):
        at_a, at_b = tokens_a.index(way), tokens_b.index(way)
        before_a, after_a = set(words(" ".join(tokens_a[:at_a]))), set(words(" ".join(tokens_a[at_a + 1 :])))
        before_b, after_b = set(words(" ".join(tokens_b[:at_b]))), set(words(" ".join(tokens_b[at_b + 1 :])))
        if before_a & after_b and after_a & before_b:
            return True
    return False


def one_word_swapped(a: set[str], b: set[str]) -> bool:
    """Each says one word the other does not, the rest alike ("Drinks tea every morning" /
    "Drinks coffee every morning", "Plays the piano" / "Plays the guitar", "CEO of Obsidian" /
    "Designer of Obsidian"): most often another thing, so another fact, which a near duplicate's
    plan would delete; a synonym ("Lives in" / "Resides in") is left as two lines rather than risk
    that. Words are compared stemmed, so another form of one word is no swap."""
    return len(a - b) == 1 and len(b - a) == 1


def overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _plan(goal: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"goal": goal, "steps": steps}


def _delete(entry: NoteEntry, obs: Observation, kept: Observation, kind: str, job: str) -> Finding:
    name = entry.entity.name
    plan = None
    if obs.block_id:
        step = {"entityName": name, "observations": [f"^{obs.block_id}"]}
        plan = _plan(
            f"remove a {kind.replace('_', ' ')} of {name}",
            [{"id": "remove", "tool": "delete_observations", "args": {"deletions": [step]}}],
        )
    return Finding(
        job=job,
        kind=kind,
        key=f"{kind}:{entry.rel}:{_ref(kept)}:{_ref(obs)}",
        title=f"{name}: {obs.text[:80]!r} repeats {kept.text[:80]!r}",
        detail={
            "entity": name,
            "kept": kept.text,
            "kept_block_id": kept.block_id,
            "duplicate": obs.text,
            "duplicate_block_id": obs.block_id,
        },
        paths=[entry.rel],
        etags={entry.rel: entry.etag},
        plan=plan,
    )


def _relink(keep: NoteEntry, other: NoteEntry, entries: list[NoteEntry]) -> list[dict[str, Any]]:
    """The steps that turn other entities' relations to `other` into relations to `keep`."""
    gone = {strip_md(other.rel).lower(), other.entity.name.lower()}
    made, dropped = [], []
    for entry in entries:
        if entry is keep or entry is other:
            continue
        held = {(r.relation_type, strip_md(r.target).lower()) for r in entry.entity.relations}
        for r in entry.entity.relations:
            if strip_md(r.target).lower() not in gone:
                continue
            dropped.append({"from": entry.entity.name, "to": r.target, "relationType": r.relation_type})
            if not held & {(r.relation_type, strip_md(keep.rel).lower()), (r.relation_type, keep.entity.name.lower())}:
                made.append({"from": entry.entity.name, "to": keep.entity.name, "relationType": r.relation_type})
    steps: list[dict[str, Any]] = []
    if made:
        steps.append({"id": "relink", "tool": "create_relations", "args": {"relations": made}})
    if dropped:
        steps.append({"id": "unlink", "tool": "delete_relations", "args": {"relations": dropped}})
    return steps


def same_time(history: History, a: Observation, b: Observation) -> bool:
    """Whether two observations of one entity can say the same: not when one is superseded and the
    other current ("Works at Acme" until 2023, and again from 2024 after a move: the history and the
    fact now; `history`: the entity's)."""
    return history.ended(a) == history.ended(b)


def _which(first: Observation, later: Observation, cited: set[str]) -> tuple[Observation, Observation] | None:
    """(kept, deleted) of two observations that say the same: the later one goes — unless both are
    dated on other days, where the one dated earlier goes (the other says the fact still held then:
    "Works at Acme" in 2020 and again in 2024, a job elsewhere between them, keeps the 2024 one) —
    and unless another observation's `superseded_by` names it (the history would point at nothing);
    then the other, unless it is named too (neither goes)."""
    day_first, day_later = first.fields.get("date", "").strip(), later.fields.get("date", "").strip()
    if day_first and day_later and day_first < day_later:
        first, later = later, first
    if later.block_id not in cited:
        return first, later
    if first.block_id and first.block_id not in cited:
        return later, first
    return None


def _ref(obs: Observation) -> str:
    return obs.block_id or normalize_text(obs.text)


def fold_name(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    plain = re.sub(r"[^a-z0-9]+", " ", plain).strip()
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in plain.split())


class Duplicates:
    name = "duplicates"
    needs: tuple[Need, ...] = ("memory",)

    async def run(self, ctx: JobContext) -> list[Finding]:
        if ctx.recall.pending:  # compare by meaning where the vectors are there (bounded wait)
            with contextlib.suppress(TimeoutError):
                await ctx.recall.settled(within=VECTORS_WAIT_S)
        out = self.entities(ctx)  # first: a vault with many repeated lines still hears of its entities that are one
        for entry in sorted(ctx.recall.notes.values(), key=lambda e: e.rel):
            if len(out) >= ctx.settings.max_findings:
                break
            out += [unparsed(entry, self.name)] if entry.entity.fm_error is not None else self.within(ctx, entry)
            await ctx.pause()
        return out[: ctx.settings.max_findings]

    def within(self, ctx: JobContext, entry: NoteEntry) -> list[Finding]:
        found: list[Finding] = []
        observations = entry.entity.observations
        history = History(observations)
        cited = history.cited(observations)
        first: dict[str, list[Observation]] = {}  # by text: the observations of other times kept apart
        for obs in observations:
            same = first.setdefault(normalize_text(obs.text), [])
            at = next((n for n, o in enumerate(same) if same_time(history, o, obs)), None)
            if at is None:
                same.append(obs)
            elif (pair := _which(same[at], obs, cited)) is not None:
                found.append(_delete(entry, pair[1], pair[0], "duplicate", self.name))
                same[at] = pair[0]
        unique = [o for same in first.values() for o in same]
        if len(unique) > MAX_PAIRS_ENTITY:
            return found
        bags = [set(words(spelt(o.text))) for o in unique]  # "two cars" and "2 cars", "5 km" and "5 kilometres"
        vectors = ctx.recall.vectors
        hashes = {id(o): h for o, h in zip(observations, entry.hashes, strict=True)}
        taken: set[int] = set()  # the later of a pair, deleted
        gone: set[int] = set()  # the first of a pair, deleted as the later is cited by another's supersession
        for i, j in itertools.combinations(range(len(unique)), 2):
            share = overlap(bags[i], bags[j])
            if j in taken or i in gone or j in gone or share < MEANING_WORDS_SHARE:
                continue
            a, b = unique[i], unique[j]
            va, vb = vectors.get(hashes.get(id(a), "")), vectors.get(hashes.get(id(b), ""))
            # by many words, or (with vectors) by meaning and some words: with vectors on, a pair
            # the words alone find ("Took in a rescue dog in March 2019" / "Adopted a dog in March
            # 2019", 80 % of the words, a cosine of 0.79) was dropped, found with them off
            if share < WORDS_SHARE:
                cosine = float(np.dot(va, vb)) if va is not None and vb is not None else 0.0
                if cosine < MIN_COSINE or (cosine < FACTS_ONLY_COSINE and shares_only_facts(a.text, b.text)):
                    continue
            if differs_in_fact(a.text, b.text) or one_word_swapped(bags[i], bags[j]) or not same_time(history, a, b):
                continue  # same words, another number, date, name, negation or thing: not the same fact
            # one says all the other says and more ("Works at Acme" / "Works at Acme as a nurse"):
            # the shorter goes, whatever their order or dates, or the detail would be lost
            shorter = a if bags[i] < bags[j] else b if bags[j] < bags[i] else None
            longer = b if shorter is a else a
            pair = (longer, shorter) if shorter is not None and shorter.block_id not in cited else _which(a, b, cited)
            if pair is None:
                continue  # both named by a supersession: neither can go
            (taken.add(j) if pair[1] is b else gone.add(i))
            found.append(_delete(entry, pair[1], pair[0], "near_duplicate", self.name))
        return found

    def entities(self, ctx: JobContext) -> list[Finding]:
        groups: dict[str, list[NoteEntry]] = {}
        entries = sorted(  # a note whose frontmatter does not parse takes no write: no plan can name it
            (e for e in ctx.recall.notes.values() if e.entity.fm_error is None),
            key=lambda e: (e.entity.created or "~", e.rel),
        )
        for entry in entries:
            groups.setdefault(fold_name(entry.entity.name), []).append(entry)
        by_name = {e.entity.name.strip().lower(): e for e in entries}
        pairs: list[tuple[NoteEntry, NoteEntry]] = []
        for same in groups.values():
            pairs += [(same[0], other) for other in same[1:]]
        for entry in entries:
            for alias in entry.entity.aliases:
                other = by_name.get(alias.strip().lower())
                if other is not None and other is not entry and (other, entry) not in pairs:
                    pairs.append((entry, other))
        out = []
        rels = {e.rel.lower(): e.rel for e in entries}
        for keep, other in pairs:
            texts = [o.text for o in other.entity.observations]
            # Two notes with one `name`, or a name whose lookup finds another note first (it tries
            # the file its name spells: `ann` in Memory/Ann.md beside `Ann` in Memory/Foo.md): the
            # memory tools take names, so the steps would reach the wrong note (the merged one's
            # facts went to the trash with it): reported with no plan, for a person to merge.
            twins = keep.entity.name == other.entity.name or not (_found(keep, rels) and _found(other, rels))
            plan = (
                None
                if twins
                else _plan(f"merge {other.entity.name} into {keep.entity.name}", _merge_steps(keep, other, entries))
            )
            out.append(
                Finding(
                    job=self.name,
                    kind="duplicate_entity",
                    key=f"duplicate_entity:{keep.rel}:{other.rel}",
                    title=f"{other.entity.name!r} looks like the same entity as {keep.entity.name!r}",
                    detail={"keep": keep.entity.name, "merge": other.entity.name, "observations": len(texts)},
                    paths=[keep.rel, other.rel],
                    etags={keep.rel: keep.etag, other.rel: other.etag},
                    plan=plan,
                )
            )
        return out


def unparsed(entry: NoteEntry, job: str) -> Finding:
    """A memory note whose frontmatter does not parse: the memory tools refuse its writes
    (`invalid_frontmatter`), so no plan can delete, supersede or merge its observations. It is
    reported once, with no plan, for a person to fix; the jobs find its duplicates after that."""
    name, error = entry.entity.name, str(entry.entity.fm_error)
    return Finding(
        job=job,
        kind="invalid_frontmatter",
        key=f"invalid_frontmatter:{entry.rel}",
        title=f"{name}: the frontmatter of {entry.rel} does not parse; fix it to consolidate this entity",
        detail={"entity": name, "error": error[:300]},
        paths=[entry.rel],
        etags={entry.rel: entry.etag},
    )


def _found(entry: NoteEntry, rels: dict[str, str]) -> bool:
    """Whether the memory tools' name lookup reaches `entry`'s own note by its name: it tries the
    note the name's file name spells first (`rels`: the memory notes' paths by lower case)."""
    folder = entry.rel.rpartition("/")[0]
    spelled = (f"{folder}/" if folder else "") + file_name(entry.entity.name) + ".md"
    return rels.get(spelled.lower(), entry.rel) == entry.rel


def _merge_steps(keep: NoteEntry, other: NoteEntry, entries: list[NoteEntry]) -> list[dict[str, Any]]:
    """The plan that merges `other` into `keep` and keeps what `other` knew: its observation
    lines as written (`merge_observations`: block ids, so links to them still land once
    repointed, who recorded each and when, which superseded which), its relations (from `keep` now; none to `keep`
    itself, none `keep` has already),
    the relations of other entities to it made relations to `keep` (through the memory tools, so
    those entities' `updated` moves and `read_memory_graph {updated_since}` sees them), the other
    links to it repointed to `keep`, its name (and its aliases) added to `keep`'s aliases — the
    memory tools find `keep` by them (`open_nodes` of the old name), search_memory takes them for
    its name, and Obsidian suggests them when a person types a link (`[[Keep|Old name]]`) — and
    then its note deleted."""
    name, gone = keep.entity.name, other.entity.name
    steps: list[dict[str, Any]] = []
    if other.entity.observations:  # read again by the server when the plan runs, copied as written
        steps.append({"id": "move", "tool": "merge_observations", "args": {"entityName": name, "mergedName": gone}})
    own = {strip_md(keep.rel).lower(), name.lower()}
    held = {(r.relation_type, r.target.lower()) for r in keep.entity.relations}
    relations = [
        {"from": name, "to": r.target, "relationType": r.relation_type}
        for r in other.entity.relations
        if r.target.lower() not in own | {strip_md(other.rel).lower(), gone.lower()}
        and (r.relation_type, r.target.lower()) not in held
    ]
    if relations:
        steps.append({"id": "relate", "tool": "create_relations", "args": {"relations": relations}})
    steps += _relink(keep, other, entries)
    repoint = {"old_target": other.rel, "new_target": keep.rel, "dry_run": False}
    steps.append({"id": "repoint", "tool": "rewrite_links", "args": repoint})
    aliases = list(keep.entity.aliases)
    for alias in (gone, *other.entity.aliases):  # its name and aliases stay names of the entity
        if alias.strip() and alias.strip() not in {a.strip() for a in (name, *aliases)}:  # 'ann lee' too
            aliases.append(alias.strip())
    if aliases != keep.entity.aliases:
        steps.append(
            {"id": "alias", "tool": "set_properties", "args": {"path": keep.rel, "properties": {"aliases": aliases}}}
        )
    steps.append({"id": "remove", "tool": "delete_entities", "args": {"entityNames": [gone], "missing_ok": False}})
    return steps
