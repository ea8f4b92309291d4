"""Entity names as the memory tools take them: a name, or a wikilink to the entity's note.

Every memory tool that names an entity (`entityName`, `from`, `to`, `names`, `entityNames`,
`key`, `entity`, a capture's entity `target`) takes it as its name ("Ann Lee") or as the
wikilink Obsidian writes for its note (`[[Ann Lee]]`, `[[Memory/Ann Lee]]`, `[[Memory/Ann Lee.md]]`,
with an `|alias` or a `#heading`): a link is the entity whose note it names (the `name` property
of that note of the memory folder: `[[Memory/AC~2FDC]]` is `AC/DC`), else the name it spells.
A name is never taken for a link unless the whole argument is one `[[…]]`, so `AC/DC` or
`Q3: plan?` stay names. A relation's target is then an entity's note, else a note of the vault,
found as for `create_relations` (`relation_link`) — so `delete_relations` takes what
`create_relations` took. A name is the entity of that name in any letter case or Unicode
spelling when only one is so named (`EntityStore.path_of`), as note names are taken; only
create_entities asks for the name as written (it refuses a case twin).
"""

from __future__ import annotations

import contextlib

from service.errors import AmbiguousNote, ValidationFailed, VaultgateError
from service.memory.lookup import one_listing
from service.memory.model import Entity, Relation, linked_stem, parse
from service.memory.store import EntityStore, Loaded, check_name
from service.tools.context import ToolContext


def entity_name(ctx: ToolContext, store: EntityStore, raw: str, field: str) -> str:
    """The entity `raw` names: itself, or the entity of the note a `[[wikilink]]` names."""
    name = check_name(raw, field)
    stem = linked_stem(name, store.folder)
    if stem is None:
        if name.startswith(("[[", "![[")) and name.endswith("]]"):  # `[[]]`, `![[Ann]]`, `[[A]] and [[B]]`
            inner = name.removeprefix("!")[2:-2]
            empty = not inner.split("|", 1)[0].split("#", 1)[0].strip() and "[" not in inner and "]" not in inner
            raise ValidationFailed(
                f"{field} {name[:40]!r} is " + ("a link that names no note" if empty else "not one [[wikilink]]"),
                details={"field": field, "reason": "empty_link" if empty else "not_a_link"},
                hint="Give the entity's name, or one [[wikilink]] to its note (no embed '!').",
            )
        return name
    try:
        vp = ctx.resolve(f"{store.folder}/{stem}.md", "read")
        if not store.is_inbox(vp.rel) and store.files.has_note(vp):
            named = parse(store.files.read(vp).content).name
            if named:
                return check_name(named, field)
    except Exception:  # noqa: BLE001 - not a note of the memory folder: the name it spells
        pass
    return check_name(stem, field)


async def relation_link(ctx: ToolContext, store: EntityStore, target: str, field: str, name: str = "") -> str:
    """The link text of a relation's target (`name`: its `entity_name`, when known): an entity's
    note, found by its path (never read: a hub's note may be megabytes), else a note of the vault
    by name (`ambiguous_note` when several fit; `validation_error` when none does)."""
    vp = store.path_of(name or entity_name(ctx, store, target, field), "read")
    if not store.is_inbox(vp.rel) and store.files.has_note(vp):
        return vp.rel.removesuffix(".md")
    try:
        note = await ctx.find_note(target, "read")
    except AmbiguousNote as exc:  # a note, but which one: answered as the note tools answer it
        exc.details.setdefault("field", field)
        raise
    except Exception as exc:  # noqa: BLE001 - reported as one error naming the field
        raise ValidationFailed(
            f"{target!r} is neither a memory entity nor a note",
            details={"field": field, "reason": "unknown_endpoint", "suggestions": store.suggestions(target)},
            hint="create_entities makes the entity first.",
        ) from exc
    return note.vp.rel.removesuffix(".md")


class Looked:
    """The entity names and relation links one call looks up, each argument as given once: a call
    may name one entity in each of its 1,000 relations, and a lookup may read its note (a
    `[[wikilink]]` is read for the entity's name). A refusal is raised each time (never kept).
    Entered (`with`), the lookups inside share one listing of the memory folder (`lookup.one_listing`)."""

    def __init__(self, ctx: ToolContext, store: EntityStore) -> None:
        self._ctx, self._store = ctx, store
        self._names: dict[str, str] = {}
        self._links: dict[str, str] = {}
        self._there: set[tuple[str, str]] = set()
        self._none: set[str] = set()
        self._listing = contextlib.ExitStack()

    def __enter__(self) -> Looked:
        self._listing.enter_context(one_listing())
        return self

    def __exit__(self, *exc: object) -> None:
        self._listing.close()

    def name(self, raw: str, field: str) -> str:
        if raw not in self._names:
            self._names[raw] = entity_name(self._ctx, self._store, raw, field)
        return self._names[raw]

    def must_exist(self, name: str, op: str) -> None:
        if (name, op) not in self._there:
            self._store.must_exist(name, op)
            self._there.add((name, op))

    async def link(self, raw: str, field: str) -> str:
        if raw not in self._links:
            self._links[raw] = await relation_link(self._ctx, self._store, raw, field, self.name(raw, field))
        return self._links[raw]

    async def link_or_none(self, raw: str, field: str) -> str | None:
        """`link`, or None (kept) when the target is no entity or note (gone since) or not one to read."""
        if raw not in self._links and raw not in self._none:
            try:
                await self.link(raw, field)
            except VaultgateError:
                self._none.add(raw)
        return self._links.get(raw)


def target_key(target: str, folder: str) -> str:
    """A relation's target as the lower-cased path, without `.md`, of the note it links from an
    entity note: a bare `[[Melanie]]` — what Obsidian writes for a note whose name no other note
    shares (its default link format), and what a person types — is the memory folder's `Melanie`,
    as `[[Memory/Melanie]]` (what the tools write) is."""
    key = target.strip().lower().removesuffix(".md")
    return key if "/" in key else f"{folder.strip().strip('/').lower()}/{key}"


def relate(entity: Entity, relation: Relation, folder: str) -> bool:
    """Add `relation` to `entity` unless it holds it already (the same type to the same note: a
    hand-written `[[Melanie]]` is that relation too); whether it was added."""
    key = target_key(relation.target, folder)
    if any(r.relation_type == relation.relation_type and target_key(r.target, folder) == key for r in entity.relations):
        return False
    entity.relations.append(relation)
    return True


def target_name(target: str, names: dict[str, str], folder: str) -> str:
    """The entity a relation's target links (`names`: `target_names`), else the target as written."""
    return names.get(target) or names.get(target_key(target, folder)) or names.get(target.lower(), target)


def target_names(entities: list[Loaded]) -> dict[str, str]:
    """Entity names by the link text of their notes, lower-cased (Obsidian resolves links whatever
    their case) and as written, which comes first: of two notes whose paths differ only in case (a
    case-sensitive file system holds both), a link written as one's path names that one."""
    stems = [(e.vp.rel.removesuffix(".md"), e.entity.name) for e in entities]
    return {stem.lower(): name for stem, name in stems} | dict(stems)
