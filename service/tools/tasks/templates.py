"""tasks domain, templates: list_templates, apply_template (and the template step of
create_periodic_note).

The core Templates plugin: the folder and the default date/time formats come from
`.obsidian/templates.json` (`folder`, `dateFormat`, `timeFormat`; read-only); locale weeks follow
the vault's week rule (`vault_week`: the Calendar plugin's `data.json` or Periodic Notes 1.0's
keys in `.obsidian/app.json`, else the `notes.week_locale` / `notes.week_start` settings). Variables and the
property merge are `service.markdown.templates`. Applying to a new note creates it (the template's
properties become its frontmatter); applying to an existing note inserts the template's body at a
position (the anchors of patch_note) and merges its properties into the note's. Touches: vault
files through `VaultFiles` (atomic, etag-checked); the `notes` index table to list templates.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import Field, model_validator

from service.dates.locales import APP_CONFIG, CALENDAR_DATA, WeekRule, week_rule
from service.errors import NoteNotFound, ValidationFailed
from service.graph.taken_links import TakenLink
from service.markdown import sections
from service.markdown import templates as tpl
from service.markdown.parse import note_title
from service.tools.context import ToolContext, link_target
from service.tools.models import HeadingPath, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.notes.write import WriteOut, write_out
from service.tools.notes.write_out import taken_links, with_taken
from service.tools.spec import ToolSpec
from service.vault.paths import VaultPath
from service.vault.settings_files import read_json

TEMPLATES_JSON = ".obsidian/templates.json"


def _settings(ctx: ToolContext) -> dict[str, str]:
    data = read_json(ctx.vault.paths.root, TEMPLATES_JSON)
    data = data if isinstance(data, dict) else {}

    def text(key: str, default: str) -> str:
        value = data.get(key)
        return value.strip() if isinstance(value, str) and value.strip() else default

    return {
        "folder": text("folder", "").strip("/"),
        "date_format": text("dateFormat", tpl.DEFAULT_DATE_FORMAT),
        "time_format": text("timeFormat", tpl.DEFAULT_TIME_FORMAT),
    }


def vault_week(ctx: ToolContext) -> WeekRule:
    """The week rule of this vault's locale weeks (see `service.dates.locales`)."""
    root, notes = ctx.vault.paths.root, ctx.services.settings.notes
    return week_rule(read_json(root, CALENDAR_DATA), read_json(root, APP_CONFIG), notes.week_locale, notes.week_start)


def render_template(
    ctx: ToolContext, template: VaultPath, title: str, now: datetime, date_format: str | None = None
) -> tuple[dict[str, Any], str, str]:
    """A template note rendered for a note called `title`: (its properties, its body, all of it).
    `date_format` replaces the configured default of `{{date}}` (periodic notes use their own)."""
    settings = _settings(ctx)
    text = tpl.render(
        ctx.vault.files.read(template).content,
        title=title,
        now=now,
        date_format=date_format or settings["date_format"],
        time_format=settings["time_format"],
        week=vault_week(ctx).week,
    )
    props, body = tpl.split(text, template.rel)
    return props, body, text


async def find_template(ctx: ToolContext, name: str) -> VaultPath:
    """A template by its path, or by its name inside the templates folder; a miss names the
    closest templates of that folder first."""
    folder = _settings(ctx)["folder"]
    if folder and "/" not in name.strip("/"):
        try:
            return (await ctx.find_note(f"{folder}/{name}", "read", section="reject")).vp
        except NoteNotFound:
            pass
    try:
        return (await ctx.find_note(name, "read", section="reject")).vp
    except NoteNotFound as exc:
        close = _close_templates(ctx, folder, name) if folder else []
        others = [s for s in exc.details.get("suggestions", []) if s not in close]
        raise NoteNotFound(
            f"no template {name!r}" + (f" in {folder!r} or the vault" if folder else " (no templates folder is set)"),
            details={**exc.details, "suggestions": [*close, *others][:5]},
            hint="Pass one of details.suggestions; list_templates lists the templates folder."
            if close or others
            else "list_templates lists the templates folder.",
        ) from None


