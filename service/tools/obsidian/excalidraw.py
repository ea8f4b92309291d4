"""obsidian domain, Excalidraw: read_excalidraw, write_excalidraw.

Drawings of the Obsidian Excalidraw plugin, read and written without Obsidian (format:
`service.obsidian.excalidraw`): a drawing note (`.excalidraw.md`, or a note whose frontmatter
has `excalidraw-plugin`) with its scene in a `compressed-json` (LZ-string) or `json` block, and a
plain `.excalidraw` file. A drawing is named like a note — its path, its name as a wikilink
names it (`Sketch.excalidraw`), or its name alone (`Sketch`) — with the path ACL applied to the
file found. Decompressing a scene is bounded by `[limits] max_value_bytes` (an LZ bomb is
`compute_budget_exceeded`, limit `bytes`).

Writing replaces the scene's elements (validated as a whole first: ids, types, geometry, text;
every problem reported at once) or adds short elements (text and simple shapes) to what is
there. Everything the call did not change is written back as it was, so a scene read and written
unchanged is the same bytes; new drawings are `.excalidraw.md` notes with a compressed scene, the
form the plugin writes. Replacing a non-empty drawing without `expected_etag` needs confirmation,
as write_canvas does.
Touches: `.excalidraw.md` notes and `.excalidraw` files (through `VaultFiles`, so the index sees
each write; the index leaves the scene block out of a drawing note's words).
"""

from __future__ import annotations

import asyncio
import copy
import random
from collections import Counter
from typing import Any, Literal

from pydantic import Field

from service import budget
from service.errors import NoteNotFound, ValidationFailed
from service.markdown.parse import note_title
from service.obsidian import excalidraw as ex
from service.obsidian.lzstring import DecompressTooLarge
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.models import JsonValue, ToolInput, ToolOutput
from service.tools.notes.write import overwrite_preview
from service.tools.spec import ToolSpec
from service.vault.paths import VaultPath, normalize

# -- finding and loading a drawing -------------------------------------------------------------


def _unbracketed(path: str) -> str:
    text = path.strip()
    return text[2:-2] if len(text) > 4 and text.startswith("[[") and text.endswith("]]") else text


async def locate(ctx: ToolContext, path: str, op: Literal["read", "write"]) -> VaultPath:
    """The existing drawing `path` names: a plain `.excalidraw` file at that path, else the note
    it names (`.md` optional, any note address), else — for a bare name — `<name>.excalidraw`."""
    text = _unbracketed(path)
    low = text.lower()
    if low.endswith(".excalidraw"):
        vp = ctx.resolve(normalize(text), op)
        if vp.abs.is_file():
            return vp
        try:
            return (await ctx.find_note(text, op, section="reject")).vp
        except NoteNotFound:
            return await ctx.find_file(text, op)
    if low.endswith(".md"):
        return (await ctx.find_note(text, op, section="reject")).vp
    try:
        return (await ctx.find_note(text + ".excalidraw", op, section="reject")).vp
    except NoteNotFound:
        return (await ctx.find_note(text, op, section="reject")).vp


def _form(vp: VaultPath, content: str) -> ex.Form:
    low = vp.rel.lower()
    if low.endswith(".excalidraw"):
        return "json"
    if low.endswith(".excalidraw.md") or (low.endswith(".md") and ex.is_drawing_note(content)):
        return "markdown"
    raise ValidationFailed(
        f"{vp.rel!r} is not an Excalidraw drawing",
        details={"path": vp.rel, "reason": "not_a_drawing"},
        hint="A drawing is a .excalidraw.md note (frontmatter excalidraw-plugin) or a .excalidraw file.",
    )


def _parse(rel: str, form: ex.Form, content: str, max_chars: int) -> ex.Drawing:
    try:
        if form == "json":
            return ex.parse_json(content)
        return ex.parse_markdown(content, max_chars=max_chars)
    except DecompressTooLarge as exc:
        raise budget.current().exceeded("bytes", size=exc.size, path=rel, reason="drawing_too_large") from None
    except ex.DrawingError as exc:
        raise ValidationFailed(
            f"{rel!r} is not a drawing the Excalidraw plugin can open: {exc}",
            details={"path": rel, "reason": exc.reason},
        ) from None


