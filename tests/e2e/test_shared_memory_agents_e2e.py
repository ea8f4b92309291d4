"""Several agents sharing one vault's memory, end to end (M4 s71): a real uvicorn server with JWT
auth, one SDK client per agent (its own token and identity), both protocol eras."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.keys import SECRET, claims, hs

AUTH = {"mode": "jwt", "jwt_secret": SECRET}


@contextlib.asynccontextmanager
async def agent(
    url: str, who: str, mode: str, scope: str = "read:vault write:vault delete:vault"
) -> AsyncIterator[Client]:
    token = hs(claims(sub=who, scope=scope))
    # The SDK's own client (30 s, 300 s to read), as a client made without `http_client` has:
    # httpx2's 5-second default cut short the first memory call (its domain is imported then,
    # 0.8 s of CPU) at load 13-16 on 2 cores, where it took 5-21 s.
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,  # type: ignore[arg-type]
    ):
        yield client


async def test_two_agents_creating_one_entity_at_once_both_succeed(make_vault: Callable[..., Path], mode: str) -> None:
    async with (
        e2e(make_vault({"Home.md": "# Home\n"}), auth=AUTH) as (url, h),
        agent(url, "alice", mode) as alice,
        agent(url, "bob", mode) as bob,
    ):
        melanie = [{"name": "Melanie", "entityType": "person"}]
        made = await asyncio.gather(*(ok(c, "create_entities", entities=melanie) for c in [alice, bob] * 4))
        assert sorted(len(out["created"]) for out in made) == [0] * 7 + [1]
        assert [n for out in made for n in out["existing"]] == ["Melanie"] * 7
        await asyncio.gather(
            ok(alice, "add_observations", observations=[{"entityName": "Melanie", "contents": ["Paints sunrises"]}]),
            ok(bob, "add_observations", observations=[{"entityName": "Melanie", "contents": ["Runs a charity race"]}]),
        )
        note = h.read("Memory/Melanie.md")
        assert "- Paints sunrises" in note and "- Runs a charity race" in note


async def test_a_relation_written_by_hand_in_obsidian_is_read_both_ways(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with (
        e2e(root, auth=AUTH) as (url, h),
        agent(url, "alice", mode) as alice,
        agent(url, "bob", mode) as bob,
    ):
        people = [{"name": n, "entityType": "person"} for n in ("Caroline", "Melanie")]
        await ok(alice, "create_entities", entities=people)
        note = root / "Memory/Caroline.md"  # a person adds a relation, linking as Obsidian does
        note.write_text(note.read_text(encoding="utf-8") + "- sister_of [[Melanie]]\n", encoding="utf-8")
        sister = {"from": "Caroline", "to": "Melanie", "relationType": "sister_of"}
        assert (await ok(bob, "open_nodes", names=["Melanie"]))["relations"] == [sister]
        again = await ok(bob, "create_relations", relations=[sister])
        assert again["skipped_duplicates"] == [sister] and h.read("Memory/Caroline.md").count("sister_of") == 1


async def test_an_alias_given_in_obsidian_recalls_the_entity(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with (
        e2e(root, auth=AUTH) as (url, _h),
        agent(url, "alice", mode) as alice,
        agent(url, "bob", mode) as bob,
    ):
        facts = ["Works at the LGBTQ center", "Has a dog named Oscar"]
        caroline = {"name": "Caroline", "entityType": "person", "observations": facts}
        await ok(alice, "create_entities", entities=[caroline])
        note = root / "Memory/Caroline.md"  # a person gives her the alias she goes by
        note.write_text(note.read_text(encoding="utf-8").replace("aliases: []", "aliases: [Caro]"), encoding="utf-8")
        found = await ok(bob, "search_memory", query="Caro", limit=5)
        assert [i["text"] for i in found["items"]] == facts and {i["entity"] for i in found["items"]} == {"Caroline"}


async def test_properties_a_person_adds_survive_the_agents_writes(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with (
        e2e(root, auth=AUTH) as (url, _h),
        agent(url, "alice", mode) as alice,
        agent(url, "bob", mode) as bob,
    ):
        await ok(alice, "create_entities", entities=[{"name": "Caroline", "entityType": "person"}])
        note = root / "Memory/Caroline.md"  # a person adds properties in Obsidian, with a comment
        added = "birthday: 1990-03-04\nphone: +4412345\n# from her card\n"
        text = note.read_text(encoding="utf-8").replace("aliases: []\n", f"aliases: []\n{added}")
        note.write_text(text, encoding="utf-8")
        await ok(bob, "add_observations", observations=[{"entityName": "Caroline", "contents": ["Has a dog"]}])
        after = note.read_text(encoding="utf-8")
        assert added in after and "- Has a dog" in after


async def test_recall_since_a_word_that_names_no_day_says_so(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"}), auth=AUTH) as (url, _h), agent(url, "alice", mode) as alice:
        await ok(alice, "create_entities", entities=[{"name": "Caroline", "entityType": "person"}])
        turn = {"entityName": "Caroline", "contents": ["Went to a support group"], "date": "7 May, 2023"}
        await ok(alice, "add_observations", observations=[turn])
        refused = await error(alice, "search_memory", query="support group", since="yesterday")
        assert refused["code"] == "validation_error" and refused["details"]["reason"] == "not_a_date"
        found = await ok(alice, "search_memory", query="support group", since="2023-05")
        assert [i["text"] for i in found["items"]] == ["Went to a support group"]


async def test_superseding_by_a_fact_not_recorded_yet_says_where_to_look(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"}), auth=AUTH) as (url, _h), agent(url, "bob", mode) as bob:
        await ok(bob, "create_entities", entities=[{"name": "Caroline", "entityType": "person"}])
        await ok(bob, "add_observations", observations=[{"entityName": "Caroline", "contents": ["Lives in Boston"]}])
        change = {"entityName": "Caroline", "observation": "Lives in Boston", "superseded_by": "Lives in Sweden"}
        missed = await error(bob, "supersede_observation", change)
        assert missed["code"] == "note_not_found" and "open_nodes" in missed["hint"]
        await ok(bob, "add_observations", observations=[{"entityName": "Caroline", "contents": ["Lives in Sweden"]}])
        assert (await ok(bob, "supersede_observation", change))["superseded_by"]


async def test_a_retracted_newer_fact_leaves_the_older_one_current(make_vault: Callable[..., Path], mode: str) -> None:
    """Alice records a move (Boston superseded by Sweden); Bob retracts Sweden: Boston is what
    Caroline holds again, for both agents, in the same write (M5 s72)."""
    async with (
        e2e(make_vault({"Home.md": "# Home\n"}), auth=AUTH) as (url, h),
        agent(url, "alice", mode) as alice,
        agent(url, "bob", mode) as bob,
    ):
        await ok(alice, "create_entities", entities=[{"name": "Caroline", "entityType": "person"}])
        for place in ("Lives in Boston", "Lives in Sweden"):
            await ok(alice, "add_observations", observations=[{"entityName": "Caroline", "contents": [place]}])
        change = {"entityName": "Caroline", "observation": "Lives in Boston", "superseded_by": "Lives in Sweden"}
        await ok(alice, "supersede_observation", change, valid_until="2023-06")
        out = await ok(bob, "delete_observations", deletions=[{"entityName": "Caroline", "observations": ["Sweden"]}])
        assert out["deleted"] == 0 and out["not_found"] == ["Sweden"] and out["history_mended"] == []
        deletion = {"entityName": "Caroline", "observations": ["Lives in Sweden"]}
        out = await ok(bob, "delete_observations", deletions=[deletion])
        assert [(m["text"], m["superseded_by"]) for m in out["history_mended"]] == [("Lives in Boston", None)]
        [entity] = (await ok(alice, "open_nodes", names=["Caroline"]))["entities"]
        assert [(o["text"], o["superseded_by"], o["valid_until"]) for o in entity["observations"]] == [
            ("Lives in Boston", None, None)
        ]
        assert "superseded_by" not in h.read("Memory/Caroline.md")
        hits = (await ok(alice, "search_memory", query="Where does Caroline live?"))["items"]
        assert [(i["text"], i["superseded_by"]) for i in hits] == [("Lives in Boston", None)]


async def test_two_agents_superseding_one_fact_at_once_keep_one_history(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """Alice and Bob learn at the same time that Caroline left Boston, Alice for Rome and Bob for
    Paris: one supersession is written, the other is `conflict` naming the fact that got there
    first, and the note says what the agent told success was told (both were told success and the
    note kept the last one before)."""
    async with (
        e2e(make_vault({"Home.md": "# Home\n"}), auth=AUTH) as (url, h),
        agent(url, "alice", mode) as alice,
        agent(url, "bob", mode) as bob,
    ):
        facts = ["Lives in Boston", "Lives in Rome", "Lives in Paris"]
        await ok(
            alice, "create_entities", entities=[{"name": "Caroline", "entityType": "person", "observations": facts}]
        )
        calls = [
            (who, {"entityName": "Caroline", "observation": facts[0], "superseded_by": place})
            for who, place in ((alice, facts[1]), (bob, facts[2]))
        ]
        answers = await asyncio.gather(*(who.call_tool("supersede_observation", args) for who, args in calls))
        told = [a.structured_content for a in answers if not a.is_error]
        refused = [a.structured_content for a in answers if a.is_error]
        assert len(told) == 1 and len(refused) == 1 and told[0] is not None and refused[0] is not None
        assert refused[0]["error"]["code"] == "conflict"
        assert refused[0]["error"]["details"]["superseded_by"] == told[0]["superseded_by"]
        [entity] = (await ok(bob, "open_nodes", names=["Caroline"]))["entities"]
        history = {o["text"]: o["superseded_by"] for o in entity["observations"]}
        assert history[facts[0]] == told[0]["superseded_by"]
        assert h.read("Memory/Caroline.md").count("superseded_by") == 1


async def test_a_merged_entitys_name_still_reaches_the_entity_kept(make_vault: Callable[..., Path], mode: str) -> None:
    """A curator merges Ann Lees into Ann Lee (duplicates job, applied with a human's
    confirmation); Alice still opens, recalls and writes by the old name, and Trip's links to the
    merged note resolve to the note kept (M5 s72)."""
    trip = "Met [[Ann Lees]] and [[Memory/Ann Lees|her]].\n"
    async with (
        e2e(make_vault({"Home.md": "# Home\n", "Notes/Trip.md": trip}), auth=AUTH) as (url, h),
        agent(url, "alice", mode) as alice,
        agent(url, "curator", mode, "admin read:vault write:vault delete:vault") as curator,
    ):
        ann = [{"name": "Ann Lee", "entityType": "person", "observations": ["Paints"]}]
        await ok(alice, "create_entities", entities=ann)
        await ok(alice, "create_entities", entities=[{"name": "Ann Lees", "entityType": "person"}])
        await ok(alice, "add_observations", observations=[{"entityName": "Ann Lees", "contents": ["Runs marathons"]}])
        await ok(curator, "run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await ok(curator, "list_findings", kind="duplicate_entity"))["items"]
        ask = await error(curator, "apply_finding", finding_id=found["id"])
        assert ask["code"] == "elicit_required"
        store = h.app.services.confirmations
        [request] = await store.pending(ask["details"]["args_hash"], ask["details"]["vault"])
        token, _ = await store.mint(request, minted_by="test")
        applied = await ok(curator, "apply_finding", finding_id=found["id"], elicit_token=str(token))
        assert applied["status"] == "applied" and not (h.root / "Memory/Ann Lees.md").exists()
        opened = await ok(alice, "open_nodes", names=["Ann Lees"])
        assert [e["name"] for e in opened["entities"]] == ["Ann Lee"] and opened["missing"] == []
        hits = (await ok(alice, "search_memory", query="Ann Lees"))["items"]
        assert {i["text"] for i in hits} == {"Paints", "Runs marathons"}
        await ok(alice, "add_observations", observations=[{"entityName": "Ann Lees", "contents": ["Has a cat"]}])
        assert "- Has a cat" in h.read("Memory/Ann Lee.md")
        await h.settled()
        links = (await ok(alice, "get_outlinks", path="Notes/Trip.md"))["items"]
        assert {link["path"] for link in links} == {"Memory/Ann Lee.md"}, h.read("Notes/Trip.md")


async def test_a_link_to_a_merged_observation_still_lands_and_keeps_who_wrote_it(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """Bob records a fact about Ann Lees, Alice links to it by its block id; a curator merges Ann
    Lees into Ann Lee. The fact keeps its block id, Bob as `by` and its day, so Alice's link,
    repointed to Ann Lee, lands on it (M6 s72: it got a new id and the curator's `by`, and the
    link was broken)."""
    async with (
        e2e(make_vault({"Home.md": "# Home\n"}), auth=AUTH) as (url, h),
        agent(url, "alice", mode) as alice,
        agent(url, "bob", mode) as bob,
        agent(url, "curator", mode, "admin read:vault write:vault delete:vault") as curator,
    ):
        await ok(alice, "create_entities", entities=[{"name": "Ann Lee", "entityType": "person", "observations": []}])
        await ok(alice, "add_observations", observations=[{"entityName": "Ann Lee", "contents": ["Paints"]}])
        await ok(bob, "create_entities", entities=[{"name": "Ann Lees", "entityType": "person"}])
        added = await ok(bob, "add_observations", observations=[{"entityName": "Ann Lees", "contents": ["Runs"]}])
        [block] = added["results"][0]["block_ids"]
        [before] = (await ok(alice, "open_nodes", names=["Ann Lees"]))["entities"][0]["observations"]
        await ok(alice, "create_note", path="Notes/Trip.md", content=f"She [[Ann Lees#^{block}|runs]].\n")
        await ok(curator, "run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await ok(curator, "list_findings", kind="duplicate_entity"))["items"]
        ask = await error(curator, "apply_finding", finding_id=found["id"])
        store = h.app.services.confirmations
        [request] = await store.pending(ask["details"]["args_hash"], ask["details"]["vault"])
        token, _ = await store.mint(request, minted_by="test")
        applied = await ok(curator, "apply_finding", finding_id=found["id"], elicit_token=str(token))
        assert applied["status"] == "applied" and not (h.root / "Memory/Ann Lees.md").exists()
        assert h.read("Notes/Trip.md") == f"She [[Ann Lee#^{block}|runs]].\n"
        [ann] = (await ok(alice, "open_nodes", names=["Ann Lee"]))["entities"]
        runs = next(o for o in ann["observations"] if o["text"] == "Runs")
        assert runs == before and runs["block_id"] == block
        await h.settled()
        assert (await ok(alice, "find_broken_links"))["items"] == []
        links = (await ok(alice, "get_outlinks", path="Notes/Trip.md"))["items"]
        assert {link["path"] for link in links} == {"Memory/Ann Lee.md"}
