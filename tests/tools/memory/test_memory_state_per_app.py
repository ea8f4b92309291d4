"""What the entity stores share belongs to their app (X2 s76, item 3 notes for A1): two apps in
one process whose vaults have the same id (`main`, as every vault made by `settings_for`) once
shared the per-note locks and the waiting changes of `store.py`, so one app's add_observations
was written into the other app's note by its group commit and answered success; and the entity
names read by `lookup.py` were kept for every note ever read by any app, without bound."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from service.memory.store import EntityWrites
from tests.conftest import started


async def test_two_apps_with_one_vault_id_write_each_into_its_own_vault(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    ra = make_vault({"Home.md": "# A\n"})
    rb = tmp_path / "vb"
    rb.mkdir()
    (rb / "Home.md").write_text("# B\n", encoding="utf-8")
    async with started(ra) as a, started(rb) as b:
        await a.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": ["a0"]}])
        await b.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": ["b0"]}])
        for i in range(5):
            answers = await asyncio.gather(
                a.call("add_observations", observations=[{"entityName": "Ann", "contents": [f"from-a-{i}"]}]),
                a.call("add_observations", observations=[{"entityName": "Ann", "contents": [f"from-a-{i}x"]}]),
                b.call("add_observations", observations=[{"entityName": "Ann", "contents": [f"from-b-{i}"]}]),
            )
            assert not any(answer.is_error for answer in answers), [answer.structured for answer in answers]
        in_a = (ra / "Memory" / "Ann.md").read_text(encoding="utf-8")
        in_b = (rb / "Memory" / "Ann.md").read_text(encoding="utf-8")
        assert in_a.count("from-b-") == 0 and in_b.count("from-a-") == 0, (in_a, in_b)
        assert in_a.count("- from-a-") == 10 and in_b.count("- from-b-") == 5, (in_a, in_b)
        opened = await b.ok("open_nodes", names=["Ann"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["b0", *(f"from-b-{i}" for i in range(5))]


async def test_the_entity_names_read_are_the_apps_and_bounded(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    notes = {f"Memory/Renamed {i}.md": f"---\nname: Person {i}\nentityType: person\n---\n# P{i}\n" for i in range(8)}
    other = tmp_path / "other"
    other.mkdir()
    async with started(make_vault(notes)) as a, started(other) as b:
        a.app.services.memory_writes = EntityWrites(max_names=3)
        names = a.app.services.memory_writes.names
        for i in [*range(8), 0, 7]:  # each found by its name, the cache at its bound or under it
            opened = await a.ok("open_nodes", names=[f"Person {i}"])
            assert [e["name"] for e in opened["entities"]] == [f"Person {i}"], opened
            assert 0 < len(names) <= 3
        await a.ok("add_observations", observations=[{"entityName": "Person 5", "contents": ["found by name"]}])
        assert "found by name" in (a.root / "Memory" / "Renamed 5.md").read_text(encoding="utf-8")
        assert len(b.app.services.memory_writes.names) == 0  # the other app read none of them


async def test_one_apps_capture_does_not_wait_for_the_other_apps_inbox(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """The capture inbox's lock was process-global by (vault id, inbox path): while one app wrote
    its inbox, another app's capture into its own vault of the same id waited for it."""
    other = tmp_path / "other"
    other.mkdir()
    async with started(make_vault()) as a, started(other) as b:
        held = a.app.services.memory_writes.inbox_locks("main", "Memory/Inbox.md")
        async with held:  # app a is writing its inbox
            made = asyncio.create_task(b.call("capture", text="b's thought"))
            for _ in range(6000):  # until b's capture is done, or waits for a's lock
                if made.done() or held._waiters:
                    break
                await asyncio.sleep(0.01)
            assert made.done() and not held._waiters, "b's capture waited for a's inbox"
        assert not (await made).is_error
        assert "b's thought" in (other / "Memory" / "Inbox.md").read_text(encoding="utf-8")
