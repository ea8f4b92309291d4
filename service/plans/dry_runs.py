"""The rewriting tools' own dry runs in a plan's check: a move (`move_note`, `rename_note`) or a
link, tag or text rewrite (`rewrite_links`, `rename_tag`, `replace_text`) is run with `dry_run` through the dispatch
chain, every page, to learn the files it would change; those are the plan's effects. A read-only
note among them (a move's dry run refuses with `vault_unwritable`; a rewrite's lists the note)
means the step is refused at run time: it is listed in the effects' failures. So is a replace_text
whose replacement a note's encoding cannot hold (`replace_refusal`), found by its dry run over the
notes no earlier step touched and by the tool's own edit over those the earlier steps leave; and a
move or rewrite whose dry run is refused for its plan's size (`compute_budget_exceeded`: `[limits]
max_rewrite_seconds`, `max_rewrite_notes`), which the run's plan is as well."""

from __future__ import annotations

from typing import Any, Protocol

from service.errors import VaultgateError
from service.graph.address import parse_address
from service.plans.effects import EffectsBuilder
from service.plans.host import Failure
from service.plans.notepaths import note_file
from service.plans.planned_links import Rewriter, links_on_plan, move_on_plan, renamed_around
from service.plans.texts import TARGETS, PlannedText
from service.plans.tool_effects import BOOKMARKS_FILE

MAX_PAGES = 5000  # pages of one dry run, at most (as many as a plan has calls)
DRY_RUN_PAGE = 500  # changed files per page of a rewriting tool's dry run (its maximum `limit`)
BUDGET = "compute_budget_exceeded"  # a dry run's plan past [limits] max_rewrite_seconds / _notes: the run's too


