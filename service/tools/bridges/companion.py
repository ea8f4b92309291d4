"""bridges domain, the companion's routes: list_templater_templates, execute_template,
list_quickadd_actions, trigger_quickadd, makemd_list_spaces, makemd_query.

They reach Templater, QuickAdd and make.md inside the running Obsidian through the vaultgate
companion plugin (deploy/obsidian-plugin; client in `service.bridges.companion`). A companion
that is not installed is `plugin_missing` with `details.plugin: vaultgate-companion`; a community
plugin that is not enabled, `plugin_missing` naming it.

`execute_template` and `trigger_quickadd` run a plugin's code (Templater templates and QuickAdd
macros may run scripts), so they hold `execute:plugin`, whose confirmation floor makes a human
approve every call (their specs say `confirm="always"` too, as execute_command's does), and
`write:vault`, since both write notes. `execute_template` checks its paths before anything is
asked or sent: the template must be a note the caller may read, the note to
create a path the caller may write (its folder is always sent, the root as "/": `VAULT_ROOT`, so
Templater's own default location never decides where a note lands); the same checks, and a
configured bridge, are the spec's `static_check`, so a dry-run vault's preview and validate_plan
refuse as the call does; so is the new note's name (`template_note.check_new_note`). What a human
confirms names the template file and the note as Obsidian will name it (`template_note`).
`trigger_quickadd` reads QuickAdd's choices before anyone is asked (its precheck): a Multi or an
unknown name is refused there, so no human confirms a call that cannot run; what a human
confirms says the choice's kind (a Macro runs scripts), its group and the values given.
Listed paths the caller may not read are left out; `makemd_query` leaves them out before it cuts
to `limit` (below), so they neither take a place nor show in `truncated`.
Touches: no vault file itself; the companion's `/vaultgate/v1/…` routes.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from service.bridges.companion import Companion
from service.errors import ValidationFailed
from service.markdown.parse import note_title
from service.policy.confirmations import ChangePreview
from service.tools.bridges.app import client_of
from service.tools.bridges.template_note import check_new_note, made_in_the_vault, names_before, template_preview
from service.tools.context import ToolContext
from service.tools.models import NOTE_ADDRESS, Paging, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.obsidian.config import visible_path
from service.tools.spec import ToolSpec
from service.vault.paths import VaultPath, normalize, with_md


def _companion(ctx: ToolContext) -> Companion:
    return Companion(client_of(ctx))


# -- Templater ------------------------------------------------------------------------------


class TemplatesIn(ToolInput, Paging):
    pass


class Template(BaseModel):
    path: str = Field(description="The template note's vault path (execute_template takes it).")
    name: str = Field(description="Its name under the templates folder, without '.md'.")


class TemplatesOut(ToolOutput):
    folder: str = Field(description="Templater's templates folder.")
    items: list[Template] = Field(description="Template notes, by path.")
    next_cursor: str | None = Field(description="Cursor of the next page.")


async def list_templater_templates(ctx: ToolContext, args: TemplatesIn) -> TemplatesOut:
    folder, found = await _companion(ctx).templater_templates()
    items = [
        Template(path=rel, name=str(t.get("name", note_title(rel))))
        for t in found
        if (rel := visible_path(ctx, t.get("path"))) is not None
    ]
    window, cursor = page_of(items, decode_cursor(args.cursor), args.limit)
    return TemplatesOut(folder=folder, items=window, next_cursor=cursor)


class ExecuteTemplateIn(ToolInput):
    template: str = Field(description="The Templater template: " + NOTE_ADDRESS)
    folder: str = Field(default="", description="Folder of the new note ('' = the vault's root).")
    filename: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="The new note's name without '.md' (default: Untitled).",
    )
    open: bool = Field(default=False, description="Also open the new note in Obsidian.")

    @field_validator("filename")
    @classmethod
    def _one_name(cls, value: str | None) -> str | None:
        if value is not None and ("/" in value or "\\" in value):
            raise ValueError("filename is a note name; put the folder in folder")
        if value is not None and value.lower().endswith(".md"):  # Templater adds it: 'x.md' would be 'x.md.md'
            value = value[: -len(".md")]
            if not value.strip():
                raise ValueError("filename is a note name without '.md'")
        return value


class ExecuteTemplateOut(ToolOutput):
    path: str = Field(description="Vault path of the note Templater created.")
    title: str = Field(description="Its title.")
    obsidian_url: str = Field(description="obsidian://open URL of it.")
    template: str = Field(description="The template used.")


# The vault's root as Templater's create_new_note_from_template takes it: a folder that is falsy
# in JavaScript, "" included, means "none given" there (`if (!folder)`), and the note then lands
# where Obsidian's "Default location for new notes" says (the active note's folder, a set folder),
# not at the path checked here. "/" is truthy and normalizes to the root (`normalizePath`).
VAULT_ROOT = "/"


async def _template_paths(ctx: ToolContext, args: ExecuteTemplateIn) -> tuple[VaultPath, VaultPath, str]:
    """(template, the note to create, its folder), each checked: nothing is sent otherwise."""
    template = (await ctx.find_note(args.template, "read", section="reject")).vp
    folder = normalize(args.folder.strip().strip("/")) if args.folder.strip().strip("/") else ""
    name = args.filename if args.filename is not None else "Untitled"
    target = ctx.resolve(with_md(f"{folder}/{name}" if folder else name), "write")
    check_new_note(ctx, target)
    return template, target, folder


async def execute_template_static_check(ctx: ToolContext, args: ExecuteTemplateIn) -> None:
    """What the configuration and the vault alone refuse (validate_plan, a dry-run preview)."""
    client_of(ctx)
    await _template_paths(ctx, args)


async def execute_template_precheck(ctx: ToolContext, args: ExecuteTemplateIn) -> None:
    """The static refusals, then Templater's templates read: Obsidian closed, the companion or
    Templater missing are answered before anyone is asked, as the prechecks of execute_command and
    trigger_quickadd answer them, not after a human confirmed a call that cannot run."""
    await execute_template_static_check(ctx, args)
    await _companion(ctx).templater_templates()


async def execute_template_confirm(ctx: ToolContext, args: ExecuteTemplateIn) -> ChangePreview:
    """What the human confirms: the template file found, the note as Obsidian will name it."""
    template, target, _ = await _template_paths(ctx, args)
    return template_preview(ctx, template, target, open_note=args.open)


async def execute_template(ctx: ToolContext, args: ExecuteTemplateIn) -> ExecuteTemplateOut:
    template, target, folder = await _template_paths(ctx, args)
    missing = ctx.vault.files.missing_folders(target)  # what Obsidian makes for it (journaled in a plan run)
    before = await names_before(target)
    created = await _companion(ctx).templater_create(
        template.rel, folder or VAULT_ROOT, args.filename, open_note=args.open
    )
    rel = visible_path(ctx, created.get("path")) or ""
    if rel:
        await made_in_the_vault(ctx, rel, missing, target, before)
    return ExecuteTemplateOut(
        path=rel,
        title=note_title(rel) if rel else "",
        obsidian_url=ctx.vault.url(rel) if rel else "",
        template=template.rel,
    )


# -- QuickAdd -------------------------------------------------------------------------------


class ChoicesIn(ToolInput, Paging):
    pass


class Choice(BaseModel):
    id: str = Field(description="QuickAdd's id of the choice.")
    name: str = Field(description="Its name (trigger_quickadd takes it).")
    type: str = Field(description="Template, Capture, Macro or Multi (a Multi only groups others).")
    parent: str | None = Field(description="The Multi it sits in.")


class ChoicesOut(ToolOutput):
    items: list[Choice] = Field(description="QuickAdd's choices, flattened in its order.")
    next_cursor: str | None = Field(description="Cursor of the next page.")


async def list_quickadd_actions(ctx: ToolContext, args: ChoicesIn) -> ChoicesOut:
    found = await _companion(ctx).quickadd_choices()
    items = [
        Choice(
            id=str(c.get("id", "")),
            name=str(c["name"]),
            type=str(c.get("type", "")),
            parent=str(c["parent"]) if isinstance(c.get("parent"), str) else None,
        )
        for c in found
        if isinstance(c.get("name"), str)
    ]
    window, cursor = page_of(items, decode_cursor(args.cursor), args.limit)
    return ChoicesOut(items=window, next_cursor=cursor)


class TriggerIn(ToolInput):
    choice: str = Field(min_length=1, max_length=200, description="A QuickAdd choice's name (list_quickadd_actions).")
    variables: dict[str, str] = Field(
        default_factory=dict, description="Values for the choice's {{VALUE:name}} prompts, by name."
    )


class TriggerOut(ToolOutput):
    choice: str = Field(description="The choice run.")
    executed: bool = Field(description="True: QuickAdd ran it.")


async def trigger_quickadd(ctx: ToolContext, args: TriggerIn) -> TriggerOut:
    await _companion(ctx).quickadd_execute(args.choice, args.variables)
    return TriggerOut(choice=args.choice, executed=True)


KINDS = {  # what each kind of QuickAdd choice does, for the human confirming a run of one
    "Template": "a Template choice makes a note from a template",
    "Capture": "a Capture choice adds text to a note",
    "Macro": "a Macro choice runs commands and user scripts",
}


async def trigger_confirm(ctx: ToolContext, args: TriggerIn) -> ChangePreview:
    """What the human confirms: the choice's kind and group as QuickAdd has them now, and the
    values given. Which note it writes is in the choice's own settings, which the companion does
    not answer (routes.ts lists id, name, type and parent), so the preview says so."""
    found = [c for c in await _companion(ctx).quickadd_choices() if c.get("name") == args.choice]
    return _quickadd_preview(args, found[0] if found else {})


async def trigger_dry_run_preview(ctx: ToolContext, args: TriggerIn) -> ChangePreview:
    """A dry-run vault's preview asks no plugin: the confirmation's words without the choice's kind."""
    return _quickadd_preview(args, {})