def _close_templates(ctx: ToolContext, folder: str, name: str) -> list[str]:
    """The templates of `folder` whose names are closest to `name` (any letter case)."""
    import difflib

    root = ctx.resolve(folder, "read", allow_root=True)
    if not root.abs.is_dir():
        return []
    by_title: dict[str, str] = {}
    for rel, entry in ctx.vault.files.walk(root, readable=ctx.walk_filter()):
        if rel.lower().endswith(".md") and not entry.is_dir():
            by_title.setdefault(note_title(rel).lower(), rel)
    wanted = link_target(name).rsplit("/", 1)[-1].lower().removesuffix(".md")
    return [by_title[t] for t in difflib.get_close_matches(wanted, list(by_title), n=5, cutoff=0.5)]


# -- list_templates ------------------------------------------------------------------------------


class ListTemplatesIn(ToolInput):
    limit: int = Field(default=100, ge=1, le=1000, description="Page size.")
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page.")


class TemplateItem(ToolOutput):
    path: str = Field(description="Vault-relative path of the template note.")
    title: str = Field(description="Template name.")
    obsidian_url: str = Field(description="obsidian://open URL.")


class ListTemplatesOut(ToolOutput):
    folder: str | None = Field(description="The templates folder (.obsidian/templates.json), None when not set.")
    date_format: str = Field(description="Default {{date}} format.")
    time_format: str = Field(description="Default {{time}} format.")
    items: list[TemplateItem] = Field(description="Template notes of this page, by path.")
    next_cursor: str | None = Field(description="Cursor of the next page, None at the end.")


async def list_templates(ctx: ToolContext, args: ListTemplatesIn) -> ListTemplatesOut:
    settings = _settings(ctx)
    folder = settings["folder"]
    found: list[TemplateItem] = []
    if folder:
        root = ctx.resolve(folder, "read", allow_root=True)
        if root.abs.is_dir():
            for rel, entry in ctx.vault.files.walk(root, readable=ctx.walk_filter()):
                if rel.lower().endswith(".md") and not entry.is_dir():
                    found.append(TemplateItem(path=rel, title=note_title(rel), obsidian_url=ctx.vault.url(rel)))
    found.sort(key=lambda i: i.path)
    window, nxt = page_of(found, decode_cursor(args.cursor, f=folder), args.limit, f=folder)
    return ListTemplatesOut(
        folder=folder or None,
        date_format=settings["date_format"],
        time_format=settings["time_format"],
        items=window,
        next_cursor=nxt,
    )


# -- apply_template ------------------------------------------------------------------------------


class ApplyTemplateIn(ToolInput):
    template: str = Field(description="Template: its name in the templates folder, or a note path.")
    path: str = Field(
        description="Target note. A new path creates the note; an existing note gets the template inserted."
    )
    heading: HeadingPath | None = Field(default=None, description="Insert relative to this section (heading path).")
    block: str | None = Field(default=None, description="Insert relative to this block id ('^' optional).")
    anchor: str | None = Field(default=None, description="Insert relative to this text, which occurs once in the note.")
    position: sections.Position = Field(
        default="append",
        description="before/after the target, prepend/append inside it (without a target: append at the end or "
        "prepend after the frontmatter).",
    )
    date: str | None = Field(
        default=None, description="Date and time the variables stand for (ISO, e.g. 2026-11-24T09:30; default now)."
    )
    expected_etag: str | None = Field(default=None, description="Etag of the existing target you read.")

    @model_validator(mode="after")
    def _one_target(self) -> ApplyTemplateIn:
        if sum(x is not None for x in (self.heading, self.block, self.anchor)) > 1:
            raise ValueError("give at most one target: heading, block or anchor")
        if self.position == "replace":
            raise ValueError("apply_template inserts; position 'replace' is not supported")
        return self


