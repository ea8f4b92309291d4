"""The experiential tier through the dispatch chain: record_experience, list_experiences,
promote_experience. Experiences live in `experiential.db` in the data folder (never the vault);
a promotion always waits for a human and lands as an observation that names its experience."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from service.memory.experiences import FILE_NAME
from service.storage.db import driver
from service.types import Principal
from tests.conftest import Harness, started

ENTITY = {"name": "Search", "entityType": "tool", "observations": ["finds notes"]}


async def _record(vg: Harness, **args: object) -> dict[str, object]:
    base: dict[str, object] = {"kind": "failed", "text": "regex search times out on big vaults", "tool": "search_text"}
    made = await vg.ok("record_experience", **{**base, **args})
    experience: dict[str, object] = made["experience"]
    return experience


@pytest.mark.covers("record_experience", "success")
@pytest.mark.covers("list_experiences", "success")
async def test_experiences_are_recorded_outside_the_vault_and_listed_newest_first(vg: Harness) -> None:
    before = vg.snapshot()
    first = await _record(vg, confidence=0.9, context="answering a question", tags=["#perf"])
    second = await _record(vg, kind="preference", text="the user wants answers in French", tool=None)
    listed = await vg.ok("list_experiences")
    failed = await vg.ok("list_experiences", kind="failed")
    sure = await vg.ok("list_experiences", min_confidence=0.8)
    by_tool = await vg.ok("list_experiences", tool="search_text")
    store = vg.app.services.experiences
    assert store is not None
    assert vg.snapshot() == before  # nothing in the vault
    assert store.path.name == FILE_NAME and store.path.parent == vg.app.settings.data_dir()
    assert str(first["id"]).startswith("exp-") and first["confidence"] == 0.9 and first["tags"] == ["perf"]
    assert first["context"] == "answering a question" and first["promoted_to"] is None
    assert [i["id"] for i in listed["items"]] == [second["id"], first["id"]] and listed["total"] == 2
    assert [i["id"] for i in failed["items"]] == [first["id"]]
    assert [i["id"] for i in sure["items"]] == [first["id"]] and [i["id"] for i in by_tool["items"]] == [first["id"]]
    # its own migration chain, read with the server's SQLite library (a second copy would drop its locks)
    with closing(driver().connect(store.path)) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert versions == [1] and "experiences" in tables and "capture_queue" not in tables


@pytest.mark.covers("record_experience", "failure")
async def test_bad_experiences_are_refused_and_nothing_is_stored(vg: Harness) -> None:
    await vg.err("record_experience", "validation_error", kind="guess", text="x")
    await vg.err("record_experience", "validation_error", kind="worked", text="x", confidence=1.5)
    await vg.err("record_experience", "validation_error", kind="worked", text="   ")
    big = await vg.err("record_experience", "validation_error", kind="worked", text="z" * (16 * 1024 + 1))
    await vg.err("record_experience", "validation_error", kind="worked", text="x", tags=["a\nb"])
    listed = await vg.ok("list_experiences")
    assert big["details"]["reason"] == "too_large" and listed["total"] == 0


@pytest.mark.covers("list_experiences", "failure")
async def test_list_experiences_pages_and_refuses_a_cursor_of_another_query(vg: Harness) -> None:
    made = [await _record(vg, text=f"lesson {i}") for i in range(3)]
    page1 = await vg.ok("list_experiences", limit=2)
    page2 = await vg.ok("list_experiences", limit=2, cursor=page1["next_cursor"])
    assert [i["id"] for p in (page1, page2) for i in p["items"]] == [m["id"] for m in reversed(made)]
    assert page2["next_cursor"] is None
    error = await vg.err("list_experiences", "validation_error", kind="worked", cursor=page1["next_cursor"])
    assert error["details"]["field"] == "cursor"


async def test_experiences_outlive_a_restart(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    async with started(root) as vg:
        made = await _record(vg)
    async with started(root) as vg:
        listed = await vg.ok("list_experiences")
    assert [i["id"] for i in listed["items"]] == [made["id"]]


async def test_a_caller_denied_the_memory_folder_reaches_no_experience(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Memory", "read": "deny", "write": "deny"}]}
    async with started(make_vault(), acl=acl) as vg:
        await vg.err("record_experience", "acl_denied", kind="worked", text="x")
        await vg.err("list_experiences", "acl_denied")
        await vg.err("promote_experience", "acl_denied", experience_id="exp-0123456789ab", entity="Search")


@pytest.mark.covers("promote_experience", "success")
async def test_a_confirmed_promotion_becomes_an_observation_naming_its_experience(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ENTITY])
    made = await _record(vg)
    promoted = await vg.confirmed("promote_experience", experience_id=made["id"], entity="Search")
    note = vg.read(promoted["path"])
    listed = await vg.ok("list_experiences", promoted=True)
    block = promoted["block_link"].split("#^", 1)[1].rstrip("]")
    assert promoted["entity"] == "Search" and promoted["path"].startswith("Memory/")
    line = next(x for x in note.splitlines() if x.rstrip().endswith(f"^{block}"))
    assert "regex search times out on big vaults" in line and f"experience {made['id']}" in line
    assert (
        listed["items"][0]["promoted_to"] == "Search" and listed["items"][0]["promoted_link"] == promoted["block_link"]
    )
    await vg.err("promote_experience", "conflict", experience_id=made["id"], entity="Search")


@pytest.mark.covers("promote_experience", "failure")
async def test_a_promotion_always_waits_for_a_human_even_with_config_confirmations_off(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(), confirmation={"enabled": False}) as vg:
        await vg.ok("create_entities", entities=[ENTITY])
        made = await _record(vg)
        before = vg.snapshot()
        vg.principal = Principal.local("admin-caller")  # local callers hold every scope, admin too
        asked = await vg.err("promote_experience", "elicit_required", experience_id=made["id"], entity="Search")
        listed = await vg.ok("list_experiences", promoted=False)
        assert vg.snapshot() == before and asked["details"]["tool"] == "promote_experience"
        assert [i["id"] for i in listed["items"]] == [made["id"]]


async def test_a_promotion_that_cannot_succeed_is_refused_before_a_human_is_asked(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ENTITY])
    made = await _record(vg)
    await vg.err("promote_experience", "not_found", experience_id="exp-0123456789ab", entity="Search")
    await vg.err("promote_experience", "validation_error", experience_id="bogus", entity="Search")
    unknown = await vg.err("promote_experience", "note_not_found", experience_id=made["id"], entity="Serch")
    asked = await vg.app.services.state.fetchone("SELECT count(*) FROM confirmation_requests")
    assert "Search" in str(unknown["details"]["suggestions"]) and asked[0] == 0
