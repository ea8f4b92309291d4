"""The text of each note a plan's earlier steps wrote, as they leave it (`service.plans.texts`),
for a later move's link rewrites in the plan's check (`plan_rewrites.move_rewrites`): composed
from the file on disk it starts from (none: a note written whole) with each call's edit made by
the tool's own edit function where its arguments decide it: create_note's text is its content
under its frontmatter (`note_texts.yaml_block`), write_note's its content (appended in `append`
mode), append_note's and prepend_note's the note's with theirs added; patch_note's, the property
and tag tools', set_task_status', append_to_periodic_note's, rename_tag's and replace_text's are
those tools' edits of it; apply_template's is the tool's `applied`, and a periodic note a periodic
tool makes starts as `made_text` (empty, or from the template its settings name), with the template
the check found for the call (`service.plans.texts.TEMPLATE`; None where only the run finds it).
An applied rewrite_links' is the tool's `repointed`, where the check resolved its targets
(`service.plans.texts.TARGETS`), over the vault's files as a later move's check sees them.
create_entities', add_observations', delete_observations', supersede_observation's, create_relations'
and delete_relations' (to the links the check found for their targets: `service.plans.texts.LINKS`)
and merge_observations' (with the merged entity's note as the plan leaves it: `service.plans.texts.
MERGED`) and process_capture's filing into an entity of a capture the check found pending (the
entity's note and the inbox: `service.plans.texts.CAPTURE`) are the memory tools' own
(`service.tools.memory.planned`); delete_entities deletes its notes.
Any other call (a capture, a filing into a note, a call whose content waits for the run), and an
edit that fails on the text (a patch of a heading the note lacks), leaves the text as before it and
the note is named unforeseen: the move's counts are then an estimate (docs/plans.md). A note the
steps moved away or deleted is read as none (None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from service.errors import VaultgateError
from service.graph.address import naming, parse_address
from service.graph.copy_links import copied_text
from service.graph.linkpath import PathSet
from service.markdown import line_ends, sections
from service.plans.texts import CAPTURE, LINKS, MERGED, TARGETS, TEMPLATE, PlannedText
from service.tools.context import ToolContext
from service.tools.graph.rewrite import repointed
from service.tools.memory.captures import ProcessCaptureIn
from service.tools.memory.entities import AddObservationsIn, CreateEntitiesIn, CreateRelationsIn
from service.tools.memory.graph import MemoryStoreIn
from service.tools.memory.merging import MergeObservationsIn
from service.tools.memory.planned import (
    created_text,
    filed_text,
    merged_text,
    observed_text,
    related_text,
    stored_text,
    superseding_text,
    unobserved_text,
    unrelated_text,
)
from service.tools.memory.pruning import DeleteObservationsIn, DeleteRelationsIn, SupersedeIn
from service.tools.notes.note_texts import yaml_block
from service.tools.notes.replace import ReplaceTextIn, replaced_in
from service.tools.notes.write import AppendIn, PatchNoteIn, WriteNoteIn, added, patched, with_section
from service.tools.properties.edit import (
    AddTagsIn,
    DeletePropertyIn,
    RemoveTagsIn,
    SetPropertiesIn,
    note_edit,
)
from service.tools.properties.tag_rename import RenameTagIn, tag_pair, tag_renamed
from service.tools.tasks.periodic import AppendPeriodicIn, PeriodIn, made_text, periodic_appended, starts_empty
from service.tools.tasks.status import SetTaskStatusIn, task_edit
from service.tools.tasks.templates import ApplyTemplateIn, applied
from service.vault.decoding import UTF8, encode_edit

Edit = Callable[[ToolContext, Any, str, str], str]  # (ctx, the call's arguments, text, path) -> text


def planned_reads(
    ctx: ToolContext, texts: dict[str, PlannedText], gone: set[str], paths: PathSet | None = None
) -> tuple[dict[str, str | None], set[str]]:
    """Path -> the text a move's rewrites read there (None: no note there), for the notes of
    `texts` and those in `gone`; and the notes an edit the check cannot foresee changed (read as
    before it). Reads the disk: a worker thread."""
    out: dict[str, str | None] = dict.fromkeys(gone)
    unforeseen: set[str] = set()
    for rel, planned in texts.items():
        out[rel], foreseen = _composed(ctx, rel, planned, paths)
        if not foreseen:
            unforeseen.add(rel)
    return out, unforeseen


def refused_by(
    ctx: ToolContext, tool: str, args: dict[str, Any], rel: str, planned: PlannedText
) -> VaultgateError | None:
    """The error `tool`'s edit (`args` as written) of the note at `rel` raises, where the earlier
    steps leave its text as `planned`: a patch of a heading, block or anchor it lacks, a task line
    that holds no task, an inline tag under a missing heading, a character the note's encoding
    (cp1252, say) lacks (`unrepresentable`); of a frontmatter edit, only that last and its arguments'
    own refusal (`note_edit`'s: a tag that is none, as '🎉'; a property name). None when the
    edit succeeds, when the text is not foreseen, or for a note whose name holds '#' (which part of
    a `Note#…` address is its section is the call's to tell). A plan's check tells it as the run
    would (`service.plans.check`), a dry-run vault's preview answers it (`service.dispatch.preview`).
    Reads the disk: a worker thread."""
    found = _EDITS.get(tool)
    if tool == "append_note" or tool == "write_note" and args.get("mode") == "append":  # into a block left open
        found = (WriteNoteIn if tool == "write_note" else AppendIn, _appended)
    if tool == "prepend_note":  # a character the note's encoding lacks
        found = (AppendIn, _prepended)
    if tool == "merge_observations" and "#" not in rel:  # the kept note as the steps leave it, the merged one too
        found = (MergeObservationsIn, lambda ctx, call, text, rel: _merge(ctx, call, args.get(MERGED), text, rel))
    # a frontmatter edit (a property, a tag there): only the note's encoding refuses it here, its YAML is the run's
    yaml = (
        tool in ("set_properties", "delete_property", "remove_tags") or tool == "add_tags" and not args.get("heading")
    )
    if found is None or "#" in rel:
        return None
    text, foreseen, encoding = _composed_as(ctx, rel, planned)
    if text is None or not foreseen:
        return None
    model, edit = found
    try:
        call = model.model_validate({k: v for k, v in args.items() if k != MERGED})
        if isinstance(call, SetPropertiesIn | DeletePropertyIn | AddTagsIn | RemoveTagsIn) and yaml:
            note_edit(ctx, call)  # its arguments' refusal (no tag, '🎉'; a property name): the run's, whatever the note
    except VaultgateError as exc:
        return exc
    except (ValidationError, ValueError):  # the arguments' own errors: the check reports those
        return None
    try:
        then = edit(ctx, call, text, rel)
        encode_edit(then, encoding, rel)  # a character the note's encoding lacks: the run refuses it so
    except VaultgateError as exc:
        return None if yaml and exc.details.get("reason") != "unrepresentable" else exc
    except (ValidationError, ValueError):  # the arguments' own errors: the check reports those
        return None
    return None


def changed_by(ctx: ToolContext, tool: str, args: dict[str, Any], texts: dict[str, PlannedText]) -> list[str]:
    """The notes of `texts` whose text (as the earlier steps leave it) `tool` called with `args`
    changes: a rewrite over notes the plan wrote, read as the plan leaves them, not as on disk.
    Reads the disk: a worker thread."""
    out: list[str] = []
    for rel, planned in texts.items():
        text, _foreseen = _composed(ctx, rel, planned)
        then = None if text is None else _then(ctx, rel, text, tool, args)
        if then is not None and then != text:
            out.append(rel)
    return sorted(out)


def _composed(
    ctx: ToolContext, rel: str, planned: PlannedText, paths: PathSet | None = None
) -> tuple[str | None, bool]:
    text, foreseen, _encoding = _composed_as(ctx, rel, planned, paths)
    return text, foreseen


def _composed_as(
    ctx: ToolContext, rel: str, planned: PlannedText, paths: PathSet | None = None
) -> tuple[str | None, bool, str]:
    """`_composed`, and the encoding the run writes the note in: the file's it starts from, which
    every edit keeps (`decoding.encode_edit`); UTF-8 for a note a step wrote whole."""
    text: str | None = None
    encoding = UTF8
    if planned.origin is not None:
        try:
            note = ctx.vault.files.read(ctx.vault.paths.resolve(planned.origin))
        except VaultgateError:  # not there, not a note: nothing to read
            return None, True, encoding
        text, encoding = note.content, note.encoding
    foreseen = True
    for tool, args in planned.calls:
        then = _then(ctx, rel, text, tool, args, paths)
        if then is None:
            foreseen = False
        else:
            text = then
    return text, foreseen, encoding


def _then(
    ctx: ToolContext, rel: str, text: str | None, tool: str, given: dict[str, Any], paths: PathSet | None = None
) -> str | None:
    """The text once `tool` ran with `given` over `text` (None: no note there yet); None when the
    check cannot tell. `paths`: the vault's files as the plan leaves them (a rewrite_links' links
    resolve over them; None: not known here)."""
    template = given.get(TEMPLATE)  # the template file the check found for the call (None: not known)
    args = {k: v for k, v in given.items() if k not in (TEMPLATE, LINKS, MERGED, CAPTURE)}
    content = args.get("content", "")
    if tool in _WHOLE and isinstance(content, str):
        if tool == "create_note":
            front = args.get("frontmatter")
            return yaml_block(front) + content if isinstance(front, dict) and front else content
        if text is None or tool == "write_note" and args.get("mode") != "append":
            return content  # a note made (append_note's create_if_missing) or written whole
        try:
            return sections.keeping_crlf(lambda old: added(old, content, at_start=tool == "prepend_note"))(text)
        except VaultgateError:  # the call refuses it (an append into a block the note leaves open): unchanged
            return None
    if tool == "apply_template":
        return _templated(ctx, args, template, text, rel)
    if tool == "copy_note":  # the copy's text: the original's, its links rewritten for the copy's folder
        source = args.get("path")
        if text is None or not isinstance(source, str):
            return None
        if not (source.lower().endswith(".md") and rel.lower().endswith(".md")):
            return text  # a base, a canvas: its bytes
        return copied_text(ctx.vault, text, source, rel, paths) or text
    if tool == "rewrite_links":
        targets = given.get(TARGETS)
        if paths is None or text is None or not isinstance(targets, list) or len(targets) != 2:
            return None
        old, new = (str(t) for t in targets)
        return repointed(text, rel, old, new, paths.changed(added=[old]), paths).text
    if tool in _PERIODIC and text is None:  # a new periodic note: empty, or made from its template
        text = _periodic_made(ctx, tool, args, template, rel)
        if tool == "create_periodic_note" or text is None:
            return text
    if tool == "create_periodic_note":
        return text  # a periodic note there already is left as it is
    if tool in ("create_entities", "create_relations", "delete_relations"):  # a new note; relations from it
        links = given.get(LINKS)
        try:
            if tool == "create_entities":
                return created_text(ctx, CreateEntitiesIn.model_validate(args), text, rel)
            if text is None or not isinstance(links, dict):  # a target's link only the run finds
                return None
            if tool == "delete_relations":
                return unrelated_text(ctx, DeleteRelationsIn.model_validate(args), links, text, rel)
            return related_text(ctx, CreateRelationsIn.model_validate(args), links, text, rel)
        except (ValidationError, VaultgateError, ValueError):  # the call fails there: it changes nothing
            return None
    if tool == "merge_observations":
        return _merged(ctx, args, given.get(MERGED), text, rel)
    if tool == "process_capture":
        return _filed(ctx, args, given.get(CAPTURE), text, rel)
    if tool == "memory_store":  # a new entity's note, or the fact added to one there
        try:
            return stored_text(ctx, MemoryStoreIn.model_validate(args), text, rel)
        except (ValidationError, VaultgateError, ValueError):  # the call fails there: it changes nothing
            return None
    found = _EDITS.get(tool)
    if found is None or text is None:  # no rule; or a note made by a call that has none
        return None
    model, edit = found
    try:
        return edit(ctx, model.model_validate(args), text, rel)
    except (ValidationError, VaultgateError, ValueError):  # the call fails there: it changes nothing
        return None


def _templated(ctx: ToolContext, args: dict[str, Any], template: object, text: str | None, rel: str) -> str | None:
    """apply_template's edit, where the check found its template (None: only the run finds it)."""
    if not isinstance(template, str):
        return None
    try:
        return applied(ctx, ApplyTemplateIn.model_validate(args), ctx.vault.paths.resolve(template), rel, text)
    except (ValidationError, VaultgateError, ValueError):  # the call fails there: it changes nothing
        return None


def _periodic_made(ctx: ToolContext, tool: str, args: dict[str, Any], template: object, rel: str) -> str | None:
    """The text a periodic tool makes a new note with: empty where its settings name no template,
    else rendered from the template the check found (None: only the run finds it)."""
    try:
        call = (AppendPeriodicIn if tool == "append_to_periodic_note" else PeriodIn).model_validate(args)
        if isinstance(template, str):
            return made_text(ctx, call, rel, ctx.vault.paths.resolve(template))
        return made_text(ctx, call, rel, None) if starts_empty(ctx, call.period) else None
    except (ValidationError, VaultgateError, ValueError):  # the call fails there: it changes nothing
        return None


def _merged(ctx: ToolContext, args: dict[str, Any], merged: object, text: str | None, rel: str) -> str | None:
    """merge_observations' edit of the kept entity's note, with the merged one's as the earlier
    steps leave it (None: only the run finds it, or the call fails: one note named twice, a block
    id the kept note uses for another observation)."""
    if text is None:
        return None
    try:
        return _merge(ctx, MergeObservationsIn.model_validate(args), merged, text, rel)
    except (ValidationError, VaultgateError, ValueError):  # the call fails there: it changes nothing
        return None


def _filed(ctx: ToolContext, args: dict[str, Any], capture: object, text: str | None, rel: str) -> str | None:
    """process_capture's edit of the entity's note and of the inbox, filing a capture the check
    found pending into an entity (None: only the run knows it; another action, whose note the
    check does not compose)."""
    if text is None or not isinstance(capture, dict) or args.get("action") != "entity":
        return None
    try:
        return filed_text(ctx, ProcessCaptureIn.model_validate(args), capture, text, rel)
    except (ValidationError, VaultgateError, ValueError):  # the call fails there: it changes nothing
        return None


def _merge(ctx: ToolContext, args: MergeObservationsIn, merged: object, text: str, rel: str) -> str:
    """`_merged`'s edit, raising the call's refusal (`block_id_taken`: `refused_by`); ValueError
    where only the run knows the merged note's text (none found, or the kept note itself)."""
    if not isinstance(merged, tuple) or merged[0] == rel:
        raise ValueError("the merged entity's note is known only to the run")
    source, planned = merged
    lines, foreseen = _composed(ctx, source, planned)
    if lines is None or not foreseen:
        raise ValueError("the merged entity's note is known only to the run")
    return merged_text(ctx, args, lines, text, rel)


def _patch(ctx: ToolContext, args: PatchNoteIn, text: str, rel: str) -> str:
    address = parse_address(args.path, naming(rel))  # its '#section' ('Odd|pipe#Colors') when no other is given
    call = with_section(args, address.subpath, address)
    return sections.keeping_crlf(lambda old: patched(call, old))(text)


def _appended(ctx: ToolContext, args: AppendIn | WriteNoteIn, text: str, rel: str) -> str:
    return sections.keeping_crlf(lambda old: added(old, args.content))(text)


def _prepended(ctx: ToolContext, args: AppendIn, text: str, rel: str) -> str:
    return sections.keeping_crlf(lambda old: added(old, args.content, at_start=True))(text)


def _property(ctx: ToolContext, args: Any, text: str, rel: str) -> str:
    edit = note_edit(ctx, args)
    return line_ends.keeping(lambda lf: edit(lf, rel))(text)


def _task(ctx: ToolContext, args: SetTaskStatusIn, text: str, rel: str) -> str:
    return sections.keeping_crlf(task_edit(ctx, args, rel, {}))(text)


def _periodic(ctx: ToolContext, args: AppendPeriodicIn, text: str, rel: str) -> str:
    return sections.keeping_crlf(lambda old: periodic_appended(old, args.content, args.heading))(text)


def _renamed_tag(ctx: ToolContext, args: RenameTagIn, text: str, rel: str) -> str:
    return tag_renamed(text, rel, *tag_pair(args))


def _replaced(ctx: ToolContext, args: ReplaceTextIn, text: str, rel: str) -> str:
    folders = [] if args.folder is None else [args.folder] if isinstance(args.folder, str) else args.folder
    inside = [f.strip().strip("/") for f in folders]
    if inside and not any(not f or rel.startswith(f"{f}/") for f in inside):
        return text  # a note outside its folders
    return replaced_in(ctx, args, rel, text)


_WHOLE = frozenset({"create_note", "write_note", "append_note", "prepend_note"})
_PERIODIC = frozenset({"create_periodic_note", "append_to_periodic_note"})
_EDITS: dict[str, tuple[type[BaseModel], Edit]] = {
    "patch_note": (PatchNoteIn, _patch),
    "set_properties": (SetPropertiesIn, _property),
    "delete_property": (DeletePropertyIn, _property),
    "add_tags": (AddTagsIn, _property),
    "remove_tags": (RemoveTagsIn, _property),
    "set_task_status": (SetTaskStatusIn, _task),
    "append_to_periodic_note": (AppendPeriodicIn, _periodic),
    "rename_tag": (RenameTagIn, _renamed_tag),
    "replace_text": (ReplaceTextIn, _replaced),
    "add_observations": (AddObservationsIn, observed_text),
    "delete_observations": (DeleteObservationsIn, unobserved_text),
    "supersede_observation": (SupersedeIn, superseding_text),
}