def _quickadd_preview(args: TriggerIn, choice: dict[str, object]) -> ChangePreview:
    kind, group = str(choice.get("type", "")), choice.get("parent")
    values = ", ".join(f"{name} = {value!r}" for name, value in sorted(args.variables.items()))
    return ChangePreview(
        f"trigger_quickadd: QuickAdd, in the running Obsidian, runs its {kind or 'QuickAdd'} choice {args.choice!r}"
        + (f" (in {group!r})" if isinstance(group, str) else "")
        + (f"; {KINDS[kind]}" if kind in KINDS else "")
        + (
            f", with the values {values}."
            if values
            else ", with no values (a prompt it has waits for the person at Obsidian)."
        )
        + "\nWhich notes it writes is set in the choice's settings in QuickAdd, which vaultgate cannot read."
    )


async def trigger_static_check(ctx: ToolContext, args: TriggerIn) -> None:
    """A bridge is configured (a dry-run vault's preview and validate_plan, which ask no plugin)."""
    client_of(ctx)


async def trigger_precheck(ctx: ToolContext, args: TriggerIn) -> None:
    """The choice is one QuickAdd can run, read from its choices before anyone is asked: a human
    confirms no call that cannot run (a Multi only groups others; an unknown name)."""
    found = await _companion(ctx).quickadd_choices()
    kinds = {str(c["name"]): str(c.get("type", "")) for c in found if isinstance(c.get("name"), str)}
    kind = kinds.get(args.choice)
    if kind is None or kind == "Multi":
        raise ValidationFailed(
            f"QuickAdd has no choice {args.choice!r} to run"
            + (" (it is a Multi: it only groups other choices)" if kind == "Multi" else ""),
            details={"field": "choice", "reason": "choice_not_found", "choice": args.choice, "multi": kind == "Multi"},
            hint="list_quickadd_actions lists the choices; give the name of one that is not a Multi.",
        )


