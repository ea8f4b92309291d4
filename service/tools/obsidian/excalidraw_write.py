"""obsidian domain, Excalidraw: write_excalidraw.

Replaces a drawing's elements (validated as a whole first: ids, types, geometry, text; every
problem reported at once; text elements given block ids) or adds short elements (text, simple
shapes, a shape's label) to what is there. Everything the call did not change is written back
as it was, so a scene read and written unchanged is the same bytes; new drawings are
`.excalidraw.md` notes with a compressed scene, the form the plugin writes. Replacing a non-empty
drawing without `expected_etag` needs confirmation, as write_canvas does. Calls on one drawing run
one at a time and write only if the file is still what they read (a new drawing: create-only;
`service.tools.obsidian.rewrite`): concurrent `add`s without an etag each add onto the drawing as
the one before left it (the first creates it), one with a stale etag is a `conflict`, and a
drawing made or filled since the confirmation check is never replaced unasked (`conflict`).
Finding and loading a drawing: `excalidraw.py`.
Touches: `.excalidraw.md` notes and `.excalidraw` files (through `VaultFiles`, so the index sees
each write; the index leaves the scene block out of a drawing note's words).
"""

from __future__ import annotations

import asyncio
import copy
import random
from typing import Any, Literal

from pydantic import Field

from service.errors import AlreadyExists, NoteNotFound, ValidationFailed
from service.obsidian import excalidraw as ex
from service.obsidian import excalidraw_elements as els
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.models import JsonValue, ToolInput, ToolOutput
from service.tools.notes.targets import overwrite_preview, shown_etag
from service.tools.obsidian.excalidraw import drawing_title, load, locate, unbracketed
from service.tools.obsidian.rewrite import check_replace, current, rewrite
from service.tools.spec import ToolSpec
from service.vault.files import NoteFile
from service.vault.paths import VaultPath, normalize

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
    text = unbracketed(path)
    low = text.lower()
    if low.endswith(".md"):
        return text
    return text + (".md" if low.endswith(".excalidraw") else ".excalidraw.md")


async def _target(ctx: ToolContext, path: str) -> VaultPath:
    """Where to write: the drawing `path` names, else the new drawing's path."""
    try:
        return await locate(ctx, path, "write")
    except NoteNotFound:
        return ctx.resolve(normalize(_new_name(path)), "write")


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
    elements = els.elements_of(drawing.scene)
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
        if spec.id is not None and not els.BLOCK_ID.match(spec.id):
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
        made += els.new_elements(short, spec.id or els.new_id(taken, rng), taken, rng)
    return made


def _check(args: WriteExcalidrawIn) -> None:
    if (args.elements is None) == (args.add is None):
        raise ValidationFailed(
            "give exactly one of elements (replace the scene) and add (add to it)",
            details={"field": "elements", "reason": "elements_or_add"},
        )
    if args.add is not None and (args.app_state is not None or args.files is not None):
        raise ValidationFailed(
            "app_state and files go with elements, not with add", details={"field": "add", "reason": "elements_or_add"}
        )


async def _built(
    vp: VaultPath, note: NoteFile | None, args: WriteExcalidrawIn
) -> tuple[ex.Drawing, list[str], dict[str, str]]:
    """(the drawing as it will be written, ids added, ids renamed), from the drawing `note` holds
    (None: a new one)."""
    if note is None:
        drawing = ex.new_drawing()
        if vp.rel.lower().endswith(".excalidraw"):
            drawing.form, drawing.compressed = "json", False
    else:
        drawing = await load(vp, note.content)
    old = els.elements_of(drawing.scene)
    scene = copy.copy(drawing.scene)
    added: list[dict[str, Any]] = []
    renamed: dict[str, str] = {}
    if args.elements is not None:
        elements, renamed = els.with_block_ids(list(args.elements), random.SystemRandom())
        found = els.problems(elements)
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
    return drawing, [e["id"] for e in added], renamed


async def write_excalidraw(ctx: ToolContext, args: WriteExcalidrawIn) -> WriteExcalidrawOut:
    _check(args)
    vp = await _target(ctx, args.path)

    async def build(note: NoteFile | None) -> tuple[str, tuple[ex.Drawing, list[str], dict[str, str], str]]:
        if note is not None and args.create_only:
            raise AlreadyExists(f"a drawing already exists at {vp.rel!r}", details={"path": vp.rel})
        if args.elements is not None:
            check_replace(ctx, vp, note, args.expected_etag)
        drawing, added, renamed = await _built(vp, note, args)
        text = await asyncio.to_thread(ex.render, drawing)
        return text, (drawing, added, renamed, text)

    # One call at a time on this drawing, written only if it is still what the call read (a new
    # one: create-only); `add` without expected_etag is applied again on a drawing changed meanwhile.
    # A confirmed replace writes over the version the human was shown, or fails with `conflict`.
    approved = shown_etag(ctx, vp, args.expected_etag)
    result, (drawing, added, renamed, text) = await rewrite(ctx, vp, build, expected_etag=approved)
    shown = els.live(els.elements_of(drawing.scene))
    return WriteExcalidrawOut(
        path=vp.rel,
        title=drawing_title(vp.rel),
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
    _check(args)
    vp = await _target(ctx, args.path)
    drawing, _, _ = await _built(vp, current(ctx, vp), args)
    text = await asyncio.to_thread(ex.render, drawing)
    why = await overwrite_preview(ctx, vp, len(text.encode()), args.expected_etag)
    return None if why is None else ChangePreview.of(why, [vp.rel])


TOOLS: tuple[ToolSpec, ...] = (
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
