"""memory domain, what every tool that writes entity notes shares: the caller's entity store,
the checks of an observation's text, its provenance fields, and `all_or_nothing` — the changes of
several entity notes in one call, all or nothing, also across a kill -9.
Touches: the memory folder's notes (through `service.memory.store`), the plans journal.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from service.errors import ValidationFailed
from service.memory.model import one_line, tags_of
from service.memory.store import EntityStore
from service.obs.sessions import caller_hash
from service.plans.recovery import journaled
from service.tools.context import ToolContext
from service.vault.commit import Action, commit
from service.vault.offloop import sized

MAX_OBSERVATION = 10_000  # characters
MAX_ITEMS = 1000  # entities, observations or relations in one call
_WIKILINK = re.compile(r"\[\[[^\[\]]+\]\]")
_TAG = re.compile(r"[\w/-]{1,100}")


def entity_store(ctx: ToolContext) -> EntityStore:
    memory = ctx.services.settings.memory
    return EntityStore(
        ctx.vault.id,
        ctx.vault.files,
        memory.folder,
        lambda p, op: ctx.resolve(p, op),  # type: ignore[arg-type]
        inbox=memory.inbox,
        shared=ctx.services.memory_writes,
    )


async def all_or_nothing(ctx: ToolContext, actions: Sequence[Action], goal: str) -> None:
    """Run the changes of several entity notes all or nothing: a failure or a cancelled call
    puts back the notes already written (`service.vault.commit`), and a process killed in the
    middle leaves a journal the next start rolls back (`service.plans.recovery`)."""
    if len(actions) <= 1:
        for action in actions:
            await action()
        return
    caller = caller_hash(ctx.principal.subject)
    async with journaled(ctx.services.plans.journal, ctx.vault.id, caller, goal):
        await commit(actions, ctx.steps(goal))


def no_controls(value: str, field: str) -> None:
    """A NUL or other control character (a tab or line break aside: they become spaces) is
    refused: it would be written into the note as it is. So is an unpaired `%%` (`no_open_comment`)."""
    if any((ord(c) < 32 and c not in "\t\n\r") or 127 <= ord(c) < 160 for c in value):
        raise ValidationFailed(
            f"{field} holds a control character",
            details={"field": field, "reason": "control_character"},
            hint="Remove NUL and other control characters; line breaks and tabs become spaces.",
        )
    no_open_comment(value, field)


def no_open_comment(value: str, field: str) -> None:
    """An odd number of `%%` would open an Obsidian comment on the line it is written on, hiding
    the rest of the entity note from Obsidian and from the memory reader: refused."""
    if value.count("%%") % 2:
        raise ValidationFailed(
            f"{field} holds an unpaired '%%', which would open an Obsidian comment hiding the rest of the note",
            details={"field": field, "reason": "comment_marker"},
            hint="Pair the '%%' or write it otherwise ('% %', 'percent').",
        )


def observation_text(text: str, field: str) -> str:
    no_controls(text, field)
    clean = one_line(text)
    if not clean or len(clean) > MAX_OBSERVATION:
        raise ValidationFailed(
            f"an observation is 1 to {MAX_OBSERVATION} characters",
            details={"field": field, "reason": "empty" if not clean else "too_long"},
        )
    return clean


def observation_category(category: str | None, field: str) -> str | None:
    """A category as `[category]` opens the line: one line without `[`, `]` or `:`."""
    if category is None:
        return None
    no_controls(category, field)
    if not category.strip() or any(c in category for c in "[]:\n\r"):  # a CR ends the line as LF does
        raise ValidationFailed(
            f"{field} {category[:60]!r} cannot be a category",
            details={"field": field, "reason": "invalid_category"},
            hint="A category is one line without '[', ']' or ':' (e.g. preference).",
        )
    return category


def observation_tags(tags: Sequence[str], field: str) -> list[str]:
    """The tags given with observations, without their `#`: a tag is one word of letters, digits,
    `_`, `-` and `/`, not only digits, given with or without its `#`."""
    out: list[str] = []
    for tag in tags:
        name = tag.removeprefix("#")
        if not _TAG.fullmatch(name) or name.isdigit():
            raise ValidationFailed(
                f"{tag[:100]!r} is not a tag",
                details={"field": field, "reason": "invalid_tag", "tag": tag[:100]},
                hint="A tag is one word of letters, digits, _ - and /, not only digits (#project/alpha).",
            )
        if name not in out:
            out.append(name)
    return out


async def observation_texts(contents: list[str], tags: Sequence[str], field: str) -> list[str]:
    """The observations as written: each checked (`observation_text`), with the call's `tags`;
    past `OFF_LOOP_CHARS` characters in all, in a worker thread (the event loop free meanwhile)."""

    def checked() -> list[str]:
        return [with_tags(observation_text(t, field), tags) for t in contents]

    return await sized(sum(map(len, contents)), checked)


def with_tags(text: str, tags: Sequence[str]) -> str:
    """The observation's text ending with ` #tag` for each tag it does not hold yet."""
    have = set(tags_of(text))
    return text + "".join(f" #{t}" for t in tags if t not in have)


def _field_value(value: str, field: str, limit: int, *, links: bool) -> str:
    """A provenance value kept as given (whitespace folded): brackets would end the inline field
    early or open a new one, so they are refused, except whole wikilinks when `links`."""
    no_controls(value, field)
    clean = one_line(value)
    bare = _WIKILINK.sub("", clean) if links else clean
    if len(clean) > limit or "[" in bare or "]" in bare:
        too_long = len(clean) > limit
        raise ValidationFailed(
            f"{field} is too long (at most {limit} characters)" if too_long else f"{field} holds '[' or ']'",
            details={"field": field, "reason": "too_long" if too_long else "brackets"},
            hint=("A source may hold whole [[wikilinks]]; other" if links else "A date holds no") + " square brackets.",
        )
    return clean


def valid_until(value: str | None, field: str = "valid_until") -> str | None:
    """supersede_observation's `valid_until` as written in its inline field, checked as a `date`
    is (one line, no control character, no unpaired `%%`) but taking whole wikilinks as a `source`
    does (`[[2020-01-01]]`, a daily note): anything else would end the field or the line early, or
    open a comment hiding the rest of the note. None when none is given."""
    if not value:
        return None
    return _field_value(value, field, 40, links=True) or None


def relation_type(value: str, field: str) -> str:
    """A relation type as create_relations writes it (`- type [[Target]]`): its input model keeps
    it one line without brackets; a control character or an unpaired `%%` is refused too. Spaces
    before it are dropped: written after the list marker, they read back as no part of the type
    (and as the marker's, which a new item of the list continues: five make the item code)."""
    no_controls(value, field)
    return value.strip()


def provenance(ctx: ToolContext, source: str | None = None, date: str | None = None, field: str = "") -> dict[str, str]:
    """The provenance fields of a new observation; a `date` or `source` that could not be read
    back as given is a `validation_error` (`field` names where it came from)."""
    fields = {"recorded": dt.date.today().isoformat(), "by": caller_hash(ctx.principal.subject)[:8]}
    if date and (value := _field_value(date, f"{field}date", 40, links=False)):
        fields["date"] = value
    if source and (value := _field_value(source, f"{field}source", 300, links=True)):
        fields["source"] = value
    return fields


# The spec fields every memory tool that writes entity notes shares.
WRITE = {
    "scopes": ("write:vault",),
    "scope_class": "write",
    "mutating": True,
    "idempotent": False,
    "reads_index": False,
}