class Reader(Rewriter, Protocol):
    async def read(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """Run a call that changes nothing through the dispatch chain: (result, error code)."""

    async def call(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, Failure | None]:
        """`read`, with its error whole (its details: the note a replace_text's encoding refuses)."""

    async def text_changes(self, tool: str, args: dict[str, Any], texts: dict[str, PlannedText]) -> list[str]:
        """The notes of `texts` (as the earlier steps leave them) whose text `tool` called with
        `args` changes, by the tool's own edit function."""

    async def text_refusal(self, tool: str, args: dict[str, Any], rel: str, text: PlannedText) -> VaultgateError | None:
        """The error `tool`'s edit of the note at `rel`, its text as the earlier steps leave it, raises."""


async def _dry_run(
    host: Reader, tool: str, args: dict[str, Any]
) -> tuple[dict[str, Any] | None, set[str], dict[str, str], Failure | None]:
    """A rewriting tool's own dry run, every page: its first page, every file it changes (the
    notes it edits, with their new paths, and the settings files it repoints), every file a move
    moves (old path -> new: a folder's notes), and the error of a page refused."""
    first: dict[str, Any] | None = None
    files: set[str] = set()
    moved: dict[str, str] = {}
    cursor: str | None = None
    for _page in range(MAX_PAGES):
        page, error = await host.call(
            tool, {**args, "dry_run": True, "limit": DRY_RUN_PAGE, **({"cursor": cursor} if cursor else {})}
        )
        if page is None:
            return first, files, moved, error
        first = first or page
        for item in page.get("items") or []:
            files.add(str(item["path"]))
            if item.get("new_path"):
                files.add(str(item["new_path"]))
        for pair in page.get("moved") or []:
            moved[str(pair["old_path"])] = str(pair["new_path"])
        cursor = page.get("next_cursor")
        if not cursor:
            break
    if first is not None and first.get("bookmarks_updated"):
        files.add(BOOKMARKS_FILE)
    if first is not None:  # the workspace files the move repoints, as Obsidian does
        files.update(str(f) for f in first.get("settings_updated") or [])
    return first, files, moved, None


async def preview_move(tool: str, args: dict[str, Any], host: Reader, builder: EffectsBuilder) -> None:
    """The move's own dry run: the links it rewrites and every file they are in; over the vault
    the earlier steps leave where they made, wrote or removed a file (`service.plans.planned_links`:
    a note or folder the plan makes is moved at run time, the links a note it made holds are
    rewritten, a note it deleted holds none)."""
    moved = builder.effects.files_moved[-1]
    if moved.folder:  # a folder the plan makes, moved as one by the builder: its dry run cannot see it
        await move_on_plan(host, builder, moved)
        return
    preview, files, pairs, error = await _dry_run(host, tool, args)
    code = None if error is None else error.code
    if code == BUDGET:  # its plan is past [limits] max_rewrite_seconds or max_rewrite_notes: so is the run's
        builder.failing.append((code, str(args.get("path", ""))))
    if code == "vault_unwritable":  # a read-only note holds a link it would rewrite: refused at run time
        builder.unwritable_now(moved.from_path)
    if code == "already_exists" and not _freed(builder, moved.from_path, str(args.get("new_path", ""))):
        # something is at the destination now (a folder, a file: `graph.move_checks.check_targets`)
        # and no earlier step moves or deletes anything that could free it: the run is refused so
        builder.failing.append((code, str(args.get("new_path", "")).strip()))
    if preview is None:
        if code == "note_not_found":  # a note an earlier step makes, maybe
            await move_on_plan(host, builder, moved)
        return
    moves = {*pairs, *pairs.values()}
    moved.links_rewritten = preview.get("links_rewritten")
    moved.files_changed = preview.get("notes_rewritten")
    folder = bool(moves) and not moves & {moved.from_path, moved.to_path}  # a folder and the notes in it
    # where the tool itself moves it (its own rule for the source and the destination)
    moved.from_path, moved.to_path = str(preview.get("old_path")), str(preview.get("path"))
    moved.rewritten_in = sorted(files - moves - {moved.from_path, moved.to_path})
    if folder:  # the files it moves as the earlier steps leave the folder, at their new paths after it
        moved.folder = True
        moving = builder.folder_moved(moved.from_path, moved.to_path, pairs)
        moved.moved_files = sorted({*moving, *moving.values()})
    await move_on_plan(host, builder, moved)  # where earlier steps made, wrote or removed files: over the plan's vault


def _freed(builder: EffectsBuilder, source: str, new_path: str) -> bool:
    """Whether an earlier step moved away or deleted a file whose path holds the name of a move's
    destination (`new_path`): the dry run, on the vault as it is now, may be refused where the run
    is not."""
    name = new_path.strip().strip("/").rsplit("/", 1)[-1].removesuffix(".md").lower()
    gone = {*builder.stepped()[1], *builder.effects.files_deleted}
    gone.update(m.from_path for m in builder.effects.files_moved[:-1])
    return any(name in p.lower() for p in gone - {source})


async def preview_rewrite(
    tool: str, args: dict[str, Any], host: Reader, builder: EffectsBuilder, step_id: str, *, ask: bool = True
) -> VaultgateError | None:
    """rename_tag / rewrite_links / replace_text: the notes its dry run lists are files the plan modifies; a
    rewrite_links' over the vault the earlier steps leave where they made its new target or a
    file named as one of its targets (`service.plans.planned_links`). The call is then no
    change of files found only at run time: taken out of `bulk_changes`, where the builder puts
    every call of a tool it has no rule for (one entry a call). A replace_text a note's encoding
    refuses (`replace_refusal`; `ask`: not yet asked of the note its `path` names) is listed in
    `failing` and its error returned, for the check to tell as the run does."""
    known = f"{step_id}: {tool}"
    dry = bool(args.get("dry_run", True))
    preview, files, _moved, error = (None, set(), {}, None) if dry else await _dry_run(host, tool, args)
    if tool == "replace_text" and ask:
        if dry:  # the step is a dry run: it refuses as its first page does
            error = (await host.call(tool, {**args, "limit": 1}))[1]
        told = await replace_refusal(host, builder, args, error)
        if told is not None:
            builder.failing.append((told.code, str(told.details.get("path"))))
            if known in builder.effects.bulk_changes:
                builder.effects.bulk_changes.remove(known)
            return told
    if dry:
        if known in builder.effects.bulk_changes:
            builder.effects.bulk_changes.remove(known)
        return None  # a dry run inside the plan changes nothing
    code = None if error is None else error.code
    if code == BUDGET:  # its plan is past [limits] max_rewrite_seconds or max_rewrite_notes: so is the run's
        builder.failing.append((code, str(args.get("path") or args.get("old_target") or args.get("old") or "")))
        return None
    old = str(args.get("old_target", ""))
    planned: list[str] | None = None  # the notes it edits over the vault the earlier steps leave
    targets: list[str] | None = None  # a rewrite_links' [old, new] paths, where the check knows them
    run_time = False  # its notes are known only at run time: it stays in bulk_changes
    if code == "note_not_found" and tool == "rewrite_links":  # its new target is no note on disk...
        target = parse_address(str(args.get("new_target", ""))).target
        made = builder.planned(target)
        if made is None or not builder.exists(made):  # ...nor one an earlier step makes: the run fails too
            builder.absent.append(("", made or note_file(target)))
            return None
        planned = await links_on_plan(host, builder, old, made)
        literal = note_file(parse_address(old).target)  # the path as written, where a file is (as the tool takes it)
        if builder.exists(literal) and builder.planned(parse_address(old).target) in (None, literal):
            targets = [literal, made]
    elif preview is not None and tool == "rewrite_links":
        new = str(preview.get("new_target"))
        resolved = str(preview.get("old_target"))
        if renamed_around(builder, {str(preview.get("old_target")), new}):
            # where the new target is once the earlier steps ran (moved: at its new path)
            made = builder.planned(parse_address(str(args.get("new_target", ""))).target)
            new = made or new
            if made is not None and not builder.exists(made):  # moved away or deleted: the run fails
                builder.absent.append(("", made))
                return None
            if not builder.exists(new):  # moved by a name its address does not tell (an alias): at run time
                run_time = True
            else:
                planned = await links_on_plan(host, builder, old, new)
                targets = [resolved, new]
        elif not builder.exists(new):  # an earlier step deleted it: which note of its name (if any) the run
            run_time = True  # then finds is known only at run time, and so are the notes it edits
        else:
            targets = [resolved, new]
    if planned is None and preview is None and tool == "replace_text":  # its scope no vault holds now...
        planned = await _replaced_on_plan(host, builder, args)  # ...but one the earlier steps make
    if planned is not None:
        files = set(planned)
    elif preview is None or run_time:
        return None
    if known in builder.effects.bulk_changes:
        builder.effects.bulk_changes.remove(known)
    for rel in sorted(files):  # not a note an earlier step deleted or moved away: the run meets none there
        if rel not in builder.effects.files_created and builder.exists(rel) and not builder.kept(rel):
            builder.add(builder.effects.files_modified, rel)  # kept: read-only, refused
    # the texts it changes, for a later move's rewrites: those its dry run lists, and those earlier
    # steps wrote, which the run finds in the index (the tool layer tells which it edits how)
    written = {} if tool == "replace_text" and args.get("path") else builder.planned_texts()  # path=: that note only
    recorded = args if targets is None else {**args, TARGETS: targets}
    for rel in sorted({*(f for f in files if builder.exists(f)), *written}):
        builder.edited(rel, tool, recorded)
    return None


async def _replaced_on_plan(host: Reader, builder: EffectsBuilder, args: dict[str, Any]) -> list[str] | None:
    """The notes a replace_text whose dry run failed on the vault as it is now edits, where its
    scope is made by the earlier steps: the note its `path` names, or the notes in the folders of
    its `folder`, as those steps leave their texts (None: a scope they do not make either; the
    run fails as its dry run did, or finds it only at run time)."""
    texts = builder.planned_texts()
    path = args.get("path")
    if isinstance(path, str):
        rel = builder.planned(parse_address(path).target)
        scoped = {rel: texts[rel]} if rel is not None and rel in texts else None
    else:
        given = args.get("folder")
        folders = [given] if isinstance(given, str) else given if isinstance(given, list) else []
        inside = [str(f).strip().strip("/") for f in folders]
        if not inside or not all(f and builder.folder_now(f) and not builder.folder_on_disk(f) for f in inside):
            return None
        scoped = {rel: t for rel, t in texts.items() if any(rel.startswith(f"{f}/") for f in inside)}
    return None if scoped is None else await host.text_changes("replace_text", args, scoped)


async def replace_refusal(
    host: Reader, builder: EffectsBuilder, args: dict[str, Any], error: Failure | None
) -> VaultgateError | None:
    """The refusal of a replace_text whose replacement a note's encoding cannot hold (an emoji into
    a cp1252 note: `unrepresentable`), as the run meets its notes, in path order, over the vault
    the earlier steps leave: of the notes no earlier step touched, the one its dry run on the vault
    now (`error`) refused; of those the earlier steps made, wrote, moved or copied, the ones the
    tool's own edit refuses as the steps leave their text (the note its `path` names, or every
    note: its edit leaves one outside its `folder` as it is). The first of them, where it is the
    first the run meets (a touched note refused by the dry run says nothing of the notes after it)."""
    texts = builder.planned_texts()
    path = args.get("path")
    if isinstance(path, str):
        rel = builder.planned(parse_address(path).target)
        planned = [rel] if rel is not None and rel in texts else []
    else:
        planned = sorted(rel for rel in texts if rel.lower().endswith(".md"))
    found: VaultgateError | None = None
    for rel in planned:
        told = await host.text_refusal("replace_text", args, rel, texts[rel])
        if told is not None and told.details.get("reason") == "unrepresentable":
            found = told
            break
    details = (error.details or {}) if error is not None else {}
    on_disk = str(details.get("path")) if details.get("reason") == "unrepresentable" else None
    if on_disk is None or found is not None and str(found.details.get("path")) <= on_disk:
        return found
    if on_disk in builder.texts or not builder.exists(on_disk):  # a note a step touched: the run's is unknown
        return None
    return await host.text_refusal("replace_text", args, on_disk, builder.text_of(on_disk))
