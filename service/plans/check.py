"""Validation of a plan without changing anything, and its effects summary.

`check_plan` runs the checks in this order and collects every problem with its step id: the
dependency graph (`service.plans.graph`), the parameter values, then each step in run order —
the tool exists and is visible to the caller, the caller holds its scopes, `foreach` resolves
to a list, each call's arguments validate against the tool's input model (fields whose value is
a reference known only at run time are left out of that check; one problem a call, the error the
call answers: `Host.invalid_arguments`), what its tool's `static_check`
refuses (`service.plans.refusals`), the paths it touches pass the caller's path ACL — and the
plan's size after `foreach` expansion against `MAX_CALLS`.

Read-only steps that come before any mutating step are run (through the `Host`, i.e. the whole
dispatch chain, as the caller): reading changes nothing, and their results make the references
of later steps, `foreach` lists included, known before execution; so does the `path` a create,
write, copy or move answers where its arguments decide it, a foreach step's and a
bulk_create_notes' paths too (`_known_result`). Moves are previewed with the
tool's own dry run to count the links they rewrite. The host is the tool layer's view of the
server (`service.plans.host`): the engine itself imports no tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from service.errors import VaultgateError
from service.plans import graph as plan_graph
from service.plans.addresses import found_args, made_late_name, name_problems
from service.plans.dry_runs import preview_move, preview_rewrite
from service.plans.effects import EffectsBuilder
from service.plans.failing import failing
from service.plans.host import Host, ToolInfo
from service.plans.memory_effects import (
    MEMORY_TEXTS,
    entity_note,
    merged_note,
    pending_capture,
    relation_targets,
)
from service.plans.model import Plan, Step
from service.plans.notepaths import new_note
from service.plans.params import Problem, bind_params
from service.plans.refs import RefError, Scope, Unresolved, known_parts, not_a_list, resolve
from service.plans.refusals import refusal
from service.plans.schedule import run_after
from service.plans.summary import Failure, PlanEffects
from service.plans.texts import CAPTURE, LINKS, MERGED, TEMPLATE
from service.plans.tool_effects import (
    CREATE_OR_MODIFY,
    EDITS,
    MODIFY,
    MOVES,
    NAMING,
    PERIODIC,
    REWRITES,
    TEMPLATE_NOTE,
    TEXT_TARGETS,
    WHOLE_NOTE,
)
from service.plans.twins import twin_problems
from service.vault.paths import renamed

MAX_STEPS = 500  # steps as written
MAX_CALLS = 5000  # tool calls after foreach expansion
RESERVED_ARGS = frozenset({"vault", "elicit_token"})  # the runner sets these: a plan runs in one vault
NOT_IN_PLANS = frozenset({"plans", "facade"})  # tags of tools a plan may not run (no plan inside a plan)
TEMPLATED = PERIODIC | {"apply_template"}  # calls that render a template the tools find (`_given`)
RELATING = frozenset({"create_relations", "delete_relations"})  # calls whose targets' links the check finds


@dataclass
class Checked:
    plan: Plan
    params: dict[str, Any]
    order: list[Step]
    effects: PlanEffects
    problems: list[Problem] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)  # read-only results known at validation
    deps: dict[str, set[str]] = field(default_factory=dict)  # step id -> the steps it needs
    estimates: dict[str, int] = field(default_factory=dict)  # step id -> calls counted in estimated_steps
    # mutating (step, tool, args, on_plan) known now; `on_plan`: the call touches a file an earlier
    # call of the plan writes, moves or deletes, so the vault as it is now cannot tell what the
    # call will meet
    calls: list[tuple[str, str, dict[str, Any], bool]] = field(default_factory=list)
    late: list[tuple[str, str]] = field(default_factory=list)  # mutating (step, tool) known only at run time
    touches: dict[str, frozenset[str] | None] = field(default_factory=dict)  # mutating step -> files (None: unknown)
    paths: dict[tuple[str, str], str] = field(default_factory=dict)  # (path, op) -> the first call touching it
    told: dict[str, VaultgateError] = field(default_factory=dict)  # call -> its refusal of its note's text
    written: dict[str, str] = field(default_factory=dict)  # a note's path -> as the first call naming it wrote it
    after: dict[str, set[str]] | None = None  # step -> steps to finish first (`service.plans.schedule`)

    @property
    def ok(self) -> bool:
        return not self.problems


def _arg_errors(tool: ToolInfo, args: dict[str, Any], late: set[str]) -> list[ErrorDetails]:
    """The input model's errors of `args`, except in `late` fields (their value is known at run time)."""
    trial = {k: v for k, v in args.items() if k not in late}
    try:
        tool.input_model.model_validate(trial)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        return [e for e in errors if not (e["loc"] and e["loc"][0] in late)]
    return []


