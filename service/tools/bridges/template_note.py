"""The note execute_template makes, as Templater and Obsidian will make it: its name checked
before anything is sent, and what a human confirming the call is shown.

Templater's `create_new_note_from_template` (src/core/Templater.ts) asks Obsidian for
`vault.getAvailablePath(normalizePath(folder + "/" + filename), "md")`: a note of that name there
already is left as it is and the new one is named with a number after it (`Kickoff 1.md`,
`Kickoff 2.md`, ...); the folder is created when missing; then `vault.create`, whose path check
throws on ':' (and on Windows on `* " < > | ?` too). A name with '#', '^', '[', ']' or '|' is
created, but no link reaches it. So a new name is held to the rule of every note vaultgate
creates (`VaultPaths.check_new_name`, and no case twin of a file there): refused with `path_invalid`
(`already_exists`) and its hint before anyone is asked or anything is sent, and by the spec's static
check in validate_plan and a dry-run preview.

The note Obsidian made (the path the companion answers, when it is one the call can have made:
`made_by_the_call`) is then the vault's as a note vaultgate writes is (`made_in_the_vault`): its
creation is published on the vault's change bus, so the index holds it before the caller's next
call (a move of it by its bare name finds it), and inside a plan run it is journaled with the
folders made for it, so undo_last_plan removes them (a plan's check names the note as Obsidian
will: `service.plans.tool_effects.template_note`). Templater never overwrites a note: there is
nothing else of the vault's to put back.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import unicodedata
from pathlib import Path

from service.errors import PathInvalid
from service.obsidian.available_path import available_path
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.vault import dirfd
from service.vault.casing import refuse_case_twin
from service.vault.etags import etag_of_stream
from service.vault.events import FileChange
from service.vault.journal import RECORDER, PriorState, record_folders
from service.vault.paths import VaultPath

log = logging.getLogger(__name__)


def check_new_note(ctx: ToolContext, target: VaultPath) -> None:
    """`path_invalid` (`details.field`: the argument) when a folder Templater makes for the note,
    or the note itself, has a name no note or folder of this vault may be created with; and
    `already_exists` when the note as Obsidian names it, or a folder made for it, differs from a
    file or folder there only in letter case (`casing.refuse_case_twin`, as every create refuses
    it: on a case-blind disk Obsidian's `vault.create` throws on it, on another it makes a twin
    that a dry-run vault's preview and a plan's check refuse)."""
    paths = ctx.vault.paths
    field = "folder"
    try:
        for folder in ctx.vault.files.missing_folders(target):
            paths.check_new_name(folder.relative_to(paths.root).as_posix(), folder.name)
        field = "filename"
        paths.check_new_name(target.rel, target.name)
    except PathInvalid as exc:
        exc.details.setdefault("field", field)
        raise
    refuse_case_twin(paths.root, named_as_obsidian_names(ctx, target))


def _taken(ctx: ToolContext, rel: str) -> bool:
    """A file at `rel` the caller may read (one it may not read is not told apart from none)."""
    try:
        on_disk = ctx.vault.paths.on_disk(rel)
    except PathInvalid:
        return False
    return on_disk.exists() and ctx.services.guard.allows(ctx.principal, ctx.vault, rel, "read")


def named_as_obsidian_names(ctx: ToolContext, target: VaultPath) -> str:
    """The path Obsidian gives the new note: `target`, or with ' 1', ' 2', ... after its name."""
    return available_path(target.rel, lambda rel: _taken(ctx, rel))


def template_preview(ctx: ToolContext, template: VaultPath, target: VaultPath, *, open_note: bool) -> ChangePreview:
    """What execute_template will do, for the human who confirms it: the template file its
    address resolved to, the note it will create (and what becomes of one already there)."""
    made = named_as_obsidian_names(ctx, target)
    lines = [
        f"execute_template: Templater, in the running Obsidian, runs the template {template.rel} "
        "(its commands and user scripts run, and may change other notes)",
        f"and creates the note {made}" + (", then opens it in Obsidian." if open_note else "."),
    ]
    if made != target.rel:
        lines.append(f"A note {target.rel} exists already: it is left as it is, and the new note is {made}.")
    missing = ctx.vault.files.missing_folders(target)
    if missing:
        lines.append(f"The folder {missing[0].relative_to(ctx.vault.paths.root).as_posix()} is created for it.")
    return ChangePreview(" ".join(lines[:2]) + ("\n" + "\n".join(lines[2:]) if lines[2:] else ""))


def _journal_made(root: Path, rel: str, folders: list[Path]) -> None:
    """Journal, for the plan run recording this call (`RECORDER`), the folders Obsidian made
    (`folders`: those missing before, deepest first) and the note `rel` as made from nothing with
    the bytes it holds now, so the undo removes it while it is still what Templater made (and
    then the folders left empty). After the change, not before it: Obsidian made it, and only its
    answer names it. Worker thread."""
    recorder = RECORDER.get()
    if recorder is None:
        return
    try:
        etag = dirfd.scan_file(root, rel, etag_of_stream)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return  # not there (Obsidian made it elsewhere, or it is gone already): nothing to undo
    record_folders(root, [folder for folder in folders if folder.is_dir()])
    recorder.record(PriorState("file", rel, None, etag))


async def names_before(target: VaultPath) -> frozenset[str]:
    """The names in the folder of the note the call is to make, before it is made (none when the
    folder is not there yet): what `made_by_the_call` tells the new note apart from."""

    def listed() -> frozenset[str]:
        try:
            return frozenset(unicodedata.normalize("NFC", name) for name in os.listdir(target.abs.parent))
        except (FileNotFoundError, NotADirectoryError):
            return frozenset()

    return await asyncio.to_thread(listed)


def made_by_the_call(target: VaultPath, rel: str, before: frozenset[str]) -> bool:
    """Whether `rel`, the path the companion answered, is a note the call can have made: in the
    folder asked for, named as Obsidian names it (`target`'s name, or it with ' N'), and not there
    before. Another path (a broken or foreign plugin answering an existing note, the template
    itself) is not journaled as made from nothing: undo_last_plan would delete that note."""
    folder, _, name = rel.rpartition("/")
    if folder != target.parent_rel or name in before:
        return False
    stem = target.name.removesuffix(".md")
    return name == target.name or re.fullmatch(re.escape(stem) + r" [1-9][0-9]*\.md", name) is not None


async def made_in_the_vault(
    ctx: ToolContext, rel: str, folders: list[Path], target: VaultPath, before: frozenset[str]
) -> None:
    """The note `rel` Obsidian made for the call (`folders`: the folders missing before it was
    made): journaled when a plan run records the call, and published as a note vaultgate created;
    nothing when `rel` is no note the call can have made (`made_by_the_call`: the names `before`
    it in `target`'s folder)."""
    if not made_by_the_call(target, rel, before):
        log.warning("execute_template: the companion answered %r, not a new note like %r", rel, target.rel)
        return
    await asyncio.to_thread(_journal_made, ctx.vault.paths.root, rel, folders)
    await ctx.vault.bus.publish([FileChange("created", rel)])