async def load(vp: VaultPath, content: str) -> ex.Drawing:
    """The drawing in `content` (decompressing is CPU work: off the event loop)."""
    form = _form(vp, content)
    max_chars = budget.current().limits.max_value_bytes
    return await asyncio.to_thread(_parse, vp.rel, form, content, max_chars)


def _title(rel: str) -> str:
    name = note_title(rel)
    for suffix in (".excalidraw.md", ".excalidraw", ".md"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


# -- read_excalidraw ---------------------------------------------------------------------------


class ReadExcalidrawIn(ToolInput):
    path: str = Field(
        description="The drawing: a path ('Drawings/Sketch.excalidraw.md', 'x.excalidraw'), or a name as a wikilink "
        "names it ('Sketch.excalidraw', 'Sketch')."
    )
    include_scene: bool = Field(
        default=False, description="Also return the whole scene (elements, appState, files); it can be large."
    )


class TextElement(ToolOutput):
    id: str = Field(description="Element id (also the block id: [[Drawing#^id]]).")
    text: str = Field(description="The text as written (Markdown, links unparsed).")
    container_id: str | None = Field(default=None, description="The shape the text sits in, if any.")
    link: str | None = Field(default=None, description="The element's link, if any.")


class ElementLink(ToolOutput):
    id: str = Field(description="Element id.")
    type: str = Field(description="Element type.")
    link: str = Field(description="The link ([[note]] or URL).")


class EmbeddedFile(ToolOutput):
    file_id: str = Field(description="The image element's fileId.")
    target: str = Field(description="What it shows: a vault link target, a URL or LaTeX.")
    kind: str = Field(description="file, url or equation.")


class ExcalidrawOut(ToolOutput):
    path: str = Field(description="Vault-relative path of the drawing.")
    title: str = Field(description="The file name without '.excalidraw.md' / '.excalidraw'.")
    obsidian_url: str = Field(description="obsidian://open URL of the drawing.")
    etag: str = Field(description="Pass as expected_etag to write_excalidraw.")
    form: str = Field(description="'markdown' (.excalidraw.md note) or 'json' (plain .excalidraw file).")
    compressed: bool = Field(description="Whether the note stores its scene as compressed-json.")
    elements: int = Field(description="Elements the drawing shows (deleted ones not counted).")
    deleted: int = Field(description="Deleted elements still kept in the file.")
    by_type: dict[str, int] = Field(description="Shown elements counted by type.")
    text_elements: list[TextElement] = Field(description="Text elements, in the order the note lists them.")
    links: list[ElementLink] = Field(description="Elements that carry a link.")
    embedded_files: list[EmbeddedFile] = Field(description="Images, URLs and equations the note embeds.")
    scene: dict[str, JsonValue] | None = Field(default=None, description="The whole scene, with include_scene.")


def summary(ctx: ToolContext, vp: VaultPath, etag: str, drawing: ex.Drawing, *, scene: bool) -> ExcalidrawOut:
    elements = ex.elements_of(drawing.scene)
    shown = ex.live(elements)
    texts = [e for e in shown if e.get("type") == "text" and isinstance(e.get("id"), str)]
    order = {ident: i for i, ident in enumerate(drawing.section_texts)}
    texts.sort(key=lambda e: order.get(e["id"], len(order)))
    text_out = [
        TextElement(
            id=e["id"],
            # the note's Text Elements section wins over the scene, as in the plugin
            text=drawing.section_texts.get(e["id"], ex.element_text(e)),
            container_id=e.get("containerId") if isinstance(e.get("containerId"), str) else None,
            link=drawing.section_links.get(e["id"], e.get("link") if isinstance(e.get("link"), str) else None),
        )
        for e in texts
    ]
    links = [
        ElementLink(id=(i := str(e.get("id"))), type=str(e.get("type")), link=drawing.section_links.get(i, link))
        for e in shown
        if isinstance(link := e.get("link"), str) and link
    ]
    return ExcalidrawOut(
        path=vp.rel,
        title=_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        etag=etag,
        form=drawing.form,
        compressed=drawing.compressed,
        elements=len(shown),
        deleted=len(elements) - len(shown),
        by_type=dict(Counter(str(e.get("type")) for e in shown)),
        text_elements=text_out,
        links=links,
        embedded_files=[EmbeddedFile(file_id=f.file_id, target=f.target, kind=f.kind) for f in drawing.embedded],
        scene=drawing.scene if scene else None,
    )


async def read_excalidraw(ctx: ToolContext, args: ReadExcalidrawIn) -> ExcalidrawOut:
    vp = await locate(ctx, args.path, "read")
    note = ctx.vault.files.read(vp)
    drawing = await load(vp, note.content)
    return summary(ctx, vp, note.etag, drawing, scene=args.include_scene)


# -- write_excalidraw --------------------------------------------------------------------------


class NewElement(ToolInput):
    type: Literal["text", "rectangle", "ellipse", "diamond", "arrow", "line"] = Field(description="What to draw.")
    x: float = Field(description="Left edge (arrow, line: start point), in scene pixels.")
    y: float = Field(description="Top edge (arrow, line: start point).")
    width: float | None = Field(
        default=None, description="Width (arrow, line: horizontal extent, may be negative); text: estimated if omitted."
    )
    height: float | None = Field(default=None, description="Height (arrow, line: vertical extent, may be negative).")
    text: str | None = Field(
        default=None,
        description="text: what it says (Markdown, [[links]] allowed); rectangle, ellipse, diamond: a label inside.",
    )
    id: str | None = Field(default=None, description="Element id: 8 letters or digits (default: a new one).")
    stroke_color: str | None = Field(default=None, description="Stroke (and text) colour, e.g. '#1e1e1e'.")
    background_color: str | None = Field(default=None, description="Fill colour (default 'transparent').")
    font_size: float | None = Field(default=None, description="text: font size in pixels (default 20).")
    link: str | None = Field(default=None, description="A link the element carries ([[note]] or URL).")


class WriteExcalidrawIn(ToolInput):
    path: str = Field(
        description="The drawing (as read_excalidraw names it); a new one is created as '<path>.excalidraw.md' "
        "(folders are created)."
    )
    elements: list[dict[str, JsonValue]] | None = Field(
        default=None,
        description="Replace the scene's elements with these (read_excalidraw's scene.elements, edited): each needs "
        "id, type (rectangle, diamond, ellipse, arrow, line, freedraw, text, image, frame, magicframe, embeddable, "
        "iframe) and numeric x, y, width, height; a text element needs text (an id that cannot be a block id is "
        "replaced by an 8-character one, see renamed).",
    )
    app_state: dict[str, JsonValue] | None = Field(
        default=None, description="With elements: the scene's appState (default: keep the drawing's own)."
    )
    files: dict[str, JsonValue] | None = Field(
        default=None, description="With elements: the scene's files map (default: keep the drawing's own)."
    )
    add: list[NewElement] | None = Field(
        default=None, description="Instead of elements: add these to the drawing (created when missing), on top."
    )
    compressed: bool | None = Field(
        default=None, description="Store the scene as compressed-json (default: as the note has it; new: yes)."
    )
    expected_etag: str | None = Field(
        default=None, description="Etag from read_excalidraw; if the drawing changed since: conflict."
    )
    create_only: bool = Field(default=False, description="Fail with already_exists if the drawing exists.")


class WriteExcalidrawOut(ToolOutput):
    path: str = Field(description="Vault-relative path of the drawing.")
    title: str = Field(description="The file name without '.excalidraw.md' / '.excalidraw'.")
    obsidian_url: str = Field(description="obsidian://open URL of the drawing.")
    etag: str = Field(description="Etag of what was written.")
    created: bool = Field(description="Whether the file is new.")
    changed: bool = Field(description="Whether the file's bytes changed.")
    elements: int = Field(description="Elements the drawing shows now.")
    text_elements: int = Field(description="Text elements it holds now.")
    added: list[str] = Field(description="Ids of the elements added (with add; a label after its shape).")
    renamed: dict[str, str] = Field(
        default_factory=dict,
        description="Text elements given an 8-character id (their block id), old id to new; references follow.",
    )


def _new_name(path: str) -> str:
    text = _unbracketed(path)
    low = text.lower()
    if low.endswith(".md"):
        return text
    return text + (".md" if low.endswith(".excalidraw") else ".excalidraw.md")


async def _target(ctx: ToolContext, path: str) -> tuple[VaultPath, str | None, str | None]:
    """(where to write, its content and etag when it exists)."""
    try:
        vp = await locate(ctx, path, "write")
    except NoteNotFound:
        vp = ctx.resolve(normalize(_new_name(path)), "write")
    try:
        note = ctx.vault.files.read(vp)
    except NoteNotFound:
        return vp, None, None
    return vp, note.content, note.etag


def _invalid(found: list[dict[str, str]]) -> ValidationFailed:
    return ValidationFailed(
        f"not a scene the Excalidraw plugin can open: {len(found)} problem(s), first: {found[0]['where']}."
        f"{found[0]['field']} {found[0]['problem']}",
        details={"reason": "invalid_scene", "problems": found[:50], "total": len(found)},
        hint="Fix every item in details.problems; nothing was written.",
    )


def _with_raw_text(elements: list[dict[str, Any]], old: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Text elements whose `text` was edited get the same raw text (the plugin reads a text
    element's words from its raw text); a new one without raw text gets its text."""
    before = {e.get("id"): e for e in old}
    out: list[dict[str, Any]] = []
    for element in elements:
        if element.get("type") == "text" and isinstance(element.get("text"), str):
            prior = before.get(element.get("id"))
            edited = (
                prior is not None
                and element["text"] != prior.get("text")
                and element.get("rawText") == prior.get("rawText")
            )
            if edited or (prior is None and not element.get("rawText")):
                element = {**element, "rawText": element["text"], "originalText": element["text"]}
        out.append(element)
    return out


def _added(drawing: ex.Drawing, specs: list[NewElement]) -> list[dict[str, Any]]:
    elements = ex.elements_of(drawing.scene)
    taken = {str(e.get("id")) for e in elements}
    found: list[dict[str, str]] = []
    for i, spec in enumerate(specs):
        where = f"add[{i}]"
        if spec.type == "text" and not spec.text:
            found.append({"where": where, "field": "text", "problem": "missing (a text element needs its text)"})
        if spec.type in ("arrow", "line") and spec.text:
            found.append(
                {"where": where, "field": "text", "problem": "a label goes on a text, rectangle, ellipse or diamond"}
            )
        if spec.id is not None and not ex.BLOCK_ID.match(spec.id):
            found.append({"where": where, "field": "id", "problem": "must be 8 letters or digits"})
        elif spec.id is not None and spec.id in taken:
            found.append({"where": where, "field": "id", "problem": f"duplicate id {spec.id!r}"})
        elif spec.id is not None:
            taken.add(spec.id)
    if found:
        raise _invalid(found)
    rng = random.SystemRandom()
    made: list[dict[str, Any]] = []
    for spec in specs:
        short = {k: v for k, v in spec.model_dump(exclude={"vault", "idempotency_key"}).items() if v is not None}
        made += ex.new_elements(short, spec.id or ex.new_id(taken, rng), taken, rng)
    return made


async def _drawing(
    ctx: ToolContext, args: WriteExcalidrawIn
) -> tuple[VaultPath, ex.Drawing, str | None, list[str], dict[str, str]]:
    """(where, the drawing as it will be written, the etag it was read at, ids added, ids renamed)."""
    if (args.elements is None) == (args.add is None):
        raise ValidationFailed(
            "give exactly one of elements (replace the scene) and add (add to it)",
            details={"field": "elements", "reason": "elements_or_add"},
        )
    if args.add is not None and (args.app_state is not None or args.files is not None):
        raise ValidationFailed(
            "app_state and files go with elements, not with add", details={"field": "add", "reason": "elements_or_add"}
        )
    vp, content, etag = await _target(ctx, args.path)
    if content is None:
        drawing = ex.new_drawing()
        if vp.rel.lower().endswith(".excalidraw"):
            drawing.form, drawing.compressed = "json", False
    else:
        drawing = await load(vp, content)
    old = ex.elements_of(drawing.scene)
    scene = copy.copy(drawing.scene)
    added: list[dict[str, Any]] = []
    renamed: dict[str, str] = {}
    if args.elements is not None:
        elements, renamed = ex.with_block_ids(list(args.elements), random.SystemRandom())
        found = ex.problems(elements)
        if found:
            raise _invalid(found)
        scene["elements"] = _with_raw_text([dict(e) for e in elements], old)
        if args.app_state is not None:
            scene["appState"] = args.app_state
        if args.files is not None:
            scene["files"] = args.files
    else:
        added = _added(drawing, args.add or [])
        scene["elements"] = [*old, *added]
    drawing.scene = scene
    if args.compressed is not None and drawing.form == "markdown":
        drawing.compressed = args.compressed
    return vp, drawing, etag, [e["id"] for e in added], renamed


async def write_excalidraw(ctx: ToolContext, args: WriteExcalidrawIn) -> WriteExcalidrawOut:
    vp, drawing, etag, added, renamed = await _drawing(ctx, args)
    text = await asyncio.to_thread(ex.render, drawing)
    # Adding is a read-modify-write: guarded by the etag it read, so nothing written meanwhile is lost.
    expected = args.expected_etag if args.expected_etag is not None or args.add is None else etag
    result = await ctx.vault.files.write(vp, text, expected_etag=expected, create_only=args.create_only)
    shown = ex.live(ex.elements_of(drawing.scene))
    return WriteExcalidrawOut(
        path=vp.rel,
        title=_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        etag=result.etag,
        created=result.created,
        changed=result.created or text != drawing.text,
        elements=len(shown),
        text_elements=sum(1 for e in shown if e.get("type") == "text"),
        added=added,
        renamed=renamed,
    )


async def write_excalidraw_confirm(ctx: ToolContext, args: WriteExcalidrawIn) -> ChangePreview | None:
    if args.create_only or args.elements is None:
        return None  # adding keeps every element there is
    vp, drawing, _, _, _ = await _drawing(ctx, args)
    text = await asyncio.to_thread(ex.render, drawing)
    why = overwrite_preview(ctx, vp, len(text.encode()), args.expected_etag)
    return None if why is None else ChangePreview.of(why, [vp.rel])


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="read_excalidraw",
        domain="obsidian",
        title="Read an Excalidraw drawing",
        description="Read an Obsidian Excalidraw drawing (.excalidraw.md note, compressed or not, or .excalidraw "
        "file) without Obsidian: elements counted by type, text elements with their ids, element links, embedded "
        "files, optionally the whole scene, and the etag for write_excalidraw.",
        input_model=ReadExcalidrawIn,
        output_model=ExcalidrawOut,
        handler=read_excalidraw,
        path_args=("path",),
    ),
    ToolSpec(
        name="write_excalidraw",
        domain="obsidian",
        title="Write an Excalidraw drawing",
        description="Create or replace an Excalidraw drawing's elements (validated as a whole first), or add text "
        "and simple shapes to it; written as the Excalidraw plugin writes it (Text Elements section with block "
        "ids, compressed scene), unchanged parts byte for byte. Replacing without expected_etag needs confirmation.",
        input_model=WriteExcalidrawIn,
        output_model=WriteExcalidrawOut,
        handler=write_excalidraw,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=write_excalidraw_confirm,
        idempotent=False,
        path_args=("path",),
    ),
)
