"""supersede_observation of a fact another fact already supersedes, through the dispatch chain.

Two agents superseding "Lives in Oslo" at once, one by "Lives in Rome" and one by "Lives in
Paris", were both told they succeeded, and the note kept only the last pointer: the first agent
was told "superseded by Rome" and the note said Paris (done one after the other, the same without
a word). The older fact's history is now kept: a second supersession by another fact still in the
note is `conflict` (reason already_superseded, naming the fact that supersedes it), nothing
written; the same supersession again is no refusal, and neither is a pointer to a fact deleted by
hand. A plan's check, a dry run and the confirmation preview refuse it as the call does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from service.types import Principal
from tests.conftest import Harness, started
from tests.tools.memory.test_delete_superseding_fact import facts, ids

NOTE = "Memory/Gail.md"
PLACES = ("Lives in Oslo", "Lives in Rome", "Lives in Paris")


async def gail(vg: Harness) -> dict[str, str]:
    await vg.ok("create_entities", entities=[{"name": "Gail", "entityType": "person", "observations": list(PLACES)}])
    return await ids(vg)


async def test_a_fact_superseded_by_another_is_refused_and_nothing_written(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        block = await gail(vg)
        await vg.ok("supersede_observation", entityName="Gail", observation=PLACES[0], superseded_by=PLACES[1])
        before = vg.snapshot()
        refused = await vg.err(
            "supersede_observation", "conflict", entityName="Gail", observation=PLACES[0], superseded_by=PLACES[2]
        )
        assert refused["details"] == {
            "field": "observation",
            "reason": "already_superseded",
            "entity": "Gail",
            "block_id": block[PLACES[0]],
            "superseded_by": block[PLACES[1]],
        }
        assert f"^{block[PLACES[1]]}" in refused["hint"] and "Rome" in refused["message"]
        assert vg.snapshot() == before
        # the same supersession again is no refusal (a retried call), and extending the chain works
        again = await vg.ok(
            "supersede_observation", entityName="Gail", observation=f"^{block[PLACES[0]]}", superseded_by=PLACES[1]
        )
        assert again["superseded_by"] == block[PLACES[1]]
        await vg.ok("supersede_observation", entityName="Gail", observation=PLACES[1], superseded_by=PLACES[2])
        assert await facts(vg) == {
            PLACES[0]: (block[PLACES[1]], None),
            PLACES[1]: (block[PLACES[2]], None),
            PLACES[2]: (None, None),
        }


async def test_a_pointer_to_a_fact_deleted_by_hand_is_no_refusal(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        block = await gail(vg)
        await vg.ok("supersede_observation", entityName="Gail", observation=PLACES[0], superseded_by=PLACES[1])
        text = vg.read(NOTE)
        rome = next(line for line in text.splitlines() if PLACES[1] in line)
        (vg.root / NOTE).write_text(text.replace(rome + "\n", ""), encoding="utf-8")  # a person deletes Rome
        await vg.ok("supersede_observation", entityName="Gail", observation=PLACES[0], superseded_by=PLACES[2])
        assert (await facts(vg))[PLACES[0]] == (block[PLACES[2]], None)


async def test_two_agents_superseding_one_fact_at_once_keep_one_history(make_vault: Callable[..., Path]) -> None:
    """Alice and Bob supersede Oslo at the same time, by Rome and by Paris: group-committed or one
    after the other, one is written and the other refused; what the note says is what the one
    told success was told."""
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        bob = Principal.local("bob")
        for _ in range(5):
            block = await gail(vg)
            rome = {"entityName": "Gail", "observation": PLACES[0], "superseded_by": PLACES[1]}
            paris = {"entityName": "Gail", "observation": PLACES[0], "superseded_by": PLACES[2]}
            answers = await asyncio.gather(
                vg.call("supersede_observation", **rome),
                vg.app.dispatcher.call("supersede_observation", paris, principal=bob),
            )
            told = [a.structured for a in answers if not a.is_error]
            refused = [a.structured for a in answers if a.is_error]
            assert len(told) == 1 and len(refused) == 1, answers
            assert told[0] is not None and refused[0] is not None
            assert refused[0]["error"]["code"] == "conflict"
            assert refused[0]["error"]["details"]["superseded_by"] == told[0]["superseded_by"]
            assert (await facts(vg))[PLACES[0]] == (told[0]["superseded_by"], None)
            assert told[0]["superseded_by"] in {block[PLACES[1]], block[PLACES[2]]}
            await vg.confirmed("delete_entities", entityNames=["Gail"])


async def test_a_plan_and_a_dry_run_refuse_it_as_the_call_does(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    first = {"entityName": "Gail", "observation": PLACES[0], "superseded_by": PLACES[1]}
    second = {"entityName": "Gail", "observation": PLACES[0], "superseded_by": PLACES[2]}
    async with started(root) as vg:
        await gail(vg)
        plan = {
            "goal": "move Gail twice",
            "steps": [
                {"id": "rome", "tool": "supersede_observation", "args": first},
                {"id": "paris", "tool": "supersede_observation", "args": second},
            ],
        }
        before = vg.snapshot()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"]
        [problem] = checked["problems"]
        assert problem["step"] == "paris" and problem["code"] == "conflict", problem
        run = await vg.call("execute_plan", plan=plan)
        assert run.is_error or (run.structured or {}).get("status") != "done", run
        assert vg.snapshot() == before
        await vg.ok("supersede_observation", **first)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        before = vg.snapshot()
        await vg.err("supersede_observation", "conflict", **second)
        assert vg.snapshot() == before
