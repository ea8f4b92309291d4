"""properties domain, per note: read and edit one note's frontmatter properties and tags.

Tools: get_properties, set_properties, delete_property, add_tags, remove_tags (a tag renamed in
every note: `tag_rename.py`).
Touches: vault files through `VaultFiles.modify` (read-modify-write under the per-path lock,
etag-checked, publishing "modified").
Edits are round-trip (`service.markdown.yaml_edit`): key order, comments, quoting and the
other keys stay as written; a note without frontmatter gets one; invalid YAML is a
`validation_error` (details.reason "invalid_frontmatter") and nothing is written.
`set_properties` merges: each given key is set, a `null` value removes the key (JSON Merge
Patch, RFC 7396); write an empty string or list to keep an empty property.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from service.errors import ValidationFailed
from service.markdown import line_ends, sections, yaml_edit
from service.markdown.parse import note_title, parse_note
from service.markdown.tag_edit import check_tag, edit_inline_tags
from service.tools.context import ToolContext
from service.tools.graph_common import (
    LineChangeItem,
    diff_lines,
    note_item,
)
from service.tools.models import NOTE_ADDRESS, HeadingPath, ToolInput, ToolOutput
from service.tools.obsidian.config import fit_declared
from service.vault import offloop

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap
from service.tools.spec import ToolSpec


class PathIn(ToolInput):
    path: str = Field(description=NOTE_ADDRESS)


class PropertiesOut(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    etag: str = Field(description="Content hash; pass as expected_etag to edit safely.")
    properties: dict[str, Any] = Field(description="Frontmatter properties as JSON (dates as ISO strings).")
    frontmatter_error: str | None = Field(default=None, description="Set when the frontmatter is not valid YAML.")


async def get_properties(ctx: ToolContext, args: PathIn) -> PropertiesOut:
    vp = (await ctx.find_note(args.path, "read")).vp
    note = ctx.vault.files.read(vp)
    props, error = await asyncio.to_thread(yaml_edit.read, note.content, vp.rel)  # YAML parsing: off the loop
    return PropertiesOut(
        **note_item(ctx, vp.rel, note_title(vp.rel)),
        etag=note.etag,
        properties=props,
        frontmatter_error=error,
    )


class EditOut(PropertiesOut):
    changed: bool = Field(description="False when the note already had these values (nothing written).")
    changes: list[LineChangeItem] = Field(description="Each line that changed.")


class SetPropertiesIn(PathIn):
    properties: dict[str, Any] = Field(
        description="Properties to set (merged into the frontmatter); a null value removes that key. A property "
        "typed in .obsidian/types.json is written as that type (one text for a list is a list of one)."
    )
    expected_etag: str | None = Field(
        default=None, description="Fail with `conflict` unless the note still has this etag."
    )


class DeletePropertyIn(PathIn):
    key: str = Field(min_length=1, description="Property to remove.")
    expected_etag: str | None = Field(
        default=None, description="Fail with `conflict` unless the note still has this etag."
    )


class TagsIn(PathIn):
    tags: list[str] = Field(min_length=1, description="Tags to add ('#' optional).")
    expected_etag: str | None = Field(
        default=None, description="Fail with `conflict` unless the note still has this etag."
    )


class AddTagsIn(TagsIn):
    inline: bool = Field(
        default=False,
        description="Write #tags in the body instead of the frontmatter: on a line at the end of the note, or at "
        "the end of the `heading` section.",
    )
    heading: HeadingPath | None = Field(
        default=None, description="With inline=true: the section to add them to (heading path, e.g. ['Notes'])."
    )

    @model_validator(mode="after")
    def _heading_needs_inline(self) -> AddTagsIn:
        if self.heading is not None and not self.inline:
            raise ValueError("heading applies only with inline=true")
        return self


class RemoveTagsIn(TagsIn):
    tags: list[str] = Field(min_length=1, description="Tags to remove (exact names, case-insensitive; '#' optional).")
    inline: bool = Field(default=False, description="Also remove inline #tag occurrences from the body.")


Edit = Callable[[str, str], str]  # a note's LF text and its path -> its text after the edit


async def _edit(ctx: ToolContext, path: str, expected_etag: str | None, edit: Edit) -> EditOut:
    vp = (await ctx.find_note(path, "write", section="reject")).vp

    def change(text: str, rel: str) -> str:  # on the LF form; written with the note's line ends
        return line_ends.keeping(lambda lf: edit(lf, rel))(text)

    # a stale etag fails before any conversion work (a long note is hashed in a worker thread)
    await offloop.sized(offloop.size_of(vp), ctx.vault.files.check_etag, vp, expected_etag)
    before = (await offloop.read(ctx.vault.files.read, vp)).content
    holder: dict[str, str] = {}

    def apply(text: str) -> str:
        holder["before"] = text
        holder["after"] = change(text, vp.rel)
        return holder["after"]

    if await offloop.sized(len(before), change, before, vp.rel) == before and expected_etag is None:
        note = await offloop.read(ctx.vault.files.read, vp)
        changed, text, etag = False, note.content, note.etag
        holder["before"] = holder["after"] = text
    else:
        result = await ctx.vault.files.modify(vp, apply, expected_etag=expected_etag)
        changed, text, etag = holder["before"] != holder["after"], holder["after"], result.etag

    def answer() -> tuple[dict[str, Any], list[LineChangeItem]]:
        diff = diff_lines(holder["before"], holder["after"])
        changes = [LineChangeItem(line=c.line, before=c.before, after=c.after) for c in diff]
        return yaml_edit.read(text, vp.rel)[0], changes  # an edit may leave more than `load` reads

    properties, changes = await offloop.sized(len(text), answer)
    return EditOut(
        **note_item(ctx, vp.rel, note_title(vp.rel)),
        etag=etag,
        properties=properties,
        changed=changed,
        changes=changes,
    )


def _check_keys(keys: list[str]) -> None:
    for key in keys:
        if not key.strip() or "\n" in key:
            raise ValidationFailed(
                f"invalid property name {key!r}",
                details={"field": "properties", "key": key, "reason": "invalid_property_name"},
                hint="A property name needs a visible character and no line break (Obsidian's Properties view "
                "takes no other): name it as Obsidian shows it; get_properties lists the note's, list_properties "
                "the vault's. Nothing was written.",
            )


async def set_properties(ctx: ToolContext, args: SetPropertiesIn) -> EditOut:
    return await _edit(ctx, args.path, args.expected_etag, note_edit(ctx, args))


async def delete_property(ctx: ToolContext, args: DeletePropertyIn) -> EditOut:
    return await _edit(ctx, args.path, args.expected_etag, note_edit(ctx, args))


def _add_inline(text: str, rel: str, wanted: list[str], heading: list[str] | None) -> str:
    """`text` with the `wanted` tags it lacks (in frontmatter or body) written as #tags."""
    have = {t.lower() for t in parse_note(rel, text).tags}
    added = [t for t in dict.fromkeys(wanted) if t.lower() not in have]
    if not added:
        return text
    line = " ".join(f"#{t}" for t in added) + "\n"
    if heading:
        return sections.patch_lines(text, sections.find_heading(text, heading), "append", line)
    if text and not text.endswith("\n"):
        text += "\n"
    return text + line


