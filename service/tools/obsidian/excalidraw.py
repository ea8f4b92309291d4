"""obsidian domain, Excalidraw: read_excalidraw, and how both Excalidraw tools find and load a drawing.

Drawings of the Obsidian Excalidraw plugin, read and written without Obsidian (file format:
`service.obsidian.excalidraw`, elements: `service.obsidian.excalidraw_elements`): a drawing note
(`.excalidraw.md`, or a note whose frontmatter has `excalidraw-plugin`) with its scene in a
`compressed-json` (LZ-string) or `json` block, and a plain `.excalidraw` file. A drawing is named
like a note — its path, its name as a wikilink names it (`Sketch.excalidraw`), or its name alone
(`Sketch`) — with the path ACL applied to the file found. Decompressing a scene is bounded by
`[limits] max_value_bytes` (an LZ bomb is `compute_budget_exceeded`, limit `bytes`); the work runs
off the event loop. Writing: `excalidraw_write.py`.
Touches: `.excalidraw.md` notes and `.excalidraw` files (read).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Literal

from pydantic import Field

from service import budget
from service.errors import NotANote, NoteNotFound, ValidationFailed
from service.markdown.parse import note_title
from service.obsidian import excalidraw as ex
from service.obsidian import excalidraw_elements as els
from service.obsidian.lzstring import DecompressTooLarge
from service.tools.context import ToolContext
from service.tools.models import JsonValue, ToolInput, ToolOutput
from service.tools.spec import ToolSpec
from service.vault.paths import VaultPath, normalize

# -- finding and loading a drawing -------------------------------------------------------------


def unbracketed(path: str) -> str:
    text = path.strip()
    return text[2:-2] if len(text) > 4 and text.startswith("[[") and text.endswith("]]") else text


async def locate(ctx: ToolContext, path: str, op: Literal["read", "write"]) -> VaultPath:
    """The existing drawing `path` names: a plain `.excalidraw` file at that path, else the note
    it names (`.md` optional, any note address), else the `.excalidraw` file of that name; for a
    bare name, `<name>.excalidraw` so (the note `<name>.excalidraw.md` first), else the note."""
    text = unbracketed(path)
    low = text.lower()
    if low.endswith(".md"):
        return (await ctx.find_note(text, op, section="reject")).vp
    if low.endswith(".excalidraw"):
        return await _drawing(ctx, text, op)
    try:
        return await _drawing(ctx, text + ".excalidraw", op)
    except NoteNotFound:  # the note's own answer: its suggestions, a canvas or image of that name
        return (await ctx.find_note(text, op, section="reject")).vp


async def _drawing(ctx: ToolContext, text: str, op: Literal["read", "write"]) -> VaultPath:
    """What `X.excalidraw` names: the file at that path, the note `X.excalidraw.md`, else the
    `.excalidraw` file of that name in any folder (`find_file`)."""
    vp = ctx.resolve(normalize(text), op)
    if vp.abs.is_file():
        return vp
    try:
        return (await ctx.find_note(text, op, section="reject")).vp
    except NotANote as exc:  # no note: the plain drawing of that name, which find_note names
        if exc.details.get("kind") != "drawing":
            raise
    except NoteNotFound:
        pass
    return await ctx.find_file(text, op)


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


def drawing_title(rel: str) -> str:
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
    elements = els.elements_of(drawing.scene)
    shown = els.live(elements)
    texts = [e for e in shown if e.get("type") == "text" and isinstance(e.get("id"), str)]
    order = {ident: i for i, ident in enumerate(drawing.section_texts)}
    texts.sort(key=lambda e: order.get(e["id"], len(order)))
    text_out = [
        TextElement(
            id=e["id"],
            # the note's Text Elements section wins over the scene, as in the plugin
            text=drawing.section_texts.get(e["id"], els.element_text(e)),
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
        title=drawing_title(vp.rel),
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
)