# -- make.md --------------------------------------------------------------------------------


class Space(BaseModel):
    path: str = Field(description="The space's path (a folder's vault path, or make.md's own for tags and others).")
    name: str = Field(description="Its name.")
    type: str = Field(description="make.md's kind of space: folder, tag, vault, ...")


def _spaces(ctx: ToolContext, found: list[dict[str, object]], most: int | None = None) -> list[Space]:
    """The spaces of `found` the caller may see (the first `most` of them)."""
    out: list[Space] = []
    for space in found:
        if most is not None and len(out) >= most:
            break
        path = space.get("path")
        if not isinstance(path, str):
            continue
        if space.get("type", "folder") == "folder" and path not in ("", "/") and visible_path(ctx, path) is None:
            continue  # a folder the caller may not read
        out.append(Space(path=path, name=str(space.get("name", path)), type=str(space.get("type", "folder"))))
    return out


class SpacesIn(ToolInput, Paging):
    pass


class SpacesOut(ToolOutput):
    items: list[Space] = Field(description="make.md's spaces, by path.")
    next_cursor: str | None = Field(description="Cursor of the next page.")


async def makemd_list_spaces(ctx: ToolContext, args: SpacesIn) -> SpacesOut:
    items = _spaces(ctx, await _companion(ctx).makemd_spaces())
    window, cursor = page_of(items, decode_cursor(args.cursor), args.limit)
    return SpacesOut(items=window, next_cursor=cursor)


QUERY_MOST = 1000  # the most spaces the companion's query route answers at once (routes.ts)


class QueryIn(ToolInput):
    text: str | None = Field(default=None, max_length=500, description="Text in the space's name or path (any case).")
    type: str | None = Field(default=None, max_length=50, description="Only spaces of this kind (folder, tag, ...).")
    limit: int = Field(default=100, ge=1, le=1000, description="At most this many spaces.")


class QueryOut(ToolOutput):
    items: list[Space] = Field(description="Matching spaces, by path.")
    truncated: bool = Field(description="More spaces the caller may see matched than limit.")