async def check_plan(plan: Plan, given: dict[str, Any], host: Host, *, late_params: bool = False) -> Checked:
    """Check `plan` run with the `given` parameter values (`late_params`: missing ones are known
    only at run time; their references are treated like those to a mutating step's result)."""
    g = plan_graph.build(plan)
    params, problems = bind_params(plan.params, given, late=late_params)
    builder = EffectsBuilder(
        host.exists,
        host.root,
        host.memory,
        host.is_folder,
        is_file=host.is_file,
        trash=host.trash,
        read_only=host.read_only,
    )
    checked = Checked(plan, params, g.order, builder.effects, deps=g.deps)
    checked.problems.extend(Problem(s, c, m) for s, c, m in g.problems)
    checked.problems.extend(problems)
    if len(plan.steps) > MAX_STEPS:
        checked.problems.append(Problem(None, "too_large", f"{len(plan.steps)} steps; at most {MAX_STEPS}"))
    scope = Scope(params=params)
    reads_allowed = True  # until the first mutating step: later reads may see its changes
    for step in g.order:
        tool = host.tool(step.tool)
        if tool is None:
            checked.problems.append(Problem(step.id, "unknown_tool", f"no tool {step.tool!r}"))
            reads_allowed = False
            continue
        if NOT_IN_PLANS.intersection(tool.tags):
            checked.problems.append(Problem(step.id, "not_allowed", f"{step.tool} cannot run inside a plan"))
            continue
        reserved = sorted(RESERVED_ARGS.intersection(step.args))
        if reserved:
            checked.problems.append(Problem(step.id, "not_allowed", f"args may not set {', '.join(reserved)}"))
        scope_problem = host.scope_problem(tool)
        if scope_problem:
            checked.problems.append(Problem(step.id, "forbidden", scope_problem))
        reads_allowed = await _check_step(step, tool, scope, host, builder, checked, reads_allowed)
    refused: set[str] = set()
    for (rel, op), where in checked.paths.items():  # each (path, op) once, named by its first call
        problem = host.path_problem(rel, op, checked.written.get(rel))
        if problem:
            checked.problems.append(Problem(where, *problem))
            refused.add(rel)
    made = builder.effects
    moved = [m.to_path for m in made.files_moved if renamed(m.from_path, m.to_path)]  # keeping its name: none new
    for rel in dict.fromkeys([*made.folders_created, *made.files_created, *moved]):
        binned = f"{rel}/".startswith(f"{host.trash}/")  # a soft delete's copy: named by the server, not the plan
        problem = None if rel in refused or binned else host.new_name_problem(rel)
        if problem:
            first = next((w for (p, _), w in checked.paths.items() if p == rel or p.startswith(f"{rel}/")), None)
            checked.problems.append(Problem(first, *problem))  # a folder: the first call writing in it
    told = refused | {p.step for p in checked.problems if p.step}  # a call refused already: told once
    twins, unmade = twin_problems(checked.paths, made, told, host.root, builder.stepped()[1], host.trash, plan.steps)
    checked.problems += twins
    refused |= unmade  # its failure is that problem, told once
    if builder.effects.estimated_steps > MAX_CALLS and not any(p.code == "too_large" for p in checked.problems):
        checked.problems.append(
            Problem(None, "too_large", f"{builder.effects.estimated_steps} tool calls; at most {MAX_CALLS}")
        )
    if not late_params:  # a macro being saved meets the vault only when it runs
        checked.problems += [
            failing(f, checked.told.get(f.step))  # the run's own refusal, where the check found it
            for f in builder.effects.failures
            if f.stops and f.path not in refused  # a path the call refuses first (acl_denied...): that problem
        ]
    checked.results = scope.steps
    checked.after = run_after(g.order, g.deps, checked.touches)
    return checked


