"""facade domain: find_capability, describe_capability, call_capability, and one meta-tool per
domain, named after it (`notes`, `search`, `graph`, ...) — what tools/list advertises in the
`triad` and `domain` facade modes.

Touches: the registry (read) and the dispatch chain: call_capability and the domain meta-tools
run the named tool through the very same chain (auth, ACL, idempotency, throttle, confirmation,
audit), with the caller's identity, so a facade never widens what a caller may do. The inner
tool's error is the facade call's error, and its question for the human (a 2026-07-28
InputRequiredResult) is the facade call's question: the client's retry of the facade call
carries the answer (`input_responses`, `request_state`) back to the inner call.
find_capability ranks the catalog with SQLite FTS5 BM25 (names weigh most, then titles, the
everyday words of `KEYWORDS`, tags and descriptions) over the tools that exist for callers
(`service.policy.visibility`), then adds `NAME_BOOST` times the share of a tool's name words the
query holds ("delete a note": delete_note before delete_property) and `PHRASE_BOOST` when the
query holds one of the tool's `KEYWORDS` phrases; everyday verbs no tool's text uses
("remember", "forget") are searched for in the catalog's words (`EVERYDAY`). Measured on
tests/tools/facade/capability_phrasings.json (a test keeps top-3 at or above its floor).
"""

from __future__ import annotations

import difflib
import hashlib
import sqlite3
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, create_model

from service.errors import ToolNotFound
from service.policy.visibility import FACADE_TAG
from service.retrieval.stopwords import is_stop_word
from service.storage.db import driver
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.spec import Catalog, ToolSpec

# Phrases people use for a task that a tool's name and description do not hold ("duplicate" for
# copy_note, "link to this" for get_backlinks). Their words are indexed with the tool; a query
# holding a whole phrase adds `PHRASE_BOOST`. A tool without a line is found by its name, title
# and description alone.
KEYWORDS: dict[str, tuple[str, ...]] = {
    "delete_note": ("remove a note", "remove this note", "trash a note", "erase", "from the vault"),
    "get_backlinks": (
        "who links",
        "notes that link to",
        "link to this",
        "links to this",
        "link here",
        "point to",
        "linking to",
        "incoming links",
        "linking here",
        "notes linking",
    ),
    "get_outlinks": ("does this note link to", "links from", "outgoing links", "links out"),
    "copy_note": ("duplicate a note", "duplicate this note", "duplicate the note", "duplicate note", "clone"),
    "create_note": ("make a new note", "new note"),
    "append_note": ("to the end", "at the end", "bottom of"),
    "prepend_note": ("at the top", "to the top", "beginning of", "insert"),
    "get_properties": ("read the frontmatter", "frontmatter of", "yaml of", "metadata fields"),
    "find_orphans": ("without links", "no links", "nobody links", "unlinked", "no backlinks", "isolated"),
    "list_tasks": ("open tasks", "todo", "checkbox"),
    "get_periodic_note": ("open today's", "open the daily note", "weekly note", "journal"),
    "append_to_periodic_note": ("to today's daily note", "to the daily note", "log a line"),
    "search_dql": ("run a dataview query", "dataview query"),
    "reindex": ("rebuild the index", "rebuild the search index", "refresh the index"),
    "list_notes": ("files in a folder", "notes in a folder", "folder contents"),
    "execute_plan": ("several changes", "as one plan", "batch of changes"),
    "add_bookmark": ("bookmark a", "add a bookmark", "star a note"),
    "search_tags": ("notes with a tag", "tagged"),
    "rename_note": ("update links",),
    "set_task_status": ("mark a task", "as done", "check off", "tick", "task done", "complete a task"),
    "search_memory": ("recall", "what i stored", "what do i know about", "look up a fact", "remembered"),
    "rename_tag": ("tag name", "change a tag", "retag"),
    "move_note": ("put a note in", "into another folder", "to another folder", "relocate"),
    "set_properties": ("edit the frontmatter", "change a property", "update the frontmatter"),
    "note_info": ("note metadata", "size and dates", "when was it modified"),
    "read_note": ("by its alias", "by an alias", "by alias", "by its name", "open a note"),
    "search_text": ("by words", "exact words", "keyword search"),
    "validate_dql": ("check my dataview", "check a dataview", "check the dataview"),
    "central_notes": ("most important", "most linked", "most connected", "hub notes", "key notes", "pagerank"),
    "find_communities": ("clusters", "groups of notes", "belong together", "topic groups"),
    "find_similar": ("related to this", "related to my note"),
    "write_canvas": ("edit a canvas", "change a canvas", "add to a canvas"),
    "rewrite_links": ("fix links", "fix the links", "repair links", "repoint links"),
    "replace_text": ("find and replace", "search and replace", "replace a word", "replace text", "fix a typo"),
}
# Everyday verbs no tool's text uses, put in the catalog's own words: such a query word is searched
# for as these words ("remember that Bob likes tea" asks to store a fact, "forget that ..." to
# delete an observation). Words, not phrases: every query using them gains. Only these forms:
# "remembered" stays itself (search_memory's "what I remembered").
EVERYDAY: dict[str, tuple[str, ...]] = {
    "remember": ("memory", "store", "fact"),
    "memorize": ("memory", "store", "fact"),
    "memorise": ("memory", "store", "fact"),
    "forget": ("delete", "observation"),
}
NAME_BOOST = 6.0  # BM25 scores of the catalog run ~2..20: a full name match is worth a strong title hit
PHRASE_BOOST = 10.0