async def makemd_query(ctx: ToolContext, args: QueryIn) -> QueryOut:
    """The companion answers its first `limit` matches and cannot page; spaces the caller may not
    see are left out here, after it answered. So it is asked for one more than `limit`, then four
    times as many while too few of its answer were left and it has more, up to `QUERY_MOST`; past
    that, its whole list of spaces (what makemd_list_spaces reads, bounded as every answer of the
    plugin by `MAX_BODY`) is matched here as routes.ts matches them. `truncated` says whether
    spaces the caller may see were left out, never whether others were."""
    companion = _companion(ctx)
    ask = min(QUERY_MOST, args.limit + 1)
    while True:
        found, more = await companion.makemd_query(args.text, args.type, ask)
        items = _spaces(ctx, found)
        if len(items) > args.limit or not more:
            break
        if ask == QUERY_MOST:  # it matched more than it answers: match its whole list here
            items = _spaces(ctx, _matching(await companion.makemd_spaces(), args.text, args.type), args.limit + 1)
            break
        ask = min(QUERY_MOST, ask * 4)
    return QueryOut(items=items[: args.limit], truncated=len(items) > args.limit)


def _matching(spaces: list[dict[str, object]], text: str | None, type_: str | None) -> list[dict[str, object]]:
    """The spaces routes.ts's query answers: `text` in the name or the path (any case), of kind
    `type_` (in the list's order: by path, as both routes sort them)."""
    needle = (text or "").lower()
    return [
        space
        for space in spaces
        if (not needle or any(needle in str(space.get(key, "")).lower() for key in ("name", "path")))
        and (type_ is None or space.get("type") == type_)
    ]


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_templater_templates",
        domain="bridges",
        title="List Templater templates",
        description="The notes in Templater's templates folder of the running Obsidian (needs the vaultgate "
        "companion plugin); execute_template makes a note from one.",
        input_model=TemplatesIn,
        output_model=TemplatesOut,
        handler=list_templater_templates,
        reads_index=False,
        tags=("bridge", "companion"),
    ),
    ToolSpec(
        name="execute_template",
        domain="bridges",
        title="New note from a Templater template",
        description="Create a note from a Templater template inside the running Obsidian, its scripts run by "
        "Templater (companion plugin). Needs execute:plugin and write:vault and a human's confirmation.",
        input_model=ExecuteTemplateIn,
        output_model=ExecuteTemplateOut,
        handler=execute_template,
        scopes=("write:vault", "execute:plugin"),
        confirm="always",  # as the floor does; see commands.py
        scope_class="execute",
        mutating=True,
        idempotent=False,
        open_world=True,
        confirm_when=execute_template_confirm,  # names the template file and the note to create
        dry_run_preview=execute_template_confirm,  # asks no plugin: a dry-run vault's preview says the same
        precheck=execute_template_precheck,
        static_check=execute_template_static_check,  # a dry-run preview and validate_plan: nothing sent
        path_args=("template",),
        reads_index=False,
        tags=("bridge", "companion"),
    ),
    ToolSpec(
        name="list_quickadd_actions",
        domain="bridges",
        title="List QuickAdd choices",
        description="QuickAdd's choices (templates, captures, macros) in the running Obsidian (companion "
        "plugin); trigger_quickadd runs one.",
        input_model=ChoicesIn,
        output_model=ChoicesOut,
        handler=list_quickadd_actions,
        reads_index=False,
        tags=("bridge", "companion"),
    ),
    ToolSpec(
        name="trigger_quickadd",
        domain="bridges",
        title="Run a QuickAdd choice",
        description="Run a QuickAdd choice by name in the running Obsidian, with values for its prompts "
        "(companion plugin). Needs execute:plugin and write:vault and a human's confirmation.",
        input_model=TriggerIn,
        output_model=TriggerOut,
        handler=trigger_quickadd,
        scopes=("write:vault", "execute:plugin"),
        confirm="always",  # as the floor does; see commands.py
        scope_class="execute",
        mutating=True,
        idempotent=False,
        open_world=True,
        confirm_when=trigger_confirm,  # the choice's kind and group, the values given
        dry_run_preview=trigger_dry_run_preview,  # the same words, the kind left out (no plugin asked)
        precheck=trigger_precheck,
        static_check=trigger_static_check,
        reads_index=False,
        tags=("bridge", "companion"),
    ),
    ToolSpec(
        name="makemd_list_spaces",
        domain="bridges",
        title="List make.md spaces",
        description="make.md's spaces (folders, tags and its own) in the running Obsidian (companion plugin).",
        input_model=SpacesIn,
        output_model=SpacesOut,
        handler=makemd_list_spaces,
        reads_index=False,
        tags=("bridge", "companion"),
    ),
    ToolSpec(
        name="makemd_query",
        domain="bridges",
        title="Find make.md spaces",
        description="make.md's spaces whose name or path holds some words, of one kind, in the running "
        "Obsidian (companion plugin).",
        input_model=QueryIn,
        output_model=QueryOut,
        handler=makemd_query,
        reads_index=False,
        tags=("bridge", "companion"),
    ),
)