async def _check_step(
    step: Step, tool: ToolInfo, scope: Scope, host: Host, builder: EffectsBuilder, checked: Checked, reads: bool
) -> bool:
    """Check one step's calls; returns whether later read-only steps may still be run."""
    items: list[Any] | None = None
    if step.foreach is None:
        items = [None]
    else:
        try:
            found = resolve(step.foreach, scope, f"{step.id}.foreach")
        except Unresolved:
            found = None
        except RefError as exc:
            checked.problems.append(Problem(step.id, "bad_reference", str(exc)))
            return reads and not tool.mutating
        if found is not None and not isinstance(found, list):
            checked.problems.append(Problem(step.id, "bad_reference", not_a_list(found)))
            return reads and not tool.mutating
        items = found
    if tool.mutating:
        checked.touches[step.id] = frozenset()
    if items is None:  # the list is known only at run time
        if tool.mutating:
            checked.touches[step.id] = None
        builder.effects.estimated_steps += 1
        checked.estimates[step.id] = 1
        builder.effects.unresolved.append(step.id)
        if tool.mutating:
            builder.risk("writes")
            checked.late.append((step.id, step.tool))
            builder.late_writes = True
        return reads and not tool.mutating
    builder.effects.estimated_steps += len(items)
    checked.estimates[step.id] = len(items)
    if builder.effects.estimated_steps > MAX_CALLS:  # before any of its work: no read, no dry run
        checked.problems.append(
            Problem(
                step.id,
                "too_large",
                f"{step.id} expands to {len(items)} calls, {builder.effects.estimated_steps} tool calls so far; "
                f"at most {MAX_CALLS}",
            )
        )
        if tool.mutating:
            checked.touches[step.id] = None
        return False
    results: list[Any] = []
    known: list[Any] = [None] * len(items)  # what each call's result is known to hold (`_known_result`)
    # A read-only call that acts in the running Obsidian (open_in_obsidian opens a tab) is never
    # made by a check: validating a plan opened the note, execute_plan opened it once more before
    # the run. Its result is known to the run only; later reads are still run.
    acts = tool.scope_class == "execute"
    runnable = reads and not tool.mutating and not acts
    for index, item in enumerate(items):
        call_scope = Scope(
            scope.params, scope.steps, (step.item_name, item) if step.foreach is not None else None, scope.known
        )
        late: set[str] = set()
        args: dict[str, Any] = {}
        for key, value in step.args.items():
            try:
                args[key] = resolve(value, call_scope, f"{step.id}.args.{key}")
            except Unresolved:
                late.add(key)
            except RefError as exc:
                checked.problems.append(Problem(step.id, "bad_reference", str(exc)))
                late.add(key)
        where = step.id if step.foreach is None else f"{step.id}[{index}]"
        errors = _arg_errors(tool, args, late)
        if errors:  # one problem, the error the call answers (the validate layer's): every issue in its details
            invalid = host.invalid_arguments(tool, errors)
            checked.problems.append(Problem(where, invalid.code, invalid.message, invalid.details, invalid.hint))
        path = args.get("path")
        if step.tool in WHOLE_NOTE and isinstance(path, str) and "#" in path:  # refused by the call
            section = await host.section_problem(path)
            if section is not None:
                checked.problems.append(Problem(where, section.code, section.message, section.details, section.hint))
                if tool.mutating:
                    continue  # the call fails there: it makes and checks no file ('P/x#y.md' is none)
        if tool.mutating:
            since = builder.since()  # found_args may find the address ambiguous
            found = await found_args(step.tool, args, host, builder)
            made_late = not late and made_late_name(step, found, builder, checked.late)
            if made_late:  # whatever note it finds at run time, the name as written must be one a call takes
                checked.problems += [Problem(where, *p) for p in name_problems(step.tool, found, host)]
            if late or made_late:
                checked.touches[step.id] = None
                if step.id not in builder.effects.unresolved:
                    builder.effects.unresolved.append(step.id)
                    checked.late.append((step.id, step.tool))
                builder.late_writes = True
                builder.risk("writes")
                if late and not late & NAMING.get(step.tool, frozenset()):  # which note: at run time
                    partly = known_parts(step.args, late, call_scope)  # e.g. a relation from a name as written
                    _known_effects(step, tool, {**found, **partly}, builder, checked, where)
            else:
                refused = await refusal(tool.static_check, tool.input_model, args, host.ctx)
                if refused is not None:  # plugin_missing, not_in_safe_commands, acl_denied...
                    checked.problems.append(Problem(where, *refused))
                    continue  # the call fails there: it makes and checks no file (told once)
                earlier, moves = len(builder.paths), len(builder.effects.files_moved)
                given = await _given(step.tool, args, host, builder)
                links = None
                if step.tool in RELATING and builder.memory is not None:  # its targets' links
                    deleting = step.tool == "delete_relations"
                    links = await relation_targets(builder, builder.memory, args, host.resolve, deleting=deleting)
                    given = given if links is None else {**given, LINKS: links}
                    links = None if deleting else links  # a relation deleted: its target's note is not read
                elif step.tool == "merge_observations" and builder.memory is not None:  # the merged note's text
                    given = {**given, MERGED: merged_note(builder, builder.memory, args, builder.text_of)}
                told = None if refused else await _text_refusal(step.tool, found, given, host, builder)
                builder.refuses = None if told is None else checked.told.setdefault(where, told).code  # kept to tell
                touched = builder.step(
                    step.tool, found, destructive=tool.destructive, scopes=tool.scopes, step_id=step.id, given=given
                )
                if links and touched is not None:  # the notes its relations link: a step making one runs first
                    touched = touched | {f"{link}.md" for link in links.values()}
                on_plan = _on_plan(checked, builder.paths[earlier:])
                if step.tool in MOVES and len(builder.effects.files_moved) > moves:  # none: no new_path to move to
                    await preview_move(step.tool, args, host, builder)
                elif step.tool in REWRITES:  # a replace_text its notes' encoding refuses: told as the run
                    rewrite = await preview_rewrite(step.tool, args, host, builder, step.id, ask=told is None)
                    if rewrite is not None and not refused:
                        checked.told.setdefault(where, rewrite)
                _failures(builder, since, step, where)  # the dry run's too: a read-only note it would edit
                if (
                    builder.absent[since[1] :]
                    and step.tool in EDITS
                    and not any(builder.stepped())
                    and not builder.unforeseen()
                ):
                    missing = await host.missing(str(args.get("path")))  # the vault as it is now: as the call tells it
                    if missing is not None:
                        checked.told.setdefault(where, missing)
                if builder.since() == since:  # the call is foreseen succeeding
                    known[index] = _known_result(step, builder, builder.paths[earlier:], moves)
                checked.calls.append((step.id, step.tool, args, on_plan))
                for rel_op in builder.paths[earlier:]:  # a folder move's files too: later calls on them are on plan
                    checked.paths.setdefault(rel_op, where)
                if isinstance(args.get("path"), str):  # its path as written, which a refusal of it names
                    checked.written.setdefault(new_note(args["path"]), args["path"])
                so_far = checked.touches.get(step.id)
                checked.touches[step.id] = None if touched is None or so_far is None else so_far | touched
        elif acts:  # not made now: what its call refuses from the configuration alone (no bridge)
            refused = None if late else await refusal(tool.static_check, tool.input_model, args, host.ctx)
            if refused is not None:
                checked.problems.append(Problem(where, *refused))
        elif runnable and not late and not errors:  # its arguments refused: told once, not made
            result, error = await host.call(step.tool, args)
            if error is not None and error.retryable and step.retry is not None and step.retry.attempts > 1:
                runnable = False  # Obsidian slow, the caller throttled: the run's retries may get past it
            elif error is not None and step.on_error == "stop":
                said = f"{step.tool} fails now: {error.message}"  # as the run's call answers it
                checked.problems.append(Problem(where, error.code, said, error.details, error.hint))
            results.append(result)
        else:
            runnable = False
    if runnable:
        read: Any = results if step.foreach is not None else results[0]
        scope.steps[step.id] = read
        if step.capture_as:
            scope.steps[step.capture_as] = read
    elif tool.mutating and (step.foreach is not None or known[0] is not None):
        _know(step, scope, known if step.foreach is not None else known[0])
    return reads and not tool.mutating and (runnable or acts)