def _words(text: str) -> list[str]:
    return "".join(ch if ch.isalnum() or ch == "'" else " " for ch in text.lower()).split()


def _phrase_hit(name: str, query: str) -> bool:
    """Whether the query holds one of the tool's phrases, word for word ("links" meets "link")."""
    padded = f" {' '.join(_stem(w) for w in _words(query))} "
    return any(f" {' '.join(_stem(w) for w in _words(phrase))} " in padded for phrase in KEYWORDS.get(name, ()))


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _name_share(name: str, words: set[str]) -> float:
    """The share of `name`'s words (`delete_note`: delete, note) the query holds."""
    parts = [_stem(p) for p in name.split("_") if p]
    return sum(p in words for p in parts) / len(parts) if parts else 0.0


def _own_words(description: str, names: set[str]) -> str:
    """A description without the other tools it points to ("to move it, use move_note"), so that a
    cross-reference does not make a tool match the words of the one it recommends."""
    return " ".join(w for w in description.split() if w.strip(".,;:()`'\"") not in names)


def _visibility(ctx: ToolContext) -> Any:
    return ctx.services.visibility


def _listed(ctx: ToolContext, spec: ToolSpec | None) -> bool:
    vis = _visibility(ctx)
    return spec is not None and FACADE_TAG not in spec.tags and (vis is None or vis.listed(spec))


def _unknown(ctx: ToolContext, registry: Catalog, name: str) -> ToolNotFound:
    """No listed tool of that name. tools/list may show only a few tools here (the lean facade),
    so the hint sends the caller to find_capability, and the closest listed names come along."""
    close = difflib.get_close_matches(name, [s.name for s in registry if _listed(ctx, s)], n=3, cutoff=0.6)
    return ToolNotFound(
        f"unknown tool {name!r}",
        details={"tool": name, "suggestions": close},
        hint='find_capability {"query": "<what you want to do>"} finds a tool by what it does (tools/list '
        "may show only some of them); details.suggestions holds the closest names.",
    )


# -- find_capability ------------------------------------------------------------------------------


class FindIn(ToolInput):
    query: str = Field(min_length=1, max_length=500, description="What you want to do, e.g. 'rename a tag'.")
    limit: int = Field(default=8, ge=1, le=50, description="How many tools to return.")
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page of the same query.")


class CapabilityItem(BaseModel):
    name: str = Field(description="Tool name (call it directly, or through call_capability).")
    title: str = Field(description="Short title.")
    summary: str = Field(description="First sentence of the description.")
    domain: str = Field(description="Domain.")
    mutating: bool = Field(description="Whether it can change something.")
    score: float = Field(description="BM25 relevance (higher is better).")


class FindOut(ToolOutput):
    items: list[CapabilityItem] = Field(description="Best matches first.")
    next_cursor: str | None = Field(default=None, description="Cursor of the next page; null on the last one.")


