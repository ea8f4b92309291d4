"""A dry-run vault over HTTP with the SDK client (both eras) answers add_observations and
create_relations from an entity that is not there with the call's own note_not_found, as
validate_plan reports it; before s76 its preview promised a new Memory/<name>.md. An entity there
is still previewed, and nothing changes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.tools.sessions.test_plan_memory_entities_found import ANN


async def test_a_dry_run_vault_refuses_a_missing_entity_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN})
    before = snapshot(root)
    dry = [{"id": "main", "path": root, "write_mode": "dry-run"}]
    async with e2e(root, vaults=dry) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        added = await error(c, "add_observations", observations=[{"entityName": "Nobody", "contents": ["x"]}])
        assert added["code"] == "note_not_found" and added["details"]["entity"] == "Nobody", added
        relation = {"from": "Nobody", "to": "Welcome", "relationType": "knows"}
        assert (await error(c, "create_relations", relations=[relation]))["code"] == "note_not_found"
        previewed = await ok(c, "add_observations", observations=[{"entityName": "Ann", "contents": ["x"]}])
        assert previewed["dry_run"] is True and previewed["effects"]["files_modified"] == ["Memory/Ann.md"]
    assert snapshot(root) == before


async def test_a_dry_run_vault_answers_a_memory_call_s_own_refusals_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """s79: the preview said `dry_run: true` for a supersede of an observation the entity never
    held, a merge onto a block id the kept note uses for another fact and an empty fact; the calls
    refuse each (tests/tools/memory/test_dry_run_previews_agree.py has every memory tool)."""
    from tests.tools.memory.test_dry_run_previews_agree import FILES

    root = make_vault(FILES)
    before = snapshot(root)
    dry = [{"id": "main", "path": root, "write_mode": "dry-run"}]
    async with e2e(root, vaults=dry) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        missing = await error(
            c, "supersede_observation", entityName="Ann", observation="Never said", superseded_by="Likes tea"
        )
        assert missing["code"] == "note_not_found" and missing["details"]["field"] == "observation", missing
        taken = await error(c, "merge_observations", entityName="Ann", mergedName="Bob")
        assert taken["code"] == "validation_error" and taken["details"]["reason"] == "block_id_taken", taken
        empty = await error(c, "memory_store", key="Ann", value="  ")
        assert empty["code"] == "validation_error" and empty["details"]["reason"] == "empty", empty
        previewed = await ok(c, "merge_observations", entityName="Ann", mergedName="Cy")
        assert previewed["dry_run"] is True and previewed["effects"]["files_modified"] == ["Memory/Ann.md"]
    assert snapshot(root) == before