def _known_effects(
    step: Step, tool: ToolInfo, args: dict[str, Any], builder: EffectsBuilder, checked: Checked, where: str
) -> None:
    """The files a call whose other arguments wait for earlier steps names already (its `path`
    given as written while its `content` quotes `${steps.…}`): in the effects and under the path
    ACL now, not only when the run reaches it. `args` holds what is resolved (of a list, the
    items known: `refs.known_parts`), so a path still waiting names nothing; the step's touches
    stay unknown (the run orders it after and before every other change), it stays unresolved."""
    earlier, since = len(builder.paths), builder.since()
    builder.step(step.tool, args, destructive=tool.destructive, scopes=tool.scopes, step_id=step.id)
    builder.unforeseen([rel for rel, op in builder.paths[earlier:] if op == "write" and rel in builder.texts])
    _failures(builder, since, step, where)
    for rel_op in builder.paths[earlier:]:
        checked.paths.setdefault(rel_op, where)


async def _given(tool: str, args: dict[str, Any], host: Host, builder: EffectsBuilder) -> dict[str, Any]:
    """The call as its note's planned text records it (`service.plans.texts`): as written, with
    the template file an apply_template or a periodic note's making renders from as the tool finds
    it now (`TEMPLATE`; None: known only at run time, a name no file carries now or one like a file
    an earlier step wrote, moved or deleted)."""
    if tool == "process_capture":  # the capture it files, where the check finds it pending
        return {**args, CAPTURE: await pending_capture(host.call, args.get("capture_id"), builder.captures)}
    if tool not in TEMPLATED:
        return args
    found = await host.template(tool, args)
    return {**args, TEMPLATE: None if found is None or builder.named(found) else found}