async def add_tags(ctx: ToolContext, args: AddTagsIn) -> EditOut:
    return await _edit(ctx, args.path, args.expected_etag, note_edit(ctx, args))


async def remove_tags(ctx: ToolContext, args: RemoveTagsIn) -> EditOut:
    return await _edit(ctx, args.path, args.expected_etag, note_edit(ctx, args))


def note_edit(ctx: ToolContext, args: SetPropertiesIn | DeletePropertyIn | AddTagsIn | RemoveTagsIn) -> Edit:
    """The edit a property or tag tool makes of one note's LF text, `(text, rel) -> text`; its
    argument errors are raised here, before any note is read. A plan's check foresees a note's
    text with it too (`service.tools.sessions.plan_texts`)."""
    if isinstance(args, SetPropertiesIn):
        _check_keys(list(args.properties))
        wanted = fit_declared(ctx, args.properties)

        def put(data: CommentedMap) -> None:
            for key, value in wanted.items():
                if value is None:
                    data.pop(key, None)
                elif yaml_edit.plain(data.get(key)) != value or key not in data:
                    data[yaml_edit.yaml_text(key)] = yaml_edit.to_yaml_value(value)

        return lambda text, rel: yaml_edit.edit_frontmatter(text, rel, put)
    if isinstance(args, DeletePropertyIn):
        return lambda text, rel: yaml_edit.edit_frontmatter(text, rel, lambda data: data.pop(args.key, None) and None)
    tags = [check_tag(t) for t in args.tags]
    if isinstance(args, AddTagsIn):
        return _adding(tags, args)
    return _removing({t.lower() for t in tags}, args.inline)


