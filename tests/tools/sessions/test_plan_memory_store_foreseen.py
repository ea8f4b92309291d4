"""A plan's preview foresees what memory_store writes (A4 s79): the fact added to the entity the
key names, or a new entity's note (type `memory`) made with it, as the tool's own `add_to` adds it.
Before, memory_store had no rule for the note's planned text: a later move's entry said
`estimate: true` and counted the entity note as the disk held it (a fact linking the moved note
missed, a new entity's note not read at all). The two oracles of test_plan_memory_deletes_foreseen.py,
through the dispatch chain: the move's entry is the move's own result, no estimate, the
confirmation's files are the files changed, undo restores every byte; the text the check composed
is the text the run wrote, but for block ids and times."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.tools.sessions.test_plan_memory_deletes_foreseen import (
    MEMORY,
    MOVE,
    SOLO,
    checked_and_run,
    composing,
    written_as_composed,
)
from tests.tools.sessions.test_plan_preview_oracle import BIN, LINK, _check


def _store(step: str, key: str, value: str, source: str | None = None) -> dict[str, Any]:
    args = {"key": key, "value": value} | ({"source": source} if source else {})
    return {"id": step, "tool": "memory_store", "args": args}


PLANTED: dict[str, list[dict[str, Any]]] = {
    "a fact linking it kept under an entity there": [_store("k", "Ann", f"Met Bob at {LINK}")],
    "a new entity made by its key": [_store("k", "Rent", f"Paid at {LINK}")],
    "a source linking it, then another fact": [
        _store("k", "rent", "Due on the 3rd", source=LINK), _store("k2", "Rent", f"Late at {LINK}"),
    ],
    "a fact the entity holds already": [_store("k", "Ann", "Likes tea")],
}  # fmt: skip


@pytest.mark.parametrize("name", list(PLANTED))
async def test_a_fact_kept_is_foreseen_by_a_later_move(make_vault: Callable[..., Path], name: str) -> None:
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        await _check(vg, {"goal": name, "steps": [*PLANTED[name], MOVE, BIN]})


@pytest.mark.parametrize("name", list(PLANTED))
async def test_the_text_the_check_composed_is_what_the_run_wrote(
    make_vault: Callable[..., Path], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    composed = composing(monkeypatch)
    plan = {"goal": name, "steps": [*PLANTED[name], SOLO]}
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        await checked_and_run(vg, plan)
        memory = {rel: t for rel, t in composed.items() if rel.startswith("Memory/")}
        assert memory, composed
        written_as_composed(vg, memory)