class _Catalog:
    """An in-memory FTS5 index of a registry's tools (the facade's own left out), built on the
    first search: `tools(registry)` makes one per registry, before the registry is complete."""

    def __init__(self, registry: Catalog) -> None:
        self.registry = registry
        self.names: list[str] = []
        self._conn: sqlite3.Connection | None = None

    def _index(self) -> sqlite3.Connection:
        if self._conn is None:
            specs = [s for s in self.registry if FACADE_TAG not in s.tags]
            conn = driver().connect(":memory:", check_same_thread=False)
            conn.execute(
                "CREATE VIRTUAL TABLE cat USING fts5(name, title, description, tags, keywords, "
                "tokenize='porter unicode61')"
            )
            names = {s.name for s in self.registry}
            rows = [
                (
                    f"{s.name.replace('_', ' ')} {s.name}",
                    s.title,
                    _own_words(s.description, names),
                    " ".join((s.domain, *s.tags)),
                    " ".join(KEYWORDS.get(s.name, ())),
                )
                for s in specs
            ]
            conn.executemany("INSERT INTO cat(name, title, description, tags, keywords) VALUES (?,?,?,?,?)", rows)
            self.names = [s.name for s in specs]
            self._conn = conn
        return self._conn

    def search(self, query: str) -> list[tuple[str, float]]:
        words = [w for w in "".join(ch if ch.isalnum() else " " for ch in query.lower()).split() if len(w) > 1]
        words = [w for w in words if not is_stop_word(w)] or words  # a question's function words say nothing
        words = list(dict.fromkeys(x for w in words for x in EVERYDAY.get(w, (w,))))
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', "") + '"*' for w in words[:32])
        rows = (
            self._index()
            .execute("SELECT rowid, -bm25(cat, 10.0, 4.0, 1.0, 2.0, 3.0) FROM cat WHERE cat MATCH ?", (match,))
            .fetchall()
        )
        stems = {_stem(w) for w in words}
        scored = [
            (name, float(score) + NAME_BOOST * _name_share(name, stems) + PHRASE_BOOST * _phrase_hit(name, query))
            for rowid, score in rows
            if (name := self.names[int(rowid) - 1])
        ]
        return sorted(scored, key=lambda item: -item[1])


async def find_capability(ctx: ToolContext, args: FindIn, *, registry: Catalog, catalog: _Catalog) -> FindOut:
    key = hashlib.sha256(args.query.encode()).hexdigest()[:16]
    offset = decode_cursor(args.cursor, t="cap", q=key)
    matches = [
        (name, score)
        for name, score in catalog.search(args.query)
        if (spec := registry.get(name)) is not None and _listed(ctx, spec)
    ]
    window, cursor = page_of(matches, offset, args.limit, t="cap", q=key)
    items: list[CapabilityItem] = []
    for name, score in window:
        spec = registry.get(name)
        assert spec is not None
        summary = spec.description.split(". ")[0].rstrip(".") + "."
        items.append(
            CapabilityItem(
                name=name,
                title=spec.title,
                summary=summary,
                domain=spec.domain,
                mutating=spec.mutating,
                score=round(score, 3),
            )
        )
    return FindOut(items=items, next_cursor=cursor)


# -- describe_capability --------------------------------------------------------------------------


class DescribeIn(ToolInput):
    name: str = Field(min_length=1, max_length=100, description="Tool name from find_capability.")


class DescribeOut(ToolOutput):
    name: str = Field(description="Tool name.")
    title: str = Field(description="Title.")
    description: str = Field(description="Full description.")
    domain: str = Field(description="Domain.")
    input_schema: dict[str, Any] = Field(description="JSON Schema of its arguments.")
    output_schema: dict[str, Any] = Field(description="JSON Schema of its result.")
    scopes: list[str] = Field(description="Scopes a caller needs.")
    mutating: bool = Field(description="Whether it can change something.")
    destructive: bool = Field(
        description="Whether some call can delete or replace existing content (such calls ask for confirmation)."
    )


async def describe_capability(ctx: ToolContext, args: DescribeIn, *, registry: Catalog) -> DescribeOut:
    spec = registry.get(args.name)
    if spec is None or not _listed(ctx, spec):
        raise _unknown(ctx, registry, args.name)
    tool = spec.to_mcp()
    return DescribeOut(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        domain=spec.domain,
        input_schema=dict(tool.input_schema),
        output_schema=dict(tool.output_schema or {}),
        scopes=list(spec.scopes),
        mutating=spec.mutating,
        destructive=spec.may_destroy,
    )


# -- call_capability and the domain meta-tools ----------------------------------------------------


class CallIn(ToolInput):
    name: str = Field(min_length=1, max_length=100, description="Tool to call.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Its arguments (see describe_capability).")


class CallOut(ToolOutput):
    tool: str = Field(description="The tool that ran.")
    result: dict[str, Any] = Field(description="Its structured result.")
    _blocks: list[Any] = PrivateAttr(default_factory=list)  # the inner tool's images and resources

    def content_blocks(self) -> list[Any]:
        return list(self._blocks)


