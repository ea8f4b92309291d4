"""obsidian domain, bookmarks: add_bookmark, remove_bookmark (list_bookmarks: `bookmark_list.py`), and
the bookmark as both show it (`Bookmark`, `shown`).

The core Bookmarks plugin's `.obsidian/bookmarks.json` (format: `service.obsidian.bookmarks`).
Edits are read-modify-write of that one file, keeping every other item, key and the order: one
call at a time, each on the version the one before it wrote, written only if the file is still
what it read (`service.tools.obsidian.rewrite`). With `expected_etag` (from list_bookmarks) a
file changed since is a `conflict`; without it a change made meanwhile (Obsidian's, another
call's) is read again and the edit applied on top, so neither is ever lost.
Bookmarks of files and folders the caller may not read are invisible: not listed, not matched,
not counted in positions nor in a group's size (a confirmation preview's count included), and
never removed: removing a group keeps its hidden bookmarks where the group was. A bookmark's
`id` is a key of the item itself (`service.obsidian.bookmarks`), so removing by id never hits a
neighbour after other bookmarks moved; an id that no longer names an item is `note_not_found`.
Removing a group that still holds bookmarks the caller sees needs confirmation.
Touches: `.obsidian/bookmarks.json` only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal, TypeVar

from pydantic import Field

from service.errors import AlreadyExists, NotANote, NoteNotFound, PathInvalid, ValidationFailed, VaultgateError
from service.obsidian import bookmarks as bm
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.models import JsonValue, ToolInput, ToolOutput
from service.tools.obsidian.config import config_path, config_size, read_config, visible_path
from service.tools.obsidian.rewrite import rewrite
from service.tools.spec import ToolSpec
from service.vault import offloop
from service.vault.files import NoteFile
from service.vault.paths import VaultPath

FILE = "bookmarks.json"
T = TypeVar("T")
Kind = Literal["file", "folder", "search", "graph", "url", "group"]
ETAG = Field(default=None, description="`etag` from list_bookmarks; if bookmarks.json changed since: conflict.")


class Bookmark(ToolOutput):
    id: str = Field(
        description="Stable key of this bookmark for remove_bookmark and `group` (made from the item itself, "
        "unchanged when other bookmarks are added, removed or reordered)."
    )
    position: str = Field(description="Where it sits among the bookmarks you see ('2', '2.0' inside the third).")
    type: str = Field(description="file, folder, search, graph, url or group (others as written).")
    title: str | None = Field(description="The bookmark's own title, when it has one.")
    path: str | None = Field(default=None, description="File or folder bookmarked.")
    subpath: str | None = Field(default=None, description="'#Heading' or '#^block' of a file bookmark.")
    query: str | None = Field(default=None, description="Search query of a search bookmark.")
    url: str | None = Field(default=None, description="Address of a url bookmark.")
    obsidian_url: str | None = Field(default=None, description="obsidian://open URL of a file or folder.")
    exists: bool | None = Field(default=None, description="Whether the bookmarked file or folder is there.")
    group: str | None = Field(description="Title of the group it is in (None at the top level).")
    depth: int = Field(description="0 at the top level, 1 inside a group, ...")
    items: int | None = Field(default=None, description="How many bookmarks a group holds (that you see).")
    ctime: int | None = Field(default=None, description="When it was added (ms since the epoch).")


def visible_to(ctx: ToolContext) -> Any:
    """Whether the caller sees an item: a file or folder it may read (each path asked once: the ACL's
    answer was half of a walk's time), anything else."""
    seen: dict[str, bool] = {}

    def visible(item: dict[str, Any]) -> bool:
        if item.get("type") not in ("file", "folder"):
            return True
        path = item.get("path")
        if not isinstance(path, str):
            return False
        if (known := seen.get(path)) is None:
            known = seen[path] = visible_path(ctx, path) is not None
        return known

    return visible


def _seen_inside(ctx: ToolContext, item: dict[str, Any]) -> int | None:
    """How many bookmarks a group holds that the caller sees, at any depth (None: not a group)."""
    nested = item.get("items") if item.get("type") == "group" and isinstance(item.get("items"), list) else None
    return sum(1 for _ in bm.walk(nested, visible_to(ctx))) if nested is not None else None


def _hidden_inside(ctx: ToolContext, item: dict[str, Any]) -> list[dict[str, Any]]:
    """The bookmarks inside a group (at any depth) of files and folders the caller may not read."""
    nested = item.get("items")
    if item.get("type") != "group" or not isinstance(nested, list):
        return []
    visible = visible_to(ctx)
    return [loc.item for loc in bm.walk(nested, lambda _: True) if not visible(loc.item)]


def shown(ctx: ToolContext, loc: bm.Located, inside: dict[str, int] | None = None) -> Bookmark:
    """One bookmark as the tools show it; `inside`: the counts of a whole walk (`bm.inside_counts`),
    else a group's is counted by walking it (once per group: quadratic in a list of them)."""
    item = loc.item
    kind = str(item.get("type", ""))
    path = visible_path(ctx, item.get("path")) if kind in ("file", "folder") else None

    def text(key: str) -> str | None:
        value = item.get(key)
        return value if isinstance(value, str) else None

    ctime = item.get("ctime")
    return Bookmark(
        id=loc.id,
        position=loc.position,
        type=kind,
        title=text("title"),
        path=path,
        subpath=text("subpath") if kind == "file" else None,
        query=text("query") if kind == "search" else None,
        url=text("url") if kind == "url" else None,
        obsidian_url=ctx.vault.url(path) if path is not None else None,
        exists=ctx.vault.paths.on_disk(path).exists() if path is not None else None,
        group=loc.group,
        depth=loc.depth,
        items=(inside.get(loc.position) if kind == "group" and isinstance(item.get("items"), list) else None)
        if inside is not None
        else _seen_inside(ctx, item),
        ctime=ctime if isinstance(ctime, int) and not isinstance(ctime, bool) else None,
    )


def find_group(ctx: ToolContext, data: Any, key: str) -> bm.Located:
    """The group `key` names (its id or title) among the bookmarks the caller sees."""
    every = list(bm.walk(bm.items_of(data), visible_to(ctx), keyed=False))
    at, ident = group_at(every, key)
    return replace(every[at], id=ident)


def group_at(every: list[bm.Located], key: str) -> tuple[int, str]:
    """Where in `every` (a whole walk, unkeyed) the group `key` names is, and its id."""
    at = [i for i, loc in enumerate(every) if loc.item.get("type") == "group"]
    ids = bm.ids_at(every, at)  # only groups hashed: an item of a group's key is a group
    # A group by its id or its title (a position would name whatever group sits there now).
    found = [i for i in at if ids[i] == key] or [i for i in at if every[i].item.get("title") == key]
    if len(found) != 1:
        reason = "ambiguous_group" if found else "group_not_found"
        raise ValidationFailed(
            f"{'several groups are' if found else 'no bookmark group is'} named {key!r}",
            details={"field": "group", "reason": reason, "candidates": [ids[i] for i in found]},
            hint="list_bookmarks shows the groups and their ids." if not found else "Pass the group's id.",
        )
    return found[0], ids[found[0]]


class AddBookmarkIn(ToolInput):
    type: Kind = Field(description="What to bookmark: file, folder, search, graph, url, or an empty group.")
    path: str | None = Field(
        default=None, description="file/folder: the vault path; a note also as a wikilink names it ('Plan')."
    )
    subpath: str | None = Field(default=None, description="file: a heading ('#Heading') or block ('#^id').")
    query: str | None = Field(default=None, description="search: the search query, as typed in Obsidian's search.")
    url: str | None = Field(default=None, description="url: the web address.")
    options: dict[str, JsonValue] | None = Field(default=None, description="graph: the graph view's options.")
    title: str | None = Field(default=None, description="Title to show (required for a group and a url).")
    group: str | None = Field(default=None, description="Add inside this group (id or title); default top level.")
    position: int | None = Field(default=None, ge=0, description="Index within its list; default: at the end.")
    expected_etag: str | None = ETAG


class BookmarkChangeOut(ToolOutput):
    item: Bookmark = Field(description="The bookmark added or removed.")
    etag: str = Field(description="Etag of bookmarks.json after the change.")


def _required(args: AddBookmarkIn, field: str) -> str:
    value = getattr(args, field)
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed(f"a {args.type} bookmark needs {field}", details={"field": field, "reason": "missing"})
    return value.strip()


async def _new_item(ctx: ToolContext, args: AddBookmarkIn) -> dict[str, Any]:
    item: dict[str, Any] = {"type": args.type, "ctime": int(time.time() * 1000)}
    if args.type in ("file", "folder"):
        raw = _required(args, "path")
        vp: VaultPath | None = None
        subpath = args.subpath
        try:
            vp = ctx.resolve(raw, "read")
        except PathInvalid:
            if args.type != "file":
                raise  # '[[Launch plan|the plan]]' is no path, but a note's address
        if args.type == "file" and (vp is None or not vp.abs.is_file()):
            try:
                found = await ctx.find_note(raw, "read", section="keep")  # a note as a wikilink names it
            except NotANote as exc:  # 'Trip board.canvas', 'scan#1.pdf': the file as a link names it
                if "read_with" not in exc.details:
                    raise
                found = None
            vp = found.vp if found is not None else await ctx.find_file(raw, "read")
            if found is not None and found.subpath:  # '[[Plan#Goals]]': the heading (or block) a file bookmark keeps
                if subpath is not None and subpath != f"#{found.subpath}":
                    raise ValidationFailed(
                        f"path names #{found.subpath} and subpath {subpath!r}: give the section once",
                        details={"field": "subpath", "reason": "two_sections"},
                    )
                subpath = f"#{found.subpath}"
        assert vp is not None
        if args.type == "folder" and not vp.abs.is_dir():
            raise NoteNotFound(f"no folder at {vp.rel!r}", details={"path": vp.rel, "type": args.type})
        item["path"] = vp.rel
        if subpath is not None:
            if args.type != "file" or not subpath.startswith("#") or len(subpath) < 2:
                raise ValidationFailed(
                    "subpath is '#Heading' or '#^block' of a file bookmark",
                    details={"field": "subpath", "reason": "invalid"},
                )
            item["subpath"] = subpath
    elif args.type == "search":
        item["query"] = _required(args, "query")
    elif args.type == "url":
        item["url"] = _required(args, "url")
        _required(args, "title")
    elif args.type == "graph":
        item["options"] = dict(args.options or {})
    else:
        _required(args, "title")
        item["items"] = []
    if args.title is not None:
        item["title"] = args.title
    return item


def _parsed(note: NoteFile | None) -> Any:
    """bookmarks.json as JSON: {} when there is none yet, None when it is not JSON."""
    if note is None:
        return {}
    try:
        return json.loads(note.content)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's limit
        return None


async def _edit(
    ctx: ToolContext, change: Callable[[NoteFile | None, Any], T], expected_etag: str | None
) -> tuple[T, str]:
    """Apply `change` to bookmarks.json as it is now (it edits the parsed JSON in place; a dict
    when it returns), one call at a time, guarded by what it read (`rewrite`): every bookmark a
    call reports saved is in the file, and a call without `expected_etag` applies on the latest
    version. Returns what `change` returned and the new etag."""

    def made(note: NoteFile | None) -> tuple[str, T]:
        data = _parsed(note)
        out = change(note, data)
        return bm.dumps(data, note.content if note is not None else None), out

    async def build(note: NoteFile | None) -> tuple[str, T]:
        # A long file is parsed, walked and written out in a worker thread (100,000 items: seconds).
        return await offloop.sized(len(note.content) if note is not None else 0, made, note)

    result, out = await rewrite(ctx, config_path(ctx, FILE), build, expected_etag=expected_etag, publish=False)
    return out, result.etag


async def add_bookmark(ctx: ToolContext, args: AddBookmarkIn) -> BookmarkChangeOut:
    item = await _new_item(ctx, args)

    def add(note: NoteFile | None, data: Any) -> Bookmark:
        if note is not None and not isinstance(data, dict):
            raise ValidationFailed(
                "bookmarks.json is not valid JSON; refusing to overwrite it",
                details={"reason": "unreadable_settings", "file": f".obsidian/{FILE}"},
                hint="Fix or remove .obsidian/bookmarks.json first.",
            )
        if not isinstance(data.get("items"), list):
            data["items"] = []
        for loc in bm.walk(data["items"], lambda _: True):
            if bm.same_target(loc.item, item):
                raise AlreadyExists(
                    "this is bookmarked already",
                    details={"type": item["type"], "path": item.get("path"), "subpath": item.get("subpath")},
                    hint="Nothing to add: list_bookmarks shows the bookmark that is there.",
                )
        container: list[Any] = data["items"]
        if args.group is not None:
            container = find_group(ctx, data, args.group).item.setdefault("items", [])
        index = len(container) if args.position is None else min(args.position, len(container))
        container.insert(index, item)
        return shown(ctx, next(loc for loc in bm.walk(data["items"], visible_to(ctx)) if loc.item is item))

    added, etag = await _edit(ctx, add, args.expected_etag)
    return BookmarkChangeOut(item=added, etag=etag)


class RemoveBookmarkIn(ToolInput):
    id: str | None = Field(default=None, description="The bookmark's id from list_bookmarks (a stable key).")
    path: str | None = Field(default=None, description="Remove the bookmark of this file or folder.")
    subpath: str | None = Field(default=None, description="With path: the bookmark of this heading/block.")
    title: str | None = Field(default=None, description="Remove the bookmark (or group) with this title.")
    expected_etag: str | None = ETAG


async def _named(ctx: ToolContext, args: RemoveBookmarkIn) -> tuple[str, str | None] | None:
    """The note `args.path` names, as every tool resolves a name (`File recovery` is
    `Plugins/File recovery.md`), with the '#…' section it names ('[[Plan#Goals]]'), or None when it
    names no note the caller may read."""
    if args.path is None:
        return None
    try:
        found = await ctx.find_note(args.path, "read", section="keep")
    except VaultgateError:
        return None
    return found.vp.rel, (f"#{found.subpath}" if found.subpath else None)


def _target(
    ctx: ToolContext, args: RemoveBookmarkIn, data: Any, named: tuple[str, str | None] | None = None
) -> bm.Located:
    if sum(x is not None for x in (args.id, args.path, args.title)) != 1:
        raise ValidationFailed(
            "name the bookmark by exactly one of id, path or title", details={"field": "id", "reason": "selector"}
        )
    found: list[bm.Located] = []
    for loc in bm.walk(bm.items_of(data), visible_to(ctx)):
        item = loc.item
        if args.id is not None:
            hit = loc.id == args.id
        elif args.path is not None:
            want = args.path.strip().strip("/")
            path = item.get("path")
            note, section = named if named is not None else (None, None)
            subpath = args.subpath if args.subpath is not None else section
            hit = item.get("type") in ("file", "folder") and any(
                bm.same_path(path, p) for p in (want, want + ".md", note)
            )
            hit = hit and (subpath is None or item.get("subpath") == subpath)
        else:
            hit = item.get("title") == args.title
        if hit:
            found.append(loc)
    if not found:
        raise NoteNotFound(
            "no such bookmark", details={"id": args.id, "path": args.path, "title": args.title}, hint="list_bookmarks."
        )
    if len(found) > 1:
        raise ValidationFailed(
            f"{len(found)} bookmarks match",
            details={"reason": "ambiguous", "candidates": [loc.id for loc in found]},
            hint="Pass one of details.candidates as id.",
        )
    return found[0]


async def remove_bookmark(ctx: ToolContext, args: RemoveBookmarkIn) -> BookmarkChangeOut:
    named = await _named(ctx, args)

    def remove(_note: NoteFile | None, data: Any) -> Bookmark:
        loc = _target(ctx, args, data, named)
        gone = shown(ctx, loc)
        # A removed group's bookmarks of notes the caller may not read stay, where the group was:
        # this caller can neither see nor change them (for it the group's removal is complete).
        loc.container[loc.index : loc.index + 1] = _hidden_inside(ctx, loc.item)
        return gone

    gone, etag = await _edit(ctx, remove, args.expected_etag)
    return BookmarkChangeOut(item=gone, etag=etag)


def _preview(ctx: ToolContext, args: RemoveBookmarkIn, named: tuple[str, str | None] | None) -> ChangePreview | None:
    data, _ = read_config(ctx, FILE)
    loc = _target(ctx, args, data, named)
    inner = _seen_inside(ctx, loc.item)  # what the caller sees of it, as list_bookmarks counts it
    if inner:
        summary = f"remove bookmark group {loc.item.get('title')!r} and the {inner} bookmarks in it"
        return ChangePreview.of(summary, [config_path(ctx, FILE).rel])
    return None


async def remove_bookmark_confirm(ctx: ToolContext, args: RemoveBookmarkIn) -> ChangePreview | None:
    named = await _named(ctx, args)
    return await offloop.sized(config_size(ctx, FILE), _preview, ctx, args, named)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="add_bookmark",
        domain="obsidian",
        title="Add a bookmark",
        description="Bookmark a file (optionally a heading or block), folder, search, graph or URL, or create a "
        "group; optionally inside a group. Obsidian's bookmarks.json keeps everything else as it was.",
        input_model=AddBookmarkIn,
        output_model=BookmarkChangeOut,
        handler=add_bookmark,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
    ),
    ToolSpec(
        name="remove_bookmark",
        domain="obsidian",
        title="Remove a bookmark",
        description="Remove one bookmark by id, path (+ subpath) or title; removing a group that holds bookmarks "
        "needs confirmation. The bookmarked file itself is not touched.",
        input_model=RemoveBookmarkIn,
        output_model=BookmarkChangeOut,
        handler=remove_bookmark,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=remove_bookmark_confirm,
        idempotent=False,
    ),
)