class ApplyTemplateOut(WriteOut):
    template: str = Field(description="Vault path of the template applied.")


def when(value: str | None) -> datetime:
    if value is None:
        return datetime.now()
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise ValidationFailed(f"not an ISO date or date-time: {value!r}", details={"field": "date"}) from None


def _inserted(args: ApplyTemplateIn, text: str, body: str) -> str:
    if args.anchor is not None:
        offset = sections.find_anchor(text, args.anchor)
        return sections.patch_anchor(text, offset, args.anchor, args.position, body)
    block = body if body.endswith("\n") else body + "\n"
    if args.heading is not None:
        return sections.patch_lines(text, sections.find_heading(text, args.heading), args.position, block)
    if args.block is not None:
        span = sections.find_block(text, args.block.lstrip("^"))
        return sections.patch_lines(text, span, args.position, block)
    if args.position in ("before", "prepend"):
        return sections.insert_after_frontmatter(text, block)
    return text + ("" if not text or text.endswith("\n") else "\n") + block


def _inserting(args: ApplyTemplateIn, rel: str, props: dict[str, Any], body: str) -> Callable[[str], str]:
    """The edit of an existing note at `rel`: the body inserted, the properties merged."""

    def change(text: str) -> str:
        return tpl.merge_properties(_inserted(args, text, body), rel, props)

    return sections.keeping_crlf(change)


def _new_note(args: ApplyTemplateIn, rel: str) -> None:
    if any(x is not None for x in (args.heading, args.block, args.anchor)):
        raise NoteNotFound(f"no note at {rel!r} to insert into", details={"path": rel})


def applied(ctx: ToolContext, args: ApplyTemplateIn, template: VaultPath, rel: str, text: str | None) -> str:
    """The text of the note at `rel` (now `text`; None: no note there, one is made) once the
    template at `template` is applied with `args`, as apply_template writes it (a plan's check
    foresees the step with it: `service.tools.sessions.plan_texts`). Reads the template."""
    props, body, whole = render_template(ctx, template, note_title(rel), when(args.date))
    if text is None:
        _new_note(args, rel)
        return whole
    return _inserting(args, rel, props, body)(text)


async def apply_template(ctx: ToolContext, args: ApplyTemplateIn) -> ApplyTemplateOut:
    template = await find_template(ctx, args.template)
    now = when(args.date)
    target = (await ctx.find_note(args.path, "write", section="reject", missing_ok=True)).vp
    props, body, whole = render_template(ctx, template, note_title(target.rel), now)
    taken: list[TakenLink] = []
    if not target.abs.exists() and args.expected_etag is None:
        _new_note(args, target.rel)
        taken = await taken_links(ctx, [target.rel])  # links to another note of its name it takes, as create_note's
        result = await ctx.vault.files.write(target, whole, create_only=True)
    else:
        change = _inserting(args, target.rel, props, body)
        result = await ctx.vault.files.modify(target, change, expected_etag=args.expected_etag)
    out = with_taken(write_out(ctx, target, result), taken)
    return ApplyTemplateOut(**out.model_dump(), template=template.rel)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_templates",
        domain="tasks",
        title="List templates",
        description="The template notes of the core Templates plugin's folder (.obsidian/templates.json) and its "
        "default date and time formats. Apply one with apply_template.",
        input_model=ListTemplatesIn,
        output_model=ListTemplatesOut,
        handler=list_templates,
    ),
    ToolSpec(
        name="apply_template",
        domain="tasks",
        title="Apply a template",
        description="Fill a template ({{title}}, {{date}}, {{time}}, {{date:YYYY-MM-DD}}) and create a new note "
        "from it, or insert it into an existing note at a heading, block or text anchor (as patch_note); its "
        "properties are merged into the note's (missing keys added, lists united, existing values kept).",
        input_model=ApplyTemplateIn,
        output_model=ApplyTemplateOut,
        handler=apply_template,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
    ),
)