def _adding(wanted: list[str], args: AddTagsIn) -> Edit:
    def change(text: str, rel: str) -> str:
        if args.inline:
            return _add_inline(text, rel, wanted, args.heading)

        def mutate(data: CommentedMap) -> None:
            _, current = yaml_edit.tag_list(data)
            have = {t.lower() for t in current}
            added = [t for t in dict.fromkeys(wanted) if t.lower() not in have]
            if added:
                yaml_edit.set_tags(data, current + added)

        return yaml_edit.edit_frontmatter(text, rel, mutate)

    return change


def _removing(gone: set[str], inline: bool) -> Edit:
    def change(text: str, rel: str) -> str:
        def mutate(data: CommentedMap) -> None:
            key, current = yaml_edit.tag_list(data)
            if key is not None and any(t.lower() in gone for t in current):
                yaml_edit.set_tags(data, [t for t in current if t.lower() not in gone])

        text = yaml_edit.edit_frontmatter(text, rel, mutate)
        if inline:
            text = edit_inline_tags(text, lambda t: "" if t.lower() in gone else None)
        return text

    return change


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_properties",
        domain="properties",
        title="Get properties",
        description="A note's frontmatter properties as JSON, with its etag. To change them use set_properties.",
        input_model=PathIn,
        output_model=PropertiesOut,
        handler=get_properties,
    ),
    ToolSpec(
        name="set_properties",
        domain="properties",
        title="Set properties",
        description="Merge properties into a note's frontmatter (null removes a key), keeping order, comments "
        "and quoting of everything else; creates the frontmatter when missing. For tags prefer "
        "add_tags / remove_tags.",
        input_model=SetPropertiesIn,
        output_model=EditOut,
        handler=set_properties,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
    ),
    ToolSpec(
        name="delete_property",
        domain="properties",
        title="Delete a property",
        description="Remove one property from a note's frontmatter; the rest stays as written.",
        input_model=DeletePropertyIn,
        output_model=EditOut,
        handler=delete_property,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
    ),
    ToolSpec(
        name="add_tags",
        domain="properties",
        title="Add tags",
        description="Add tags to a note's frontmatter `tags` list (kept in its style), or with inline=true as "
        "#tags at the end of the note or of a heading's section; existing tags are not duplicated.",
        input_model=AddTagsIn,
        output_model=EditOut,
        handler=add_tags,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
    ),
    ToolSpec(
        name="remove_tags",
        domain="properties",
        title="Remove tags",
        description="Remove tags from a note's frontmatter, and with inline=true also its inline #tag occurrences.",
        input_model=RemoveTagsIn,
        output_model=EditOut,
        handler=remove_tags,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
    ),
)
