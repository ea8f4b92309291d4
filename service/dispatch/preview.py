"""The answer to a mutating call in a vault whose `write_mode` is `dry-run`, for a tool without a
`dry_run` argument of its own: its preview (`service.plans.preview`), computed from the call's
validated arguments, instead of running it.

Used by the `acl` layer (`service.dispatch.acl_gate`), so nothing after it runs: no idempotency
claim, no throttle token, no confirmation, no handler — nothing is changed. Every path the call
would write or delete is checked first, as the tool itself would check it (a path outside the
vault is `path_invalid`, a path the caller may not write is `acl_denied`, a note created where one
is already there without leave to overwrite it is `already_exists`): a preview never promises a
change the real call would refuse. A tool's `static_check` (a bridge tool's: its bridge, its
`safe_commands`, the paths in its other arguments) runs first, answering as the real call would.
An edit of a part of a note (a patch of a heading, a block or an anchor, a task's status, an
inline tag under a heading) is run by the tool's own edit function on the note's text, as a plan's
check does (`service.tools.sessions.plan_texts.refused_by`): a heading the note lacks is the call's
own refusal, never a change; so is a property or tag edit of the frontmatter the run refuses
whatever the note (no tag, '🎉'; a blank property name) or whose text its encoding lacks. A
plugin's action, whose effects its arguments do not tell, adds its confirmation's words to the
summary (the spec's `dry_run_preview`: execute_template names the template file and the note
Obsidian will make). A memory tool's refusals of the notes as they are now (an observation a
supersede names not there, a merge's block id taken, a capture processed already) are its own
(`service.tools.memory.previews`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from service.dispatch.context import CallContext, ContextFor, ToolResult
from service.errors import AlreadyExists, PathInvalid, VaultgateError
from service.memory.store import memory_notes
from service.plans.preview import call_effects, preview_of
from service.plans.texts import PlannedText
from service.plans.tool_effects import ADDRESSED, MODIFY, TEXT_TARGETS
from service.settings import MemorySettings
from service.tools.models import PIPELINE_ARGS
from service.types import PathGuard
from service.vault.casing import refuse_batch_twin, refuse_case_twin
from service.vault.paths import normalize
from service.vault.readonly import read_only, refuse_read_only


class WritePreview:
    def __init__(self, guard: PathGuard, context_for: ContextFor, memory: MemorySettings | None = None) -> None:
        self.guard = guard
        self.context_for = context_for  # a note address is found as the tool would find it
        self.memory = memory  # the memory folder and the capture inbox ([memory])

    async def __call__(self, call: CallContext) -> ToolResult:
        spec, args, vault = call.spec, call.args, call.vault
        assert spec is not None and args is not None and vault is not None
        root = vault.paths.root

        def exists(rel: str) -> bool:
            """A note the caller may not read is answered as absent: the preview never tells it
            from a missing one (what a denied caller may learn of a folder: nothing). Settings
            files in hidden folders are no notes: the ACL does not apply to them."""
            try:
                clean = normalize(rel)
                readable = vault.paths.is_hidden(clean) or self.guard.allows(call.principal, vault, clean, "read")
                return readable and vault.paths.on_disk(clean).is_file()
            except PathInvalid:
                return False

        def is_folder(rel: str) -> bool:
            try:
                return vault.paths.on_disk(normalize(rel)).is_dir()
            except PathInvalid:
                return False

        if spec.static_check is not None:  # plugin_missing, not_in_safe_commands, acl_denied...
            await spec.static_check(self.context_for(call), args)
        if spec.domain == "memory":  # an observation, a capture, an entity it needs, as the notes are now
            from service.tools.memory.previews import refused_now  # loaded at the first such preview

            await refused_now(self.context_for(call), spec.name, args)
        data = args.model_dump(mode="json", exclude_none=True, exclude=set(PIPELINE_ARGS) | {"vault"})
        given = dict(data)  # as written: a patch's `Note#Goals` names its section
        address = data.get("path")
        if spec.name in ADDRESSED and isinstance(address, str):  # `Launch plan` is Projects/Launch plan.md
            ctx = self.context_for(call)
            try:  # a .base as query_base finds it (its name alone too), a note as find_note does
                if address.strip().strip("[]").lower().endswith(".base"):
                    data["path"] = (await ctx.find_file(address, "read")).rel
                else:
                    data["path"] = (await ctx.find_note(address, "read", missing_ok=True)).vp.rel
            except VaultgateError:  # the path as written: its own problem is answered below
                pass

        def may_read(rel: str) -> bool:  # a hidden entity note is no entity's (`memory_notes`)
            return self.guard.allows(call.principal, vault, rel, "read")

        effects, paths, refused = call_effects(
            spec.name,
            data,
            destructive=spec.destructive,
            scopes=spec.scopes,
            exists=exists,
            root=root,
            memory=None if self.memory is None else memory_notes(self.memory, root, may_read),
            is_folder=is_folder,
            trash=vault.files.trash_folder,
            read_only=lambda rel: read_only(vault.paths.on_disk(normalize(rel))) is not None,
        )
        for rel, op in paths:
            vp = vault.paths.resolve(rel, op=op)  # raises path_invalid as the tool would
            self.guard.check(call.principal, vault, vp.rel, op)  # and acl_denied
        for code, rel in refused:  # a create onto a note already there, a read-only note: the call's own answer
            if code == "vault_unwritable":
                refuse_read_only(vault.paths.on_disk(normalize(rel)), rel)
            raise AlreadyExists(f"a note already exists at {rel!r}", details={"path": rel})
        _refuse_twins(root, effects.files_created, effects.folders_created, vault.files.trash_folder)
        note = data.get("path")
        if spec.name in TEXT_TARGETS | MODIFY and isinstance(note, str) and exists(note):  # MODIFY: the properties
            # Imported at the first such preview: the plan tools' edit functions import most domain
            # packages, which a server imports at each one's first call (`service.tools.registry`).
            from service.tools.sessions.plan_texts import refused_by

            # a heading, block or task line the note lacks: the call's own answer, as a plan's check finds it
            refused_edit = await asyncio.to_thread(
                refused_by, self.context_for(call), spec.name, given, note, PlannedText(note)
            )
            if refused_edit is not None:
                raise refused_edit
        preview = preview_of(spec.name, effects)
        if spec.dry_run_preview is not None:  # a plugin's action: what its confirmation would say
            told = await spec.dry_run_preview(self.context_for(call), args)
            if told is not None:
                summary = told if isinstance(told, str) else told.summary
                preview = preview.model_copy(update={"summary": f"{preview.summary}\n{summary}"})
        return ToolResult(structured=preview.model_dump(mode="json", by_alias=True), text=preview.summary)


def _refuse_twins(root: Path, files: list[str], folders: list[str], trash: str) -> None:
    """A create of a case twin (a name differing only in letter case from a file or folder there,
    `service.vault.casing`; of one the same batch makes) as the call refuses it: each new file,
    then each new folder no other new path lies under (`dd/sub`, not `dd`), by its full path, so
    the error is the call's own ('DD' already exists: 'dd/sub/n.md' ...)."""
    batch: dict[str, str] = {}
    for rel in files:
        if not f"{rel}/".startswith(f"{trash}/"):  # a soft delete's copy: the server names it
            refuse_case_twin(root, rel)
            refuse_batch_twin(batch, rel)
    for folder in folders:
        if not any(other.startswith(f"{folder}/") for other in [*files, *folders]):
            refuse_case_twin(root, folder)
