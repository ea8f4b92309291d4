"""obsidian domain, canvas: read_canvas, write_canvas.

JSON Canvas 1.0 files (`.canvas`; format and validation: `service.obsidian.canvas`). Reading is
lenient (what Obsidian would open is returned, with any spec violations listed in `problems`) and
resolves file nodes to the vault file, its title and obsidian_url when the caller may read it.
Writing is strict: the whole canvas is validated (every problem reported at once), file nodes
and group backgrounds must be vault paths the caller may read (the same path rules as every
tool; a file node may name its file as a wikilink does, `Dune` or `[[Roadmap#Goals]]`, and is
written with the vault path Obsidian's canvas needs), then the file is written atomically,
guarded by `expected_etag`; replacing a non-empty canvas without the etag needs confirmation,
like write_note. Calls on one canvas run one at a
time and write only if the file is still what they read (a new canvas: create-only;
`service.tools.obsidian.rewrite`), so racing creators get `conflict` (or `already_exists`) and
a canvas created meanwhile is never replaced unasked. Fields the spec does not name are
kept: a node's or edge's `extra` from read_canvas is merged back on write, and the file's own
unknown top-level keys are kept unless `extra` is given.
Touches: `.canvas` files (through `VaultFiles`, so the index sees each write).
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from service.errors import (
    AclDenied,
    AlreadyExists,
    AmbiguousNote,
    NotANote,
    NoteNotFound,
    PathInvalid,
    ValidationFailed,
    answers_whole,
)
from service.markdown.parse import note_title
from service.obsidian import canvas as cv
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext, link_target
from service.tools.models import JsonValue, ToolInput, ToolOutput
from service.tools.notes.part_reads import too_long
from service.tools.notes.targets import overwrite_preview, shown_etag
from service.tools.obsidian.config import FileRef, file_ref, visible_path
from service.tools.obsidian.rewrite import check_replace, current, rewrite
from service.tools.spec import ToolSpec
from service.vault import offloop
from service.vault.files import NoteFile
from service.vault.paths import VaultPath, normalize

_NODE_KEYS: tuple[str, ...] = ("id", "type", "x", "y", "width", "height", "color", "text", "file", "subpath")
_NODE_KEYS += ("url", "label", "background", "backgroundStyle")
_EDGE_KEYS = ("id", "fromNode", "fromSide", "fromEnd", "toNode", "toSide", "toEnd", "color", "label")
_OURS = ("extra", "resolved")  # read_canvas's own additions, taken back apart on write


class CanvasNode(ToolOutput):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    id: str = Field(description="Node id (unique in the canvas).")
    type: str = Field(description="text, file, link or group.")
    x: int | float = Field(description="Left edge, in canvas pixels.")
    y: int | float = Field(description="Top edge, in canvas pixels.")
    width: int | float = Field(description="Width in pixels.")
    height: int | float = Field(description="Height in pixels.")
    color: str | None = Field(default=None, description="Hex '#RRGGBB' or a preset '1'-'6'.")
    text: str | None = Field(default=None, description="text node: Markdown.")
    file: str | None = Field(default=None, description="file node: the vault path.")
    subpath: str | None = Field(default=None, description="file node: '#Heading' or '#^block'.")
    url: str | None = Field(default=None, description="link node: the address.")
    label: str | None = Field(default=None, description="group node: its label.")
    background: str | None = Field(default=None, description="group node: background image path.")
    background_style: str | None = Field(
        default=None, alias="backgroundStyle", description="group node: cover, ratio or repeat."
    )
    extra: dict[str, JsonValue] = Field(default_factory=dict, description="Fields outside the spec, kept as written.")
    resolved: FileRef | None = Field(default=None, description="file node: the file it shows, when you may read it.")


class CanvasEdge(ToolOutput):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    id: str = Field(description="Edge id.")
    from_node: str = Field(alias="fromNode", description="Node the edge starts at.")
    from_side: str | None = Field(default=None, alias="fromSide", description="top, right, bottom or left.")
    from_end: str | None = Field(default=None, alias="fromEnd", description="none (default) or arrow.")
    to_node: str = Field(alias="toNode", description="Node the edge ends at.")
    to_side: str | None = Field(default=None, alias="toSide", description="top, right, bottom or left.")
    to_end: str | None = Field(default=None, alias="toEnd", description="arrow (default) or none.")
    color: str | None = Field(default=None, description="Hex '#RRGGBB' or a preset '1'-'6'.")
    label: str | None = Field(default=None, description="Text on the edge.")
    extra: dict[str, JsonValue] = Field(default_factory=dict, description="Fields outside the spec, kept as written.")


class Problem(ToolOutput):
    where: str = Field(description="'nodes[3]', 'edges[0]' or 'canvas'.")
    field: str = Field(description="The field at fault ('' for the whole item).")
    problem: str = Field(description="What is wrong.")


class ReadCanvasIn(ToolInput):
    path: str = Field(
        description="The canvas file ('.canvas' optional): a vault path, or its name alone when no other canvas has it."
    )


class CanvasOut(ToolOutput):
    path: str = Field(description="Vault-relative path of the canvas.")
    title: str = Field(description="The file name without '.canvas'.")
    obsidian_url: str = Field(description="obsidian://open URL of the canvas.")
    etag: str = Field(description="Pass as expected_etag to write_canvas.")
    nodes: list[CanvasNode] = Field(description="Nodes in z-order (first is lowest).")
    edges: list[CanvasEdge] = Field(description="Edges between nodes.")
    extra: dict[str, JsonValue] = Field(description="Top-level fields besides nodes and edges.")
    problems: list[Problem] = Field(description="JSON Canvas 1.0 violations found in the file (read anyway).")


def canvas_name(path: str) -> str:
    """The canvas file a path or name names (`[[…]]` dropped, `.canvas` added where it is left
    out); a path naming another kind of file is `not_a_canvas`."""
    text = link_target(path)
    low = text.lower()
    if "." in text.rsplit("/", 1)[-1] and not low.endswith(".canvas"):
        raise ValidationFailed(
            f"{text!r} is not a canvas (.canvas)", details={"field": "path", "reason": "not_a_canvas"}
        )
    return text if low.endswith(".canvas") else text + ".canvas"


async def canvas_target(ctx: ToolContext, path: str) -> VaultPath:
    """Where write_canvas writes: the existing canvas the name names, found as read_canvas finds
    it (the path as written, else the vault's canvases by path tail or name, any letter case), so
    'Flow' is Boards/Flow.canvas rather than a second canvas beside it; the path as written when
    none fits (a new canvas)."""
    name = canvas_name(path)
    try:
        return await ctx.find_file(name, "write")
    except NoteNotFound:
        return ctx.resolve(normalize(name), "write")


def _split(item: dict[str, Any], keys: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, Any]]:
    known = {k: v for k, v in item.items() if k in keys}
    return known, {k: v for k, v in item.items() if k not in keys}


def _typed_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _node_out(ctx: ToolContext, node: dict[str, Any]) -> CanvasNode | None:
    if not _placed(node):
        return None
    known, extra = _split(node, _NODE_KEYS)
    rel = visible_path(ctx, known.get("file")) if known.get("type") == "file" else None
    fields = {k: _typed_str(known.get(k)) for k in _NODE_KEYS if k not in cv.GEOMETRY}
    return CanvasNode.model_validate(
        {
            **{k: v for k, v in fields.items() if v is not None},
            "id": str(known.get("id", "")),
            "type": str(known.get("type", "")),
            **{k: known[k] for k in cv.GEOMETRY},
            "extra": extra,
            "resolved": file_ref(ctx, rel) if rel is not None else None,
        }
    )


def _least_bytes(data: object, limit: int) -> int:
    """Bytes the answer holds at least (the governor's overflow, told before it is built), counted
    until past `limit`: the text of the nodes and edges it lists (`_node_out`, `_edge_out`), each
    top-level string value and each extra key once, a character at least a byte in any JSON of it."""
    least = 0
    for items, keys, kept in ((cv.nodes_of(data), _NODE_KEYS, _placed), (cv.edges_of(data), _EDGE_KEYS, _joined)):
        for item in items:
            if kept(item):
                least += sum(len(v) if isinstance(v, str) else 0 if k in keys else len(k) for k, v in item.items())
                if least > limit:
                    return least
    return least


def _placed(node: dict[str, Any]) -> bool:
    return all(isinstance(g := node.get(k), int | float) and not isinstance(g, bool) for k in cv.GEOMETRY)


def _joined(edge: dict[str, Any]) -> bool:
    return all(isinstance(edge.get(k), str) for k in ("id", "fromNode", "toNode"))


def _edge_out(edge: dict[str, Any]) -> CanvasEdge | None:
    if not _joined(edge):
        return None
    known, extra = _split(edge, _EDGE_KEYS)
    fields = {k: v for k in _EDGE_KEYS if (v := _typed_str(known.get(k))) is not None}
    return CanvasEdge.model_validate({**fields, "extra": extra})


async def read_canvas(ctx: ToolContext, args: ReadCanvasIn) -> CanvasOut:
    # A canvas named as a note is, by its name alone ('Plan' for Boards/Plan.canvas), as Obsidian's
    # embeds name it: the path as written when it is there, else the vault's canvases by name.
    vp = await ctx.find_file(canvas_name(args.path), "read")
    # Parsed, measured and built in a worker thread once long (100,000 nodes held the loop 0.9 s).
    return await offloop.sized(offloop.size_of(vp), _read_canvas, ctx, vp)


def _read_canvas(ctx: ToolContext, vp: VaultPath) -> CanvasOut:
    note = ctx.vault.files.read(vp)
    try:
        data = cv.loads(note.content)
    except ValueError as exc:
        raise ValidationFailed(
            f"{vp.rel!r} is not valid JSON: {exc}",
            details={"path": vp.rel, "reason": "invalid_json"},
            hint="The file is broken, not the call: fix it in Obsidian or an editor, or replace it with write_canvas.",
        ) from None
    limit = ctx.services.settings.governor.max_response_bytes
    least = _least_bytes(data, limit)
    if least > limit:  # refused before its nodes are built: ~17 s CPU and ~166 MB for an 8.8 MB canvas
        raise too_long(least, limit, tool="read_canvas", hint=answers_whole("read_canvas"))
    nodes = [n for node in cv.nodes_of(data) if (n := _node_out(ctx, node)) is not None]
    edges = [e for edge in cv.edges_of(data) if (e := _edge_out(edge)) is not None]
    extra = {k: v for k, v in data.items() if k not in ("nodes", "edges")} if isinstance(data, dict) else {}
    return CanvasOut(
        path=vp.rel,
        title=note_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        etag=note.etag,
        nodes=nodes,
        edges=edges,
        extra=extra,
        problems=[Problem(**p) for p in cv.problems(data)],
    )


class WriteCanvasIn(ToolInput):
    path: str = Field(
        description="The canvas file ('.canvas' optional; folders are created): an existing canvas may be named "
        "as read_canvas names it (its name alone when no other canvas has it); a new one is made at the path."
    )
    nodes: list[dict[str, JsonValue]] = Field(
        description="JSON Canvas nodes in z-order: {id, type: text|file|link|group, x, y, width, height "
        "(integers), color?, text | file (+subpath) | url | label/background/backgroundStyle}. read_canvas "
        "nodes may be passed back as they are ('resolved' is dropped, 'extra' merged in)."
    )
    edges: list[dict[str, JsonValue]] = Field(
        default_factory=list,
        description="JSON Canvas edges: {id, fromNode, toNode, fromSide?, toSide?, fromEnd?, toEnd?, color?, label?}.",
    )
    extra: dict[str, JsonValue] | None = Field(
        default=None, description="Top-level fields besides nodes and edges (default: keep the file's own)."
    )
    expected_etag: str | None = Field(
        default=None, description="Etag from read_canvas; if the canvas changed since, the call fails with conflict."
    )
    create_only: bool = Field(default=False, description="Fail with already_exists if the canvas exists.")


class WriteCanvasOut(ToolOutput):
    path: str = Field(description="Vault-relative path of the canvas.")
    title: str = Field(description="The file name without '.canvas'.")
    obsidian_url: str = Field(description="obsidian://open URL of the canvas.")
    etag: str = Field(description="Etag of what was written.")
    created: bool = Field(description="Whether the file is new.")
    nodes: int = Field(description="How many nodes it holds.")
    edges: int = Field(description="How many edges it holds.")


def _merged(item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """A node or edge as written: read_canvas's additions taken apart, and a spec field that is
    null (read_canvas's way of saying "absent") left out."""
    raw = item.get("extra")
    extra: dict[str, Any] = raw if isinstance(raw, dict) else {}
    own = {k: v for k, v in item.items() if k not in _OURS and not (k in keys and v is None)}
    return {**own, **{k: v for k, v in extra.items() if k not in item}}


def _in_old_order(item: dict[str, Any], old: list[dict[str, Any]]) -> dict[str, Any]:
    """The keys of an item that was in the file already, in the order the file had them (a
    round trip through read_canvas rewrites nothing but what changed)."""
    before = next((o for o in old if o.get("id") == item.get("id")), None)
    if before is None:
        return item
    return {**{k: item[k] for k in before if k in item}, **item}


def _path_problems(ctx: ToolContext, nodes: list[dict[str, Any]], kept: set[str]) -> list[dict[str, str]]:
    """File nodes and backgrounds must be vault paths; new ones also readable by the caller
    (`kept`: the paths the canvas already names, which a caller may keep without reading)."""
    out: list[dict[str, str]] = []
    for i, node in enumerate(nodes):
        for key in ("file", "background"):
            raw = node.get(key)
            if key == "file" and node.get("type") != "file":
                continue
            if not isinstance(raw, str):
                continue
            try:
                rel = normalize(raw)
                if rel in kept:
                    ctx.vault.paths.resolve(rel)
                else:
                    ctx.resolve(rel, "read")
            except (PathInvalid, AclDenied) as exc:
                reason = exc.details.get("reason") or exc.details.get("rule") or exc.code
                out.append({"where": f"nodes[{i}]", "field": key, "problem": f"not a readable vault path ({reason})"})
    return out


async def _file_named(ctx: ToolContext, raw: str) -> str | dict[str, str]:
    """The vault file a file node's `file` names, as a wikilink names it (`Dune`, `[[Roadmap]]`,
    `[[Roadmap#Goals]]`, `photo.png`): its path (with `#subpath` when the name carries one), or
    the name as given when it names no file (its problem is then `_path_problems`'s)."""
    text = link_target(raw)
    try:
        if ctx.vault.paths.on_disk(normalize(text)).is_file():
            return normalize(text)
    except PathInvalid:
        return raw
    try:
        found = await ctx.find_note(text, "read", section="keep")
        return {"file": found.vp.rel, **({"subpath": "#" + found.subpath} if found.subpath else {})}
    except AmbiguousNote as exc:
        return {"problem": f"{raw!r} fits several files: {', '.join(exc.details.get('candidates', [])[:5])}"}
    except (NoteNotFound, NotANote, AclDenied, PathInvalid, ValidationFailed):
        pass
    try:
        return (await ctx.find_file(text, "read")).rel
    except AmbiguousNote as exc:
        return {"problem": f"{raw!r} fits several files: {', '.join(exc.details.get('candidates', [])[:5])}"}
    except (NoteNotFound, AclDenied, PathInvalid):
        return raw


async def _with_files(ctx: ToolContext, args: WriteCanvasIn) -> tuple[WriteCanvasIn, list[dict[str, str]]]:
    """`args` with each file node's name resolved to the vault path Obsidian's canvas needs (it
    shows a card whose `file` is a bare name as a missing file), and the names that fit several."""
    nodes: list[dict[str, Any]] = []
    problems: list[dict[str, str]] = []
    for i, node in enumerate(args.nodes):
        raw = node.get("file")
        if node.get("type") != "file" or not isinstance(raw, str):
            nodes.append(node)
            continue
        named = await _file_named(ctx, raw)
        if isinstance(named, str):
            nodes.append({**node, "file": named})
        elif "problem" in named:
            problems.append({"where": f"nodes[{i}]", "field": "file", "problem": named["problem"]})
            nodes.append(node)
        else:
            subpath = named.get("subpath") if node.get("subpath") is None else node["subpath"]
            nodes.append({**node, "file": named["file"], **({"subpath": subpath} if subpath else {})})
    return args.model_copy(update={"nodes": nodes}), problems


def _canvas(
    ctx: ToolContext, args: WriteCanvasIn, note: NoteFile | None, named: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    """The canvas to write over `note` (None: there is none)."""
    try:
        old = cv.loads(note.content) if note is not None else {}
    except ValueError:
        old = {}
    extra = args.extra
    if extra is None:
        extra = {k: v for k, v in old.items() if k not in ("nodes", "edges")} if isinstance(old, dict) else {}
    kept = {n.get(k) for n in cv.nodes_of(old) for k in ("file", "background") if isinstance(n.get(k), str)}
    nodes = [_in_old_order(_merged(n, _NODE_KEYS), cv.nodes_of(old)) for n in args.nodes]
    edges = [_in_old_order(_merged(e, _EDGE_KEYS), cv.edges_of(old)) for e in args.edges]
    canvas = {"nodes": nodes, "edges": edges, **extra}
    found = cv.problems(canvas) + (named or []) + _path_problems(ctx, nodes, kept)  # type: ignore[arg-type]
    if found:
        raise ValidationFailed(
            f"not a valid JSON Canvas 1.0 file: {len(found)} problem(s), first: {found[0]['where']}."
            f"{found[0]['field']} {found[0]['problem']}",
            details={"reason": "invalid_canvas", "problems": found[:50], "total": len(found)},
            hint="Fix every item in details.problems; nothing was written.",
        )
    return canvas


async def write_canvas(ctx: ToolContext, args: WriteCanvasIn) -> WriteCanvasOut:
    vp = await canvas_target(ctx, args.path)
    args, named = await _with_files(ctx, args)

    async def build(note: NoteFile | None) -> tuple[str, dict[str, Any]]:
        if note is not None and args.create_only:
            raise AlreadyExists(f"a canvas already exists at {vp.rel!r}", details={"path": vp.rel})
        check_replace(ctx, vp, note, args.expected_etag)  # made since the confirm layer found none
        canvas = _canvas(ctx, args, note, named)
        return cv.dumps(canvas), canvas

    # The existence/etag check and the write are one step (`rewrite`): a canvas another call
    # creates meanwhile is never replaced without its etag or a human's confirmation, and a
    # confirmed replace writes over the version the human was shown, or fails with `conflict`.
    result, canvas = await rewrite(ctx, vp, build, expected_etag=shown_etag(ctx, vp, args.expected_etag))
    return WriteCanvasOut(
        path=vp.rel,
        title=note_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        etag=result.etag,
        created=result.created,
        nodes=len(canvas["nodes"]),
        edges=len(canvas["edges"]),
    )


async def write_canvas_confirm(ctx: ToolContext, args: WriteCanvasIn) -> ChangePreview | None:
    if args.create_only:
        return None
    vp = await canvas_target(ctx, args.path)
    args, named = await _with_files(ctx, args)
    size = len(cv.dumps(_canvas(ctx, args, current(ctx, vp), named)).encode())
    why = await overwrite_preview(ctx, vp, size, args.expected_etag)
    return None if why is None else ChangePreview.of(why, [vp.rel])


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="read_canvas",
        domain="obsidian",
        title="Read a canvas",
        description="Read an Obsidian canvas (JSON Canvas .canvas file): nodes (text, file, link, group) with "
        "geometry and colours, edges, file nodes resolved to the vault files, and the etag for write_canvas.",
        input_model=ReadCanvasIn,
        output_model=CanvasOut,
        handler=read_canvas,
        path_args=("path",),
    ),
    ToolSpec(
        name="write_canvas",
        domain="obsidian",
        title="Write a canvas",
        description="Create or replace an Obsidian canvas from JSON Canvas 1.0 nodes and edges, validated as a "
        "whole (ids, edge ends, geometry, colours, file paths) before anything is written; replacing a "
        "canvas without its expected_etag needs confirmation.",
        input_model=WriteCanvasIn,
        output_model=WriteCanvasOut,
        handler=write_canvas,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=write_canvas_confirm,
        idempotent=False,
        path_args=("path",),
    ),
)