async def _call_inner(
    ctx: ToolContext, registry: Catalog, name: str, arguments: dict[str, Any], outer: ToolInput
) -> CallOut:
    spec = registry.get(name)
    if spec is None or FACADE_TAG in spec.tags or not _listed(ctx, spec):
        raise _unknown(ctx, registry, name)
    inner = dict(arguments)
    if outer.vault is not None:
        inner.setdefault("vault", outer.vault)
    if outer.elicit_token is not None:
        inner.setdefault("elicit_token", outer.elicit_token)
    result = await ctx.run_nested(name, inner)
    out = CallOut(tool=name, result=result.structured or {})
    out._blocks = list(result.extra_content)
    return out


async def call_capability(ctx: ToolContext, args: CallIn, *, registry: Catalog) -> CallOut:
    return await _call_inner(ctx, registry, args.name, args.arguments, args)


def domain_tools(registry: Catalog) -> list[ToolSpec]:
    """One meta-tool per domain of `registry`, named after it, offering the domain's tools that
    exist for callers (`registry.exists`, the visibility policy's): a disabled tool is named in no
    operation list or description, and asking for it is the `validation_error` of an unknown
    operation. A domain with no such tool has no meta-tool."""
    exists = getattr(registry, "exists", None)
    by_domain: dict[str, list[ToolSpec]] = {}
    for spec in registry:
        if FACADE_TAG not in spec.tags and (exists is None or exists(spec)):
            by_domain.setdefault(spec.domain, []).append(spec)
    out: list[ToolSpec] = []
    for domain, specs in sorted(by_domain.items()):
        names = tuple(s.name for s in specs)
        everything = sum(s.domain == domain and FACADE_TAG not in s.tags for s in registry)
        # The schema cache keys a table by model names: a narrowed operation list gets its own.
        narrowed = "" if len(names) == everything else "_" + hashlib.sha256(" ".join(names).encode()).hexdigest()[:12]
        model = create_model(
            f"Domain_{domain}_In{narrowed}",
            __base__=ToolInput,
            operation=(Literal[names], Field(description="Which operation: " + ", ".join(names) + ".")),  # type: ignore[arg-type]
            arguments=(dict[str, Any], Field(default_factory=dict, description="The operation's arguments.")),
        )

        async def handler(ctx: ToolContext, args: Any) -> CallOut:
            return await _call_inner(ctx, registry, args.operation, args.arguments, args)

        lines = "; ".join(f"{s.name}: {s.title}" for s in specs)
        out.append(
            ToolSpec(
                name=domain,
                domain="facade",
                title=f"{domain.capitalize()} tools",
                description=f"Run one {domain} operation ({lines}). Pass `operation` and its `arguments`; use "
                "describe_capability for an operation's argument schema.",
                input_model=model,
                output_model=CallOut,
                handler=handler,
                scopes=(),
                mutating=any(s.mutating for s in specs),
                forwards_destructive=any(s.may_destroy for s in specs),
                idempotent=False,
                tags=(FACADE_TAG,),
            )
        )
    return out


def tools(registry: Catalog) -> tuple[ToolSpec, ...]:
    """The capability triad, then one meta-tool per domain of `registry` (every other tool is in it)."""
    return (
        ToolSpec(
            name="find_capability",
            domain="facade",
            title="Find a capability",
            description="Find any of this server's tools by what you want to do (ranked over names and "
            "descriptions), including those tools/list does not show: delete, copy, rename, tags, "
            "regex, property and JSONLogic search, graph, index, admin, sessions. Then get its "
            "arguments with describe_capability and run it with call_capability.",
            input_model=FindIn,
            output_model=FindOut,
            handler=partial(find_capability, registry=registry, catalog=_Catalog(registry)),
            scopes=(),
            tags=(FACADE_TAG,),
        ),
        ToolSpec(
            name="describe_capability",
            domain="facade",
            title="Describe a capability",
            description="A tool's full description and the JSON Schemas of its arguments and result; use it "
            "before call_capability on a tool found with find_capability.",
            input_model=DescribeIn,
            output_model=DescribeOut,
            handler=partial(describe_capability, registry=registry),
            scopes=(),
            tags=(FACADE_TAG,),
        ),
        ToolSpec(
            name="call_capability",
            domain="facade",
            title="Call a capability",
            description="Call any tool by name with its arguments (see describe_capability), through the same "
            "checks as a direct call; its result comes back in `result`. Use it for tools tools/list "
            "does not show.",
            input_model=CallIn,
            output_model=CallOut,
            handler=partial(call_capability, registry=registry),
            scopes=(),
            mutating=True,
            forwards_destructive=True,
            idempotent=False,
            tags=(FACADE_TAG,),
        ),
        *domain_tools(registry),
    )