async def _text_refusal(
    tool: str, found: dict[str, Any], given: dict[str, Any], host: Host, builder: EffectsBuilder
) -> VaultgateError | None:
    """The call's refusal of its note's text as the earlier steps leave it, where
    that text is foreseen (a patch of a heading the note lacks, a character the note's encoding
    lacks); the tool layer tells it. add_observations' of each entity's note: the first refusing
    one is `refuses_at`."""
    path = found.get("path")
    if tool == "add_observations" and builder.memory is not None:  # each entity's note: the first refusing
        rows = found.get("observations")
        for row in rows if isinstance(rows, list) else []:
            rel = entity_note(builder, builder.memory, tool, row.get("entityName") if isinstance(row, dict) else None)
            if rel is None or not builder.exists(rel):
                continue  # a missing entity is `memory_effects.there`'s to tell (note_not_found)
            told = await host.text_refusal(tool, given, rel, builder.text_of(rel))
            if told is not None and told.code == "validation_error":
                builder.refuses_at = rel
                return told
        return None
    if tool in MEMORY_TEXTS and builder.memory is not None:  # its entity's note: an observation it names
        rel = entity_note(builder, builder.memory, tool, found.get("entityName"))
    else:
        rel = new_note(path) if tool in TEXT_TARGETS | MODIFY and isinstance(path, str) else None  # MODIFY: encoding
    if rel is None or not builder.exists(rel):
        return None
    return await host.text_refusal(tool, given, rel, builder.text_of(rel))


def _known_result(step: Step, builder: EffectsBuilder, paths: list[tuple[str, str]], moves: int) -> Any:
    """What a call's result is known to hold where its arguments decide it (all known, the call
    foreseen succeeding), the same values the run gives a later step's `$steps.<id>.…`: the
    `path` a create_note, write_note, append_note, prepend_note, copy_note, apply_template or a periodic
    tool answers (the file it
    makes or writes: the numbered name of `if_exists='unique'`, the note a bare name finds), the
    `path` of a move_note or rename_note (where the move puts the note, as its own dry run
    tells), and each `items[*].path` of a bulk_create_notes. A later step naming it is then
    checked and previewed as if the path were written out; its other fields are known only at
    run time. None: nothing is known."""
    writes = [rel for rel, op in paths if op == "write"]
    if step.tool in CREATE_OR_MODIFY | PERIODIC | {"copy_note", "apply_template", TEMPLATE_NOTE} and writes:
        return {"path": writes[0]}
    if step.tool in MOVES and len(builder.effects.files_moved) > moves:
        return {"path": builder.effects.files_moved[-1].to_path}
    if step.tool == "bulk_create_notes" and writes:
        return {"items": [{"path": rel} for rel in writes]}
    return None


def _know(step: Step, scope: Scope, value: Any) -> None:
    """What the check knows of the step's result (`_known_result`; a foreach step's: one per
    call, a list), under its id and its captureAs name."""
    for name in (step.id, step.capture_as):
        if name:
            scope.known[name] = value


def _failures(builder: EffectsBuilder, since: tuple[int, int, int, int, int], step: Step, where: str) -> None:
    """The calls `builder` found refused since `since` (its `refused`, `absent` counts then): a
    create onto a note there already, an edit of a note not there, as the vault is after the
    plan's earlier steps; in the effects, with whether the plan stops."""
    found = [("already_exists", rel) for _id, rel in builder.refused[since[0] :]]
    found += [("note_not_found", rel) for _id, rel in builder.absent[since[1] :]]
    found += [("vault_unwritable", rel) for _id, rel in builder.unwritable[since[2] :]]
    found += [("ambiguous_note", address) for address in builder.ambiguous[since[3] :]]
    found += builder.failing[since[4] :]
    for code, rel in found:
        failure = Failure(step=where, tool=step.tool, code=code, path=rel, stops=step.on_error == "stop")
        builder.effects.failures.append(failure)


def _on_plan(checked: Checked, paths: list[tuple[str, str]]) -> bool:
    """Whether a call touching `paths` works on a file an earlier call of the plan writes,
    moves or deletes (what the vault holds there now is not what the call will meet)."""
    return any((rel, op) in checked.paths for rel, _ in paths for op in ("write", "delete"))
