"""Case twins a plan's creates make (`service.vault.casing`): a file or folder whose name differs
from one there only in letter case is refused by the call making it (`already_exists`, `CaseTwin`),
whether the vault held that one before the plan or an earlier call of the plan made it
(`[create_note G/x, create_note g/n]`: the second call is refused, 'G' is there). The check tells
each as the run's call answers it: its message, details and hint; within one bulk_create_notes, as
the batch's own check words it ("created earlier in this call").
"""

from __future__ import annotations

from pathlib import Path

from service.plans.model import Step
from service.plans.params import Problem
from service.plans.summary import Failure, PlanEffects
from service.vault.casing import CaseTwin, fold, refuse_case_twin


def twin_problems(
    paths: dict[tuple[str, str], str],
    made: PlanEffects,
    skip: set[str],
    root: Path,
    gone: set[str],
    trash: str,
    steps: list[Step],
) -> tuple[list[Problem], set[str]]:
    """One problem for each call that would create a case twin (`paths`: (path, op) -> the first
    call naming it, in run order; `made`: the plan's effects; `skip`: paths and calls already refused; `gone`:
    files earlier steps moved away or deleted, no twin any more), and the paths those calls name:
    `made` no longer lists what they would make (`_unmade`), each is one of its failures."""
    new = {*made.folders_created, *made.files_created, *(m.to_path for m in made.files_moved)}
    gone = gone | {  # a folder renamed only in letter case: renamed as a folder, no twin of itself
        m.from_path
        for m in made.files_moved
        if m.folder and m.from_path != m.to_path and fold(m.from_path) == fold(m.to_path)
    }
    earlier: dict[str, tuple[str, str]] = {}  # folded path -> (as a call of the plan made it, that call)
    listed: dict[str, dict[str, str]] = {}  # each folder of the vault read and case folded once (a batch's way)
    problems: list[Problem] = []
    refused: dict[str, str] = {}  # a call refused -> the twin path it names
    for (rel, op), where in paths.items():
        segments = rel.split("/")
        prefixes = ["/".join(segments[:depth]) for depth in range(1, len(segments) + 1)]
        if (
            op != "write"
            or skip.intersection((rel, where))
            or f"{rel}/".startswith(f"{trash}/")
            or not new.intersection(prefixes)
        ):
            continue
        told = _twin(root, rel, prefixes, earlier, where, gone, listed)
        if told is not None:
            problems.append(Problem(where, told.code, told.message, told.details, told.hint))
            refused.setdefault(where, rel)
            continue
        for spelled in prefixes:
            earlier.setdefault(fold(spelled), (spelled, where))
    return problems, _unmade(made, paths, refused, {s.id: s for s in steps})


def _unmade(
    made: PlanEffects, paths: dict[tuple[str, str], str], refused: dict[str, str], steps: dict[str, Step]
) -> set[str]:
    """Take out of `made` the files, moves and folders only the refused calls (call -> the twin path
    it names) would make: the run makes none of them (a bulk_create_notes refused makes none of its
    notes), so no preview promises them; each call is one of `made`'s failures instead, as a
    create onto a note there is. Returns the paths they would have written."""
    if not refused:
        return set()
    unmade = {rel for (rel, op), where in paths.items() if op == "write" and where in refused}
    made.files_created[:] = [rel for rel in made.files_created if rel not in unmade]
    made.files_modified[:] = [rel for rel in made.files_modified if rel not in unmade]
    made.files_moved[:] = [m for m in made.files_moved if m.to_path not in unmade]
    kept = [*made.files_created, *(m.to_path for m in made.files_moved)]
    kept += [rel for (rel, op), where in paths.items() if op == "write" and where not in refused]
    made.folders_created[:] = [
        folder for folder in made.folders_created if any(k == folder or k.startswith(f"{folder}/") for k in kept)
    ]
    for where, rel in refused.items():
        if any((f.step, f.path) == (where, rel) for f in made.failures):  # a move's own dry run found it
            continue
        step = steps[where.split("[", 1)[0]]
        stops = step.on_error == "stop"
        made.failures.append(Failure(step=where, tool=step.tool, code="already_exists", path=rel, stops=stops))
    return unmade


def _twin(
    root: Path,
    rel: str,
    prefixes: list[str],
    earlier: dict[str, tuple[str, str]],
    where: str,
    gone: set[str],
    listed: dict[str, dict[str, str]],
) -> CaseTwin | None:
    """The run's refusal of the call creating `rel`: a twin of a file or folder there now (the
    file layer's own check), else of one an earlier call made (or the same batch)."""
    try:
        refuse_case_twin(root, rel, listed=listed)  # a folder of many new notes: listed once, not per note
    except CaseTwin as exc:
        if exc.details.get("path") not in gone:
            return exc
    except (OSError, ValueError):  # not a path the disk takes: the call's own check tells it
        pass
    for spelled in prefixes:
        found, by = earlier.get(fold(spelled), (spelled, ""))
        if found == spelled:
            continue
        if by == where:  # the same call: a batch's own check of its paths
            return CaseTwin(
                f"{found!r} is created earlier in this call: {spelled!r} differs from it only in letter case",
                details={"path": found, "new_path": spelled},
            )
        return CaseTwin(
            f"{found!r} already exists: {rel!r} differs from it only in letter case",
            details={"path": found, "new_path": rel},
        )
    return None
