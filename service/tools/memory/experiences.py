"""memory domain, the experiential tier: record_experience, list_experiences, promote_experience.

Touches: the `experiences` table of `experiential.db` in the data folder
(`service.memory.experiences`), never the vault — except `promote_experience`, which a human
always confirms (`confirm="always"`: no configuration, caller or vault setting skips it) and
which adds the experience's text to a memory entity's observations, its provenance naming the
experience (`source:: experience exp-…`). The memory folder's path ACL applies to all three: a
caller who may not read (record, promote: write) the memory folder reaches none of it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import replace

from pydantic import Field

from service.errors import Conflict, InternalError, ToolNotFound, ValidationFailed, VaultgateError
from service.memory.experiences import Experience, ExperienceStore, Kind
from service.obs.sessions import caller_hash
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.memory.filing import check_entity, check_memory_folder, file_observation, still_filed
from service.tools.memory.writing import MAX_OBSERVATION, observation_category, observation_text
from service.tools.models import ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.spec import ToolSpec
from service.types import Op

EXPERIENCE_ID = r"^exp-[0-9a-f]{12}$"
ONE_LINE = r"^[^\r\n]*$"


def _store(ctx: ToolContext, op: Op) -> ExperienceStore:
    check_memory_folder(ctx, op)
    store = ctx.services.experiences
    if store is None:  # pragma: no cover - the app always builds it
        raise InternalError("the experiential store is not configured")
    return store


def _iso(at: float | None) -> str | None:
    return None if at is None else dt.datetime.fromtimestamp(at, dt.UTC).isoformat(timespec="seconds")


class ExperienceItem(ToolOutput):
    id: str = Field(description="Experience id (`exp-…`).")
    kind: Kind = Field(description="worked, failed, preference or note.")
    text: str = Field(description="What the agent noted.")
    tool: str | None = Field(default=None, description="The tool it is about.")
    context: str | None = Field(default=None, description="What the agent was doing.")
    confidence: float = Field(description="The agent's confidence, 0 to 1.")
    tags: list[str] = Field(description="Tags.")
    created_at: str = Field(description="ISO time it was recorded.")
    promoted_to: str | None = Field(default=None, description="The entity it was promoted to, if it was.")
    promoted_link: str | None = Field(default=None, description="Wikilink to the observation it became.")


def _item(exp: Experience) -> ExperienceItem:
    link = None
    if exp.promoted_path and exp.promoted_block:
        link = f"[[{exp.promoted_path.removesuffix('.md')}#^{exp.promoted_block}]]"
    return ExperienceItem(
        id=exp.id,
        kind=exp.kind,
        text=exp.text,
        tool=exp.tool,
        context=exp.context,
        confidence=exp.confidence,
        tags=list(exp.tags),
        created_at=_iso(exp.created_at) or "",
        promoted_to=exp.promoted_to,
        promoted_link=link,
    )


class RecordExperienceIn(ToolInput):
    kind: Kind = Field(description="worked, failed, preference (a preference seen) or note.")
    text: str = Field(min_length=1, max_length=100_000, description="What worked, failed or was seen.")
    tool: str | None = Field(default=None, max_length=100, pattern=ONE_LINE, description="The tool it is about.")
    context: str | None = Field(default=None, max_length=2000, description="What you were doing.")
    confidence: float = Field(default=0.5, ge=0, le=1, description="How sure you are, 0 to 1.")
    tags: list[str] = Field(
        default_factory=list, max_length=20, description="Tags (each up to 100 characters, one line)."
    )


class RecordExperienceOut(ToolOutput):
    experience: ExperienceItem = Field(description="The experience as recorded.")


def experience_text(ctx: ToolContext, args: RecordExperienceIn) -> str:
    """The experience's text as the call takes it, its tags checked (`validation_error`); a
    dry-run vault's preview and a plan's check ask it too (`prechecks`)."""
    text = args.text.strip()
    size = len(text.encode("utf-8", errors="surrogatepass"))
    limit = ctx.services.settings.memory.max_experience_bytes
    if not text:
        raise ValidationFailed("the experience is empty", details={"field": "text", "reason": "empty"})
    if size > limit:
        raise ValidationFailed(
            f"the experience is {size} bytes; at most {limit}",
            details={"field": "text", "reason": "too_large", "bytes": size, "limit": limit},
        )
    for tag in args.tags:
        if not tag.strip() or len(tag) > 100 or "\n" in tag or "\r" in tag:
            raise ValidationFailed(
                "a tag must be one line of 1 to 100 characters", details={"field": "tags", "reason": "invalid_tag"}
            )
    return text


async def _text_checked(ctx: ToolContext, args: RecordExperienceIn) -> None:
    experience_text(ctx, args)


async def record_experience(ctx: ToolContext, args: RecordExperienceIn) -> RecordExperienceOut:
    store = _store(ctx, "write")
    text = experience_text(ctx, args)
    exp = await store.record(
        ctx.vault.id,
        args.kind,
        text,
        tool=args.tool,
        context=args.context,
        confidence=args.confidence,
        tags=[t.strip().lstrip("#") for t in args.tags],
        caller=caller_hash(ctx.principal.subject),
    )
    return RecordExperienceOut(experience=_item(exp))


class ListExperiencesIn(ToolInput):
    kind: Kind | None = Field(default=None, description="Only this kind.")
    tool: str | None = Field(default=None, max_length=100, description="Only experiences about this tool.")
    promoted: bool | None = Field(default=None, description="true: only promoted ones; false: only the others.")
    min_confidence: float = Field(default=0, ge=0, le=1, description="Only experiences at least this confident.")
    limit: int = Field(default=50, ge=1, le=200, description="Page size.")
    cursor: str | None = Field(default=None, description="`next_cursor` from the previous page.")


class ListExperiencesOut(ToolOutput):
    items: list[ExperienceItem] = Field(description="Experiences, newest first.")
    total: int = Field(description="Experiences matching the filters.")
    next_cursor: str | None = Field(description="Cursor for the next page, None at the end.")


async def _forget_undone(ctx: ToolContext, store: ExperienceStore) -> None:
    """Forget each promotion whose observation is gone from its note (each note read once), so a
    listing never shows an undone promotion as current nor filters by it."""
    by_note: dict[str, list[Experience]] = {}
    for exp in await store.promotions(ctx.vault.id):
        if exp.promoted_path and exp.promoted_block:
            by_note.setdefault(exp.promoted_path, []).append(exp)
    for rel, exps in by_note.items():
        try:
            content = (await asyncio.to_thread(ctx.vault.files.read, ctx.vault.paths.resolve(rel))).content
        except VaultgateError:
            content = ""
        for exp in exps:
            if f"^{exp.promoted_block}" not in content and exp.promoted_at is not None:
                await store.unpromoted(ctx.vault.id, exp.id, exp.promoted_at)


async def list_experiences(ctx: ToolContext, args: ListExperiencesIn) -> ListExperiencesOut:
    store = _store(ctx, "read")
    await _forget_undone(ctx, store)
    state = {"k": args.kind, "t": args.tool, "p": args.promoted, "c": args.min_confidence}
    offset = decode_cursor(args.cursor, **state)
    found, total = await store.page(
        ctx.vault.id,
        kind=args.kind,
        tool=args.tool,
        promoted=args.promoted,
        min_confidence=args.min_confidence,
        offset=offset,
        limit=args.limit,
    )
    more = offset + len(found) < total
    return ListExperiencesOut(
        items=[_item(e) for e in found],
        total=total,
        next_cursor=encode_cursor(offset + args.limit, **state) if more else None,
    )


class PromoteExperienceIn(ToolInput):
    experience_id: str = Field(pattern=EXPERIENCE_ID, description="The experience to promote (`exp-…`).")
    entity: str = Field(min_length=1, max_length=200, description="The memory entity it becomes an observation of.")
    text: str | None = Field(
        default=None, min_length=1, max_length=10_000, description="The observation's text; default: the experience's."
    )
    category: str | None = Field(
        default=None, max_length=60, description="The observation's category; default: the experience's kind."
    )


class PromoteExperienceOut(ToolOutput):
    experience_id: str = Field(description="The promoted experience.")
    entity: str = Field(description="The entity it is an observation of now.")
    path: str = Field(description="Vault path of the entity's note.")
    block_link: str = Field(description="Wikilink to the new observation.")
    obsidian_url: str = Field(description="obsidian:// URL of the entity's note.")


async def _promotable(ctx: ToolContext, args: PromoteExperienceIn, mend: bool = True) -> Experience:
    store = _store(ctx, "write")
    exp = await store.get(ctx.vault.id, args.experience_id)
    if exp is None:
        raise ToolNotFound(
            f"no experience {args.experience_id!r} in this vault", details={"experience_id": args.experience_id}
        )
    if exp.promoted_at is not None and not await still_filed(ctx, exp.promoted_path, exp.promoted_block):
        if mend:  # not in a dry-run vault's preview, which records nothing
            await store.unpromoted(ctx.vault.id, exp.id, exp.promoted_at)  # undone: it may be promoted again
        exp = replace(exp, promoted_at=None, promoted_to=None, promoted_path=None, promoted_block=None)
    if exp.promoted_at is not None:
        raise Conflict(
            f"experience {exp.id!r} was promoted already",
            details={"experience_id": exp.id, "entity": exp.promoted_to},
            hint="list_experiences(promoted=false) lists the others.",
        )
    return exp


def _observation(exp: Experience, args: PromoteExperienceIn) -> str:
    """The observation's text: `text`, or the experience's when it can be one (an experience may
    be longer than an observation may be)."""
    if args.text is not None:
        return observation_text(args.text.strip(), "text")
    try:
        return observation_text(exp.text.strip(), "text")
    except ValidationFailed as error:
        raise ValidationFailed(
            f"experience {exp.id!r} cannot be an observation as it is: {error.message}",
            details={**error.details, "experience_id": exp.id, "length": len(exp.text)},
            hint=f"Pass `text`: the observation to promote it as (at most {MAX_OBSERVATION} characters).",
        ) from None


async def precheck_promote(ctx: ToolContext, args: PromoteExperienceIn, mend: bool = True) -> None:
    """Before a human is asked: the experience exists, is not promoted yet, its text can be an
    observation, and the entity exists (`mend` false: a dry-run vault's preview, which records
    nothing of an undone promotion)."""
    _observation(await _promotable(ctx, args, mend), args)
    observation_category(args.category, "category")
    await check_entity(ctx, args.entity)


PREVIEW_TEXT = 300  # characters of the observation a confirmation shows


async def confirm_promote(ctx: ToolContext, args: PromoteExperienceIn) -> ChangePreview:
    """What the human approves: the observation's text (cut at `PREVIEW_TEXT` characters), its
    category, and the entity note it is added to."""
    from service.tools.memory.names import entity_name
    from service.tools.memory.writing import entity_store

    exp = await _promotable(ctx, args)
    text = _observation(exp, args)
    shown = text if len(text) <= PREVIEW_TEXT else text[:PREVIEW_TEXT] + f"… ({len(text)} characters)"
    store = entity_store(ctx)
    vp = store.path_of(entity_name(ctx, store, args.entity, "entity"), "write")
    category = args.category or exp.kind
    return ChangePreview.of(
        f"promote experience {exp.id} to memory: add to {args.entity!r} ({vp.rel}) the observation "
        f"[{category}] {shown!r}",
        [vp.rel],
    )


async def promote_experience(ctx: ToolContext, args: PromoteExperienceIn) -> PromoteExperienceOut:
    store = _store(ctx, "write")
    exp = await _promotable(ctx, args)
    filed = await file_observation(
        ctx,
        args.entity,
        _observation(exp, args),
        source=f"experience {exp.id}",
        category=args.category or exp.kind,
    )
    await store.promoted(
        ctx.vault.id,
        exp.id,
        by=caller_hash(ctx.principal.subject),
        entity=filed.entity,
        path=filed.path,
        block=filed.block_id,
    )
    return PromoteExperienceOut(
        experience_id=exp.id,
        entity=filed.entity,
        path=filed.path,
        block_link=f"[[{filed.path.removesuffix('.md')}#^{filed.block_id}]]",
        obsidian_url=ctx.vault.url(filed.path),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="record_experience",
        domain="memory",
        title="Record an experience",
        description="Note, as an agent, what worked, what failed or a preference you saw (with the tool, context and "
        "your confidence) in the low-trust experiential store outside the vault.",
        input_model=RecordExperienceIn,
        output_model=RecordExperienceOut,
        handler=record_experience,
        static_check=_text_checked,  # a dry-run preview and a plan refuse its text too
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        reads_index=False,
        tags=("memory", "experiences"),
    ),
    ToolSpec(
        name="list_experiences",
        domain="memory",
        title="List experiences",
        description="Recorded experiences of this vault, newest first, filtered by kind, tool, promotion and "
        "confidence; paginated.",
        input_model=ListExperiencesIn,
        output_model=ListExperiencesOut,
        handler=list_experiences,
        reads_index=False,
        tags=("memory", "experiences"),
    ),
    ToolSpec(
        name="promote_experience",
        domain="memory",
        title="Promote an experience to memory",
        description="Make a recorded experience an observation of a memory entity in the vault, its provenance "
        "naming the experience; a human always confirms.",
        input_model=PromoteExperienceIn,
        output_model=PromoteExperienceOut,
        handler=promote_experience,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="always",
        confirm_when=confirm_promote,  # what the human is shown (the call always asks)
        precheck=precheck_promote,
        idempotent=False,
        tags=("memory", "experiences"),
    ),
)
