"""How a plan's check tells a call it foresees failing (`summary.Failure`) as a problem: a refusal
of the note's text as the earlier steps leave it (a patch of a heading, block or anchor the note
lacks, a task line holding no task, an inline tag under a missing heading, a block id the kept
entity's note holds for another observation, a character the note's encoding lacks) by the error
the call itself raises there (the tool layer's `plan_texts.refused_by`): its message, details and
hint, so validate_plan's answer says what running the step would; any other failure (a create onto
a note there, an edit of a note not there, a read-only file, an ambiguous name, a rewrite whose
plan outlasts its time budget) by its code."""

from __future__ import annotations

from collections import defaultdict

from service.errors import VaultgateError
from service.plans.memory_effects import MEMORY_FAILS, MEMORY_TEXTS, MEMORY_WRITES
from service.plans.params import Problem
from service.plans.summary import Failure

STOPS = "the call fails and the plan stops"

_FAILS: defaultdict[str, str] = defaultdict(
    lambda: "of {}, whose text as the earlier steps leave it refuses the edit",  # a heading it lacks...
    {
        "already_exists": "onto {}, a note already there",
        "note_not_found": "of {}, no note there",
        "vault_unwritable": "of {}, a read-only file (chmod a-w)",
        "ambiguous_note": "of {}, a name several notes (or a folder and the note beside it) fit once the earlier "
        "steps ran",
        "compute_budget_exceeded": "of {}, whose plan is past [limits] max_rewrite_seconds or max_rewrite_notes "
        "(its dry run was refused so): change fewer notes at a time",
    },
)


def failing(f: Failure, told: VaultgateError | None) -> Problem:
    """A failing call's problem: the call's own refusal of its note's text (`told`, the error the
    check found for that call) as the run tells it, naming the note where its message does not;
    any other failure by its code."""
    if told is not None and told.code == f.code and told.details.get("path", f.path) == f.path:
        named = f.path in told.message  # 'L.md' is saved as cp1252...; line 3 of 'T.md' is not a task
        said = f"{f.tool}: {told.message}" if named else f"{f.tool} of {f.path}: {told.message}"
        return Problem(f.step, f.code, f"{said}: {STOPS}", told.details, told.hint)
    return Problem(f.step, f.code, f"{f.tool} {_fails(f).format(f.path)}: {STOPS}")


def _fails(f: Failure) -> str:
    """How a failing call is told: a memory call's failures say what is missing (an entity)."""
    if f.code in MEMORY_TEXTS.get(f.tool, {}):  # its entity note's text refuses the change, or no entity is there
        return MEMORY_TEXTS[f.tool][f.code]
    memory = f.tool in MEMORY_WRITES or f.tool in ("delete_entities", "merge_observations")
    return MEMORY_FAILS[f.code] if memory and f.code in MEMORY_FAILS else _FAILS[f.code]
