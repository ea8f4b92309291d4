"""Quick captures through the dispatch chain: capture, list_captures, process_capture.

The queue row is the record (state database), the inbox note what a person sees; these tests
check both, the refusals that change nothing, and that a capture outlives the server."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from service.types import Principal
from tests.conftest import Harness, started

INBOX = "Memory/Inbox.md"
HOME = "# Home\n\n## Todo\n\n- fix the gate\n\n## Later\n\nsomeday\n"


def _items(text: str) -> list[str]:
    """The block ids the inbox lists, in order."""
    return re.findall(r"\^(cap-[0-9a-f]{10})\s*$", text, flags=re.M)


@pytest.mark.covers("capture", "success")
@pytest.mark.covers("list_captures", "success")
async def test_a_capture_is_queued_and_listed_in_the_inbox_note(vg: Harness) -> None:
    first = await vg.ok("capture", text="Call the plumber\nabout the boiler", tags=["home", "#urgent"], source="chat")
    second = await vg.ok("capture", text="Buy milk")
    inbox = vg.read(INBOX)
    listed = await vg.ok("list_captures")
    assert first["status"] == "pending" and first["inbox"] == INBOX
    assert first["block_link"] == f"[[Memory/Inbox#^{first['id']}]]"
    assert _items(inbox) == [first["id"], second["id"]]
    assert "- Call the plumber about the boiler #home #urgent [source:: chat] [captured:: " in inbox  # one line
    assert "\n\n- Buy milk" not in inbox  # one list, no blank line between items
    assert [i["id"] for i in listed["items"]] == [first["id"], second["id"]] and listed["total"] == 2
    assert listed["items"][0]["tags"] == ["home", "urgent"] and listed["items"][0]["source"] == "chat"


@pytest.mark.covers("capture", "failure")
async def test_a_capture_of_several_megabytes_is_refused_and_changes_nothing(vg: Harness) -> None:
    before = vg.snapshot()
    huge = await vg.err("capture", "validation_error", text="x" * (3 * 1024 * 1024))
    over = await vg.err("capture", "validation_error", text="y" * (64 * 1024 + 1))
    blank = await vg.err("capture", "validation_error", text=" \n\t ")
    bad_tag = await vg.err("capture", "validation_error", text="ok", tags=["two words"])
    two_lines = await vg.err("capture", "validation_error", text="ok", source="a\nb")
    assert vg.snapshot() == before
    assert over["details"]["reason"] == "too_large" and over["details"]["limit"] == 64 * 1024
    assert huge["details"] and blank["details"]["reason"] == "empty" and bad_tag["details"]["reason"] == "invalid_tag"
    assert two_lines["details"]
    rows = await vg.app.services.state.fetchone("SELECT count(*) FROM capture_queue")
    assert rows[0] == 0


async def test_captures_outlive_a_restart(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    async with started(root) as vg:
        made = await vg.ok("capture", text="remember the keys")
    async with started(root) as vg:
        listed = await vg.ok("list_captures")
        done = await vg.ok("process_capture", capture_id=made["id"], action="discard")
    assert [i["text"] for i in listed["items"]] == ["remember the keys"] and done["status"] == "discarded"


async def test_a_capture_whose_listing_was_cut_short_is_listed_by_the_next(vg: Harness) -> None:
    """A kill -9 between the committed row and the inbox write: the next capture lists both."""
    await vg.app.services.state.run_write(
        lambda conn: conn.execute(
            "INSERT INTO capture_queue(id, vault_id, text, caller, created_at, inbox)"
            " VALUES ('cap-00000000aa', 'main', 'from before the crash', 'x', 1.0, ?)",
            (INBOX,),
        )
    )
    later = await vg.ok("capture", text="after the restart")
    assert _items(vg.read(INBOX)) == ["cap-00000000aa", later["id"]]
    again = await vg.ok("capture", text="one more")
    assert _items(vg.read(INBOX)) == ["cap-00000000aa", later["id"], again["id"]]


async def test_thirty_two_captures_at_once_are_each_listed_once(vg: Harness) -> None:
    made = await asyncio.gather(*(vg.ok("capture", text=f"thought {i}") for i in range(32)))
    ids = _items(vg.read(INBOX))
    assert sorted(ids) == sorted(m["id"] for m in made) and len(set(ids)) == 32
    unlisted = await vg.app.services.state.fetchone("SELECT count(*) FROM capture_queue WHERE in_inbox = 0")
    assert unlisted[0] == 0


@pytest.mark.covers("list_captures", "failure")
async def test_list_captures_pages_by_status_and_refuses_a_foreign_cursor(vg: Harness) -> None:
    made = [await vg.ok("capture", text=f"item {i}") for i in range(5)]
    await vg.ok("process_capture", capture_id=made[1]["id"], action="discard")
    page1 = await vg.ok("list_captures", limit=2)
    page2 = await vg.ok("list_captures", limit=2, cursor=page1["next_cursor"])
    discarded = await vg.ok("list_captures", status="discarded")
    everything = await vg.ok("list_captures", status="all", limit=200)
    pending = [m["id"] for m in made if m is not made[1]]
    assert [i["id"] for p in (page1, page2) for i in p["items"]] == pending
    assert page1["total"] == 4 and page2["next_cursor"] is None
    assert [i["id"] for i in discarded["items"]] == [made[1]["id"]] and discarded["items"][0]["processed_at"]
    assert everything["total"] == 5
    error = await vg.err("list_captures", "validation_error", status="filed", cursor=page1["next_cursor"])
    assert error["details"]["field"] == "cursor"
    await vg.err("list_captures", "validation_error", status="done")


@pytest.mark.covers("process_capture", "success")
async def test_filing_into_a_note_appends_under_the_heading_and_links_both_ways(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Home.md": HOME})) as vg:
        made = await vg.ok("capture", text="Call the plumber", tags=["home"])
        filed = await vg.ok("process_capture", capture_id=made["id"], action="note", target="Home", heading="Todo")
        home, inbox = vg.read("Home.md"), vg.read(INBOX)
        listed = await vg.ok("list_captures", status="filed")
        pending = await vg.ok("list_captures")
    cid = made["id"]
    assert filed["status"] == "filed" and filed["path"] == "Home.md" and filed["inbox_marked"] is True
    assert filed["block_link"] == f"[[Home#^{cid}]]"
    todo, later = home.split("## Later")
    assert f"Call the plumber #home ([[Memory/Inbox#^{cid}|captured " in todo and todo.rstrip().endswith(f"^{cid}")
    assert "someday" in later and cid not in later
    assert f"[status:: filed] [filed_to:: [[Home#^{cid}]]] ^{cid}" in inbox
    assert listed["items"][0]["filed_to"] == f"[[Home#^{cid}]]" and listed["items"][0]["filed_as"] == "note"
    assert pending["total"] == 0


async def test_filing_into_a_new_note_and_under_a_missing_heading(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": HOME})) as vg:
        a = await vg.ok("capture", text="Idea: a bird feeder")
        b = await vg.ok("capture", text="Paint the fence")
        new = await vg.ok("process_capture", capture_id=a["id"], action="new_note", target="Ideas/Bird feeder")
        under = await vg.ok("process_capture", capture_id=b["id"], action="note", target="Home", heading="Garden")
        made, home = vg.read("Ideas/Bird feeder.md"), vg.read("Home.md")
    assert new["path"] == "Ideas/Bird feeder.md" and made.startswith("Idea: a bird feeder ([[Memory/Inbox#^")
    assert under["path"] == "Home.md" and home.startswith(HOME.rstrip("\n"))
    tail = home.split("## Garden\n\n", 1)[1]
    assert tail.startswith(f"Paint the fence ([[Memory/Inbox#^{b['id']}|captured ") and tail.endswith(f"^{b['id']}\n")


@pytest.mark.covers("process_capture", "failure")
async def test_processing_refusals_change_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": HOME, "Taken.md": "mine\n"})) as vg:
        made = await vg.ok("capture", text="a thought")
        before = vg.snapshot()
        await vg.err("process_capture", "not_found", capture_id="cap-0123456789", action="discard")
        await vg.err("process_capture", "validation_error", capture_id="nope", action="discard")
        missing = await vg.err("process_capture", "validation_error", capture_id=made["id"], action="note")
        await vg.err("process_capture", "note_not_found", capture_id=made["id"], action="note", target="Nowhere")
        await vg.err("process_capture", "already_exists", capture_id=made["id"], action="new_note", target="Taken")
        await vg.err("process_capture", "path_invalid", capture_id=made["id"], action="new_note", target="../out")
        assert vg.snapshot() == before and missing["details"]["field"] == "target"
        await vg.ok("process_capture", capture_id=made["id"], action="discard")
        again = await vg.err("process_capture", "conflict", capture_id=made["id"], action="note", target="Home")
        assert again["details"]["status"] == "discarded" and "a thought" not in vg.read("Home.md")


async def test_a_retry_after_a_crash_mid_filing_does_not_file_twice(make_vault: Callable[..., Path]) -> None:
    """The text reached the note, the row did not: the retry finds the block id and finishes."""
    async with started(make_vault({"Home.md": HOME})) as vg:
        made = await vg.ok("capture", text="once only")
        cid = made["id"]
        (vg.root / "Home.md").write_text(HOME + f"\nonce only (earlier attempt) ^{cid}\n", encoding="utf-8")
        filed = await vg.ok("process_capture", capture_id=cid, action="note", target="Home")
        home = vg.read("Home.md")
    assert filed["status"] == "filed" and home.count(f"^{cid}") == 1


async def test_a_caller_denied_the_memory_folder_can_neither_capture_nor_list(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Memory", "read": "deny", "write": "deny"}]}
    async with started(make_vault(), acl=acl) as vg:
        before = vg.snapshot()
        await vg.err("capture", "acl_denied", text="secret")
        await vg.err("list_captures", "acl_denied")
        await vg.err("process_capture", "acl_denied", capture_id="cap-0123456789", action="discard")
        rows = await vg.app.services.state.fetchone("SELECT count(*) FROM capture_queue")
        assert vg.snapshot() == before and rows[0] == 0


async def test_an_idempotent_retry_captures_once(vg: Harness) -> None:
    first = await vg.ok("capture", text="only once", idempotency_key="k-1")
    second = await vg.ok("capture", text="only once", idempotency_key="k-1")
    assert first == second and _items(vg.read(INBOX)) == [first["id"]]


async def test_captures_belong_to_their_vault_not_their_caller(vg: Harness) -> None:
    made = await vg.ok("capture", text="shared inbox")
    vg.principal = Principal.local("someone-else")
    listed = await vg.ok("list_captures")
    assert [i["id"] for i in listed["items"]] == [made["id"]]


async def test_every_capture_call_is_audited_success_and_failure(vg: Harness) -> None:
    made = await vg.ok("capture", text="audited")
    await vg.err("capture", "validation_error", text="")
    await vg.ok("list_captures")
    await vg.ok("process_capture", capture_id=made["id"], action="discard")
    await vg.err("process_capture", "conflict", capture_id=made["id"], action="discard")
    await vg.app.audit.drained()
    rows = await vg.app.services.state.fetchall("SELECT tool, status, error_code FROM event_log ORDER BY id")
    assert [tuple(r) for r in rows] == [
        ("capture", "ok", None),
        ("capture", "error", "validation_error"),
        ("list_captures", "ok", None),
        ("process_capture", "ok", None),
        ("process_capture", "error", "conflict"),
    ]


async def test_the_capture_inbox_is_never_a_memory_entity(vg: Harness) -> None:
    await vg.ok(
        "create_entities", entities=[{"name": "Plumber", "entityType": "person", "observations": ["Fixes boilers"]}]
    )
    await vg.ok("capture", text="Zero inbox is a goal; call the plumber")
    graph = await vg.ok("read_memory_graph")
    assert [e["name"] for e in graph["entities"]] == ["Plumber"]
    nodes = await vg.ok("open_nodes", names=["Inbox", "Plumber"])
    assert [e["name"] for e in nodes["entities"]] == ["Plumber"]
    found = await vg.ok("search_memory", query="zero inbox goal plumber", limit=10)
    assert {h["entity"] for h in found["items"]} <= {"Plumber"}, found
    before = (vg.root / INBOX).read_text()
    refused = await vg.err("create_entities", "validation_error", entities=[{"name": "Inbox", "entityType": "x"}])
    assert refused["details"]["reason"] == "capture inbox"
    refused = await vg.err(
        "add_observations", "validation_error", observations=[{"entityName": "Inbox", "contents": ["x"]}]
    )
    assert refused["details"]["reason"] == "capture inbox"
    assert (vg.root / INBOX).read_text() == before
    await vg.ok("capture", text="Buy milk")
    assert "Buy milk" in (vg.root / INBOX).read_text() and "## Relations" not in (vg.root / INBOX).read_text()


async def test_an_undone_plan_that_processed_captures_leaves_them_pending_again(vg: Harness) -> None:
    """Undoing a plan that filed a capture (or discarded one) puts the inbox back and takes the
    filed line away: the capture is pending again, listed and processable (it stayed `filed`, to
    a block that was gone, in no pending list). One filed outside the plan stays filed."""
    await vg.ok("create_entities", entities=[{"name": "Home", "entityType": "place", "observations": []}])
    filed = (await vg.ok("capture", text="The boiler needs a service"))["id"]
    dropped = (await vg.ok("capture", text="Buy a lottery ticket"))["id"]
    kept = (await vg.ok("capture", text="Water the plants"))["id"]
    await vg.ok("process_capture", capture_id=kept, action="new_note", target="Garden")
    plan = {
        "goal": "file the inbox",
        "steps": [
            {"id": "f", "tool": "process_capture", "args": {"capture_id": filed, "action": "entity", "target": "Home"}},
            {"id": "d", "tool": "process_capture", "args": {"capture_id": dropped, "action": "discard"}},
        ],
    }
    run = await vg.ok("execute_plan", plan=plan)
    assert run["status"] == "done", run
    assert "The boiler needs a service" in vg.read("Memory/Home.md")
    pending = await vg.ok("list_captures")
    assert [i["id"] for i in pending["items"]] == []
    await vg.confirmed("undo_last_plan")
    assert "The boiler" not in vg.read("Memory/Home.md") and vg.read(INBOX).count("[status:: ") == 1
    pending = await vg.ok("list_captures")
    assert [i["id"] for i in pending["items"]] == [filed, dropped] and pending["total"] == 2
    again = await vg.ok("process_capture", capture_id=filed, action="entity", target="Home")
    assert again["status"] == "filed" and "The boiler needs a service" in vg.read("Memory/Home.md")
    everything = {i["id"]: i["status"] for i in (await vg.ok("list_captures", status="all"))["items"]}
    assert everything == {filed: "filed", dropped: "pending", kept: "filed"}
