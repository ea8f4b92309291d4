"""tasks domain, periodic notes: get_periodic_note, create_periodic_note, append_to_periodic_note.

Where the note of a period lives comes from the settings files (`service.dates.periods`: the
Periodic Notes plugin in both formats, the core Daily notes plugin, Obsidian's defaults), read
through `service.vault.settings_files`; the name is the period's Moment.js format of the date
(`/` in it makes subfolders); locale weeks follow the vault's week rule (`templates.vault_week`).
A new note gets the configured template: filled as the Periodic Notes plugin fills it when its
settings are the source (`service.markdown.periodic_templates`: `{{yesterday}}`, `{{tomorrow}}`,
offsets, weekday names), else as the core Daily notes plugin does (`templates.py`).
Appending to a missing note creates it first, template included, in the same atomic write.
Touches: vault files through `VaultFiles`; `.obsidian/daily-notes.json` and
`.obsidian/plugins/periodic-notes/data.json`, `.obsidian/plugins/calendar/data.json`,
`.obsidian/app.json` (read-only).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from pydantic import Field

from service.dates import iso_day
from service.dates.locales import WEEKDAYS, WeekRule
from service.dates.moment import MomentError
from service.dates.periods import DAILY_NOTES, PERIODIC_NOTES_DATA, Period, PeriodConfig, period_config
from service.errors import ValidationFailed
from service.graph.taken_links import TakenLink
from service.markdown import sections
from service.markdown.parse import note_title
from service.markdown.periodic_templates import render_periodic
from service.tools.context import Op, ToolContext
from service.tools.models import HeadingPath, ToolInput, ToolOutput
from service.tools.notes.note_texts import inserted_outside_open_block
from service.tools.notes.write import WriteOut, write_out
from service.tools.notes.write_out import taken_links, with_taken
from service.tools.spec import ToolSpec
from service.tools.tasks.templates import find_template, render_template, vault_week
from service.vault.paths import VaultPath
from service.vault.settings_files import read_json

ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"


class PeriodIn(ToolInput):
    period: Period = Field(default="daily", description="daily, weekly, monthly, quarterly or yearly.")
    date: str | None = Field(
        default=None, pattern=ISO_DATE, description="A day in the period (YYYY-MM-DD; default today)."
    )


class PeriodicOut(ToolOutput):
    path: str = Field(description="Vault-relative path of the period's note.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    exists: bool = Field(description="Whether the note exists.")
    period: str = Field(description="The period.")
    period_start: str = Field(description="First day of the period the note stands for (YYYY-MM-DD).")
    format: str = Field(description="The Moment.js name format used.")
    folder: str = Field(description="The folder of the period's notes ('' = vault root).")
    template: str | None = Field(default=None, description="The configured template, if any.")
    source: str = Field(description="Where the settings came from: periodic-notes 1.0 / 0.0.17, daily-notes, default.")
    week_rule: str = Field(
        default="",
        description="How locale weeks (ww, gggg) are counted here and where that came from, e.g. 'monday, week 1 "
        "holds 4 January (en-gb, calendar)'.",
    )
    etag: str | None = Field(default=None, description="The note's etag when it exists.")
    content: str | None = Field(default=None, description="The note's text when it exists.")


def _config(ctx: ToolContext, period: Period) -> PeriodConfig:
    root = ctx.vault.paths.root
    week = vault_week(ctx).week
    return period_config(period, read_json(root, PERIODIC_NOTES_DATA), read_json(root, DAILY_NOTES), week)


def starts_empty(ctx: ToolContext, period: Period) -> bool:
    """Whether a new periodic note of `period` starts empty: its settings name no template (a
    plan's check foresees an append that makes one so)."""
    return _config(ctx, period).template is None


async def template_of(ctx: ToolContext, period: Period) -> VaultPath | None:
    """The template a new periodic note of `period` is made from, as the tools find it now (None:
    its settings name none)."""
    config = _config(ctx, period)
    return None if config.template is None else await find_template(ctx, config.template)


def made_text(ctx: ToolContext, args: PeriodIn, rel: str, template: VaultPath | None) -> str:
    """The text the periodic tools make a new note of `args`' period and date at `rel` with, from
    `template` (`template_of`; None: empty) — a plan's check foresees the note so."""
    config, start, _vp = _locate(ctx, args, "read")
    return _rendered(ctx, config, rel, start, template)


def _period(ctx: ToolContext, args: PeriodIn) -> tuple[PeriodConfig, date, str]:
    """The settings of `args`' period, the first day of the period holding its date, and the path
    of that period's note."""
    config = _config(ctx, args.period)
    day = iso_day(args.date) if args.date else date.today()
    try:
        return config, config.start_of(day), config.path_for(day)
    except MomentError as exc:
        raise ValidationFailed(
            str(exc),
            details={"reason": "unsupported_date_format", "format": config.format, "source": config.source},
        ) from None
    except (ValueError, OverflowError):  # the week of 0001-01-01 starts in year 0
        raise _past_the_calendar(day) from None


async def period_check(ctx: ToolContext, args: PeriodIn) -> None:
    """The date names a day and its period a note (`_period`): validate_plan and a dry-run vault's
    preview refuse a date the call refuses (`ToolSpec.static_check`), before anything runs."""
    _period(ctx, args)


def _locate(ctx: ToolContext, args: PeriodIn, op: Op) -> tuple[PeriodConfig, date, VaultPath]:
    config, start, rel = _period(ctx, args)
    if op == "write":  # the answer tells whether the note exists and its etag: reading is needed too
        ctx.resolve_note(rel, "read")
    return config, start, ctx.resolve_note(rel, op)


def _out(ctx: ToolContext, config: PeriodConfig, start: date, vp: VaultPath) -> PeriodicOut:
    note = ctx.vault.files.read(vp) if vp.abs.is_file() else None
    return PeriodicOut(
        path=vp.rel,
        title=note_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        exists=note is not None,
        period=config.period,
        period_start=start.isoformat(),
        format=config.format,
        folder=config.folder,
        template=config.template,
        source=config.source,
        week_rule=_describe(vault_week(ctx)),
        etag=note.etag if note else None,
        content=note.content if note else None,
    )


def _describe(rule: WeekRule) -> str:
    # The day always in week 1: January `7 + dow - doy`, a late December day when that is below 1
    # (ar-kw's (0, 12)); Moment's dv locale writes Sunday as dow 7.
    held = date(2001, 1, 1) + timedelta(days=6 + rule.dow - rule.doy)
    month = "January" if held.month == 1 else "December"
    return f"{WEEKDAYS[rule.dow % 7]}, week 1 holds {held.day} {month} ({rule.locale}, {rule.source})"


async def get_periodic_note(ctx: ToolContext, args: PeriodIn) -> PeriodicOut:
    config, start, vp = _locate(ctx, args, "read")
    return _out(ctx, config, start, vp)


async def _initial_text(ctx: ToolContext, config: PeriodConfig, vp: VaultPath, start: date) -> str:
    template = None if config.template is None else await find_template(ctx, config.template)
    return _rendered(ctx, config, vp.rel, start, template)


def _rendered(ctx: ToolContext, config: PeriodConfig, rel: str, start: date, template: VaultPath | None) -> str:
    if template is None:
        return ""
    if config.source in ("periodic-notes 1.0", "periodic-notes 0.0.17"):
        text = ctx.vault.files.read(template).content
        try:
            return render_periodic(
                text, style=config.source, period=config.period, name=config.name_for(start), start=start,
                now=datetime.now(), fmt=config.format, week=config.week,
            )  # fmt: skip
        except MomentError as exc:
            raise ValidationFailed(
                str(exc), details={"reason": "unsupported_date_format", "template": template.rel}
            ) from None
        except (ValueError, OverflowError):  # {{tomorrow}} of 9999-12-31
            raise _past_the_calendar(start) from None
    # As the core Daily notes plugin does: {{date}} is the note's own date in the period's format.
    now = datetime.combine(start, datetime.now().time())
    return render_template(ctx, template, note_title(rel), now, date_format=config.format)[2]


def _past_the_calendar(day: date) -> ValidationFailed:
    """A date whose period, or a date its template names, falls outside years 1 to 9999 (the
    calendar Python's dates, and so the note names, stop at)."""
    return ValidationFailed(
        f"date {day.isoformat()}: its period or its template reaches past year 1 or 9999",
        details={"field": "date", "reason": "out_of_range"},
        hint="Give a date further from the calendar's ends.",
    )


class CreatePeriodicOut(WriteOut):
    period_start: str = Field(description="First day of the period (YYYY-MM-DD).")
    source: str = Field(description="Where the settings came from.")


async def create_periodic_note(ctx: ToolContext, args: PeriodIn) -> CreatePeriodicOut:
    config, start, vp = _locate(ctx, args, "write")
    if vp.abs.is_file():
        note = ctx.vault.files.read(vp)
        existing = WriteOut(
            path=vp.rel,
            title=note_title(vp.rel),
            obsidian_url=ctx.vault.url(vp.rel),
            etag=note.etag,
            created=False,
            size=note.stat.size,
        )
        return CreatePeriodicOut(**existing.model_dump(), period_start=start.isoformat(), source=config.source)
    text = await _initial_text(ctx, config, vp, start)
    taken = await taken_links(ctx, [vp.rel])  # links to another note of its name it takes, as create_note's
    result = await ctx.vault.files.write(vp, text, create_only=True)
    out = with_taken(write_out(ctx, vp, result), taken)
    return CreatePeriodicOut(**out.model_dump(), period_start=start.isoformat(), source=config.source)


class AppendPeriodicIn(PeriodIn):
    content: str = Field(min_length=1, description="Text to append.")
    heading: HeadingPath | None = Field(
        default=None,
        description="Append at the end of this section (heading path, e.g. ['Log']) instead of the note's end.",
    )
    expected_etag: str | None = Field(default=None, description="Etag of the existing note you read.")


def periodic_appended(text: str, content: str, heading: list[str] | None) -> str:
    """append_to_periodic_note's edit of the note's LF text (a plan's check foresees it so too)."""
    block = content if content.endswith("\n") else content + "\n"
    if heading:
        added = sections.patch_lines(text, sections.find_heading(text, heading), "append", block)
    else:
        text = text + "\n" if text and not text.endswith("\n") else text
        added = text + block
    return inserted_outside_open_block(text, added)  # not into a code block or comment left open


async def append_to_periodic_note(ctx: ToolContext, args: AppendPeriodicIn) -> CreatePeriodicOut:
    config, start, vp = _locate(ctx, args, "write")
    taken: list[TakenLink] = []
    if vp.abs.is_file() or args.expected_etag is not None:
        result = await ctx.vault.files.modify(
            vp,
            sections.keeping_crlf(lambda text: periodic_appended(text, args.content, args.heading)),
            expected_etag=args.expected_etag,
        )
    else:
        text = periodic_appended(await _initial_text(ctx, config, vp, start), args.content, args.heading)
        taken = await taken_links(ctx, [vp.rel])
        result = await ctx.vault.files.write(vp, text, create_only=True)
    out = with_taken(write_out(ctx, vp, result), taken)
    return CreatePeriodicOut(**out.model_dump(), period_start=start.isoformat(), source=config.source)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_periodic_note",
        domain="tasks",
        title="Get a periodic note",
        description="The daily (weekly, monthly, quarterly, yearly) note of a date as Obsidian's Daily notes or "
        "Periodic Notes settings name it: path, whether it exists, its text and etag. To create it use "
        "create_periodic_note; to add to it, append_to_periodic_note.",
        input_model=PeriodIn,
        output_model=PeriodicOut,
        handler=get_periodic_note,
        static_check=period_check,
    ),
    ToolSpec(
        name="create_periodic_note",
        domain="tasks",
        title="Create a periodic note",
        description="Create the daily (weekly, …) note of a date where the settings put it, from the configured "
        "template; an existing note is returned unchanged (created=false).",
        input_model=PeriodIn,
        output_model=CreatePeriodicOut,
        handler=create_periodic_note,
        static_check=period_check,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
    ),
    ToolSpec(
        name="append_to_periodic_note",
        domain="tasks",
        title="Append to a periodic note",
        description="Append text to the daily (weekly, …) note of a date, at its end or under a heading; a missing "
        "note is created first from the configured template.",
        input_model=AppendPeriodicIn,
        output_model=CreatePeriodicOut,
        handler=append_to_periodic_note,
        static_check=period_check,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
    ),
)
