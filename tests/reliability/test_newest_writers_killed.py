"""kill -9 in the write of one file by the newest writers, then a new server on the same data
folder: nothing is lost or torn, and what the killed call began is undone byte for byte.

The process that dies is tests/reliability/writes_killed.py: it runs one call through the dispatch
chain and SIGKILLs itself in the write of REL, once the journal (for a plan step or an
all-or-nothing call) recorded REL's prior bytes and before REL changes — no rollback, no clean
shutdown. Then, on a new server:
- a plan with memory steps (a multi-entity add_observations, create_relations) killed in an entity
  note's write, or in a later step's: the run is `interrupted`, undo_last_plan puts every byte
  back, every entity parses, and the plan runs whole afterwards;
- apply_finding of a duplicate_entity merge killed in its merge_observations or its rewrite_links:
  the finding is open again naming the interrupted run, undo_last_plan puts every byte back, and
  the finding applies afterwards;
- a consolidation run that applies a duplicate itself (`[plane] auto_apply`) killed in, or right
  after, the entity note's write: the finding is open again naming the interrupted run (the
  plane's), an admin's undo_last_plan of that run restores every byte, and the next run applies it;
- set_properties over a literal block (alone, or a plan step) killed in its write: the note keeps
  its blocks byte for byte (undo_last_plan restores them after a later step's kill), and reads back;
- write_canvas killed in its write, and rename_note killed in the rewrite of a canvas that links
  the note (or of a note): the canvas is as it was; the start rolls the rename back whole.
`after:REL` kills the process right after REL's write instead (the new bytes in place, the call
not answered, its step not recorded as done): the same recovery for the plans and the rename; a
single write is then whole on disk.
- undo_last_plan of a memory plan killed in a restore (75a4d283 claims the run first): the start
  rolls the cut undo back (the plan's result whole again), the run is still undoable, and its undo
  then restores every byte.
The killed write's temp file (written, not renamed) is removed by the sweep of a later start's
process; the test runs that sweep as such a start would (tests/tools/sessions/test_plan_killed.py).
A rename writes its link rewrites several at once (`service.vault.commit.Together`): the other
rewrites in flight at the kill may leave a temp file each, beside their own notes only (`swept`);
tests/reliability/test_chunk_killed.py holds a whole chunk in flight and checks each one exactly.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.memory.model import parse
from service.vault.commit import TOGETHER
from service.vault.temps import sweep
from tests.conftest import Harness, snapshot, started
from tests.killed import run_until_killed
from tests.reliability import writes_killed as w

MODULE = "tests.reliability.writes_killed"
BLOCK_WRITTEN = w.BLOCK.replace("p: |-\n  x\n  y\n", "p: |-\n  first line\n  second line\n    indented third\n")


async def killed_in(root: Path, scenario: str, rel: str, *more: str) -> None:
    assert await run_until_killed(MODULE, str(root), scenario, rel, *more) == -signal.SIGKILL


def swept(root: Path, rel: str, together: tuple[str, ...] = ()) -> dict[str, bytes]:
    """The vault once a later start swept the killed write's temp file: the one beside `rel`, if any.
    `together`: the notes whose writes the killed call makes at once with `rel`'s (a move's link
    rewrites, `service.vault.commit.Together`, at most `TOGETHER` in flight): each of them may have
    left its own temp file too (recorded in the journal, not yet renamed), one at most, none beside
    any other file."""
    rel = rel.removeprefix("after:")
    temps = [k for k in snapshot(root) if k.endswith(".vgtmp")]
    beside = [_temp_of(t) for t in temps]
    assert all(b == rel or b in together for b in beside), temps
    assert len(set(beside)) == len(beside) <= TOGETHER, temps
    assert sweep(root, temps, started=time.time()) == temps
    return snapshot(root)


def _temp_of(temp: str) -> str:
    """The note a temp file (`<folder>/.<name>.<random>.p<pid>h<host>.vgtmp`) was written for."""
    folder, _, name = temp.rpartition("/")
    note = name.removeprefix(".").rsplit(".", 3)[0]
    return f"{folder}/{note}" if folder else note


async def interrupted_run(vg: Harness) -> str:
    [(status, run_id)] = await vg.app.state.fetchall("SELECT status, id FROM plan_runs WHERE kind = 'plan'")
    assert status == "interrupted"
    return str(run_id)


async def undone(vg: Harness) -> None:
    out = await vg.confirmed("undo_last_plan")
    assert not out["conflicts"], out


def observations(root: Path, name: str) -> list[str]:
    return [o.text for o in parse((root / f"Memory/{name}.md").read_text(encoding="utf-8")).observations]


@pytest.mark.parametrize("rel", ["Memory/Ann.md", "Memory/Bob.md", "after:Memory/Bob.md", "Home.md"])
async def test_a_plan_with_memory_steps_killed_in_a_write_is_undone_whole(
    make_vault: Callable[..., Path], rel: str
) -> None:
    """Ann.md: the first note of add_observations' all-or-nothing write; Bob.md: its second, Ann
    written (after: both written, the step not recorded as done); Home.md: the last step, after
    create_relations wrote both notes again."""
    root = make_vault(w.MEMORY_VAULT)
    before = snapshot(root)
    await killed_in(root, "memory-plan", rel)
    if rel.startswith("after:"):
        assert "builds boats" in observations(root, "Bob")
    else:
        assert (root / rel).read_bytes() == before[rel]  # killed before its write
    assert (root / "Notes/log.md").read_bytes() != before["Notes/log.md"]  # the first step ran
    if rel.endswith("Memory/Bob.md"):
        assert "plays the cello" in observations(root, "Ann")  # half of the step's write is on disk
    async with started(root) as vg:
        run_id = await interrupted_run(vg)
        run = await vg.ok("get_plan_run", run_id=run_id)
        assert run["status"] == "interrupted" and run["steps"][-1]["status"] == "not_run", run
        await undone(vg)
        assert swept(root, rel) == before
        assert observations(root, "Ann") == ["met at the Ann fair"]
        assert observations(root, "Bob") == ["met at the Bob fair"]
        again = await vg.ok("execute_plan", plan=w.MEMORY_PLAN)  # the plan still runs, whole
        assert again["status"] == "done", again
        nodes = await vg.ok("open_nodes", names=["Ann", "Bob"])
        facts = {e["name"]: [o["text"] for o in e["observations"]] for e in nodes["entities"]}
        assert facts == {
            "Ann": ["met at the Ann fair", "plays the cello"],
            "Bob": ["met at the Bob fair", "builds boats"],
        }
        assert [(r["from"], r["to"]) for r in nodes["relations"]] == [("Ann", "Bob")]


@pytest.mark.parametrize("rel", ["Memory/Zed.md", "Home.md", "after:Home.md"])
async def test_an_apply_finding_killed_in_a_write_leaves_the_finding_open_and_its_run_undoable(
    make_vault: Callable[..., Path], rel: str
) -> None:
    """Zed.md: the merge's first step (merge_observations); Home.md: its second (rewrite_links),
    Zed.md already holding Zoé's observation (after: Home.md rewritten, Zoe.md not yet deleted)."""
    root = make_vault(w.MERGE_VAULT)
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
    before = snapshot(root)
    await killed_in(root, "apply", rel, found["id"])
    assert ((root / "Home.md").read_bytes() == before["Home.md"]) is not rel.startswith("after:")
    assert (root / "Memory/Zoe.md").is_file()
    if rel.endswith("Home.md"):
        assert "aime le café" in observations(root, "Zed")
    async with started(root) as vg:
        run_id = await interrupted_run(vg)
        [again] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        assert again["id"] == found["id"] and again["status"] == "open", again
        assert again["detail"]["interrupted_run_id"] == run_id, again
        await undone(vg)
        assert swept(root, rel) == before
        applied = await vg.confirmed("apply_finding", finding_id=found["id"])
        assert applied["status"] == "applied" and applied["run"]["status"] == "done", applied
        assert not (root / "Memory/Zoe.md").exists() and "[[Memory/Zed|her]]" in vg.read("Home.md")
        assert observations(root, "Zed") == ["plays chess", "aime le café"]


async def test_a_literal_block_write_killed_leaves_the_blocks_byte_for_byte(make_vault: Callable[..., Path]) -> None:
    root = make_vault(w.BLOCK_VAULT)
    before = snapshot(root)
    await killed_in(root, "block", "N.md")
    async with started(root) as vg:
        assert swept(root, "N.md") == before
        assert not await vg.app.state.fetchall("SELECT id FROM plan_runs")  # one file: nothing to roll back
        got = await vg.ok("get_properties", path="N")
        assert got["properties"] == {"title": "t", "p": "x\ny", "q": "keep\nthis\n"}, got
        await vg.ok("set_properties", path="N", properties={"p": w.BLOCK_VALUE})  # still editable
        got = await vg.ok("get_properties", path="N")
        assert got["properties"] == {"title": "t", "p": w.BLOCK_VALUE, "q": "keep\nthis\n"}, got


async def test_a_literal_block_write_killed_once_written_is_whole(make_vault: Callable[..., Path]) -> None:
    root = make_vault(w.BLOCK_VAULT)
    await killed_in(root, "block", "after:N.md")
    assert not [k for k in snapshot(root) if k.endswith(".vgtmp")]
    assert (root / "N.md").read_text() == BLOCK_WRITTEN
    async with started(root) as vg:
        got = await vg.ok("get_properties", path="N")
        assert got["properties"] == {"title": "t", "p": w.BLOCK_VALUE, "q": "keep\nthis\n"}, got


@pytest.mark.parametrize("rel", ["N.md", "Other.md", "after:Other.md"])
async def test_a_plan_killed_after_or_in_a_literal_block_write_is_undone_byte_for_byte(
    make_vault: Callable[..., Path], rel: str
) -> None:
    root = make_vault(w.BLOCK_VAULT)
    before = snapshot(root)
    await killed_in(root, "block-plan", rel)
    if rel != "N.md":
        assert (root / "N.md").read_text() == BLOCK_WRITTEN
    async with started(root) as vg:
        await interrupted_run(vg)
        await undone(vg)
        assert swept(root, rel) == before
        got = await vg.ok("get_properties", path="N")
        assert got["properties"] == {"title": "t", "p": "x\ny", "q": "keep\nthis\n"}, got


async def test_a_write_canvas_killed_leaves_the_canvas_as_it_was(make_vault: Callable[..., Path]) -> None:
    root = make_vault(w.CANVAS_VAULT)
    before = snapshot(root)
    await killed_in(root, "canvas", "Board.canvas")
    async with started(root) as vg:
        assert swept(root, "Board.canvas") == before
        read = await vg.ok("read_canvas", path="Board")
        assert [n["id"] for n in read["nodes"]] == ["n1", "n2"] and len(read["edges"]) == 1, read
        await vg.ok("write_canvas", path="Board", nodes=w.CANVAS_NODES, edges=[], expected_etag=read["etag"])
        assert [n["id"] for n in json.loads(vg.read("Board.canvas"))["nodes"]] == ["n1", "n3"]


async def test_a_write_canvas_killed_once_written_is_whole(make_vault: Callable[..., Path]) -> None:
    root = make_vault(w.CANVAS_VAULT)
    await killed_in(root, "canvas", "after:Board.canvas")
    assert not [k for k in snapshot(root) if k.endswith(".vgtmp")]
    async with started(root) as vg:
        read = await vg.ok("read_canvas", path="Board")
        assert [n["id"] for n in read["nodes"]] == ["n1", "n3"] and read["edges"] == [], read


@pytest.mark.parametrize("rel", ["Board.canvas", "after:Board.canvas", "Home.md"])
async def test_a_rename_killed_in_a_canvas_rewrite_is_rolled_back_at_the_next_start(
    make_vault: Callable[..., Path], rel: str
) -> None:
    root = make_vault(w.CANVAS_VAULT)
    before = snapshot(root)
    await killed_in(root, "canvas-rename", rel)
    if rel.startswith("after:"):
        assert (root / "Board.canvas").read_bytes() != before["Board.canvas"]  # written, the call not answered
    else:
        assert (root / rel).read_bytes() == before[rel]  # killed before its write
    async with started(root) as vg:  # the start rolls the cut rename back, whole
        rows: list[Any] = await vg.app.state.fetchall("SELECT kind, status FROM plan_runs ORDER BY started_at")
        assert [tuple(r) for r in rows] == [("bulk", "interrupted"), ("undo", "done")], rows
        assert swept(root, rel, together=("Board.canvas", "Home.md")) == before
        await vg.indexed()
        await vg.ok("rename_note", path="Ideas/Idea.md", new_path="Big Idea")
        board = json.loads(vg.read("Board.canvas"))
        assert board["nodes"][0]["file"] == "Ideas/Big Idea.md" and "[[Big Idea]]" in vg.read("Home.md"), board


@pytest.mark.parametrize("rel", ["Memory/Bob.md", "after:Memory/Bob.md", "Notes/log.md"])
async def test_an_undo_killed_in_a_restore_is_rolled_back_and_the_run_is_still_undoable(
    make_vault: Callable[..., Path], rel: str
) -> None:
    root = make_vault(w.MEMORY_VAULT)
    before = snapshot(root)
    async with started(root) as vg:
        run = await vg.ok("execute_plan", plan=w.MEMORY_PLAN)
        assert run["status"] == "done", run
    done = snapshot(root)
    await killed_in(root, "undo", rel)
    left = snapshot(root)
    restored = {k for k in set(done) | set(left) if done.get(k) != left.get(k) and not k.endswith(".vgtmp")}
    assert "Memory/Ann.md" in restored, restored  # the undo (newest change first) restored Ann before it died
    async with started(root) as vg:  # the start rolls the cut undo back: the plan's result, whole
        assert swept(root, rel) == done
        [plan] = await vg.app.state.fetchall("SELECT undone_by FROM plan_runs WHERE id = ?", (run["run_id"],))
        killed = await vg.ok("get_plan_run", run_id=plan[0])  # the killed undo's claim names it
        assert killed["status"] == "interrupted", killed
        undo = await vg.confirmed("undo_last_plan")
        assert undo["run_id"] == run["run_id"] and not undo["conflicts"], undo
        assert snapshot(root) == before
        again = await vg.call("undo_last_plan", run_id=run["run_id"])
        assert again.is_error and again.structured is not None
        assert again.structured["error"]["code"] == "conflict", again.structured  # undone once


@pytest.mark.parametrize("rel", ["Memory/Ann.md", "after:Memory/Ann.md"])
async def test_a_run_killed_while_it_applies_a_finding_itself_leaves_it_open_and_undoable(
    make_vault: Callable[..., Path], rel: str
) -> None:
    root = make_vault(w.AUTO_VAULT)
    before = snapshot(root)
    await killed_in(root, "auto-apply", rel)
    assert ((root / "Memory/Ann.md").read_bytes() == before["Memory/Ann.md"]) is not rel.startswith("after:")
    async with started(root, plane={"enabled": False, **w.AUTO_APPLY}) as vg:
        [found] = (await vg.ok("list_findings", kind="duplicate"))["items"]
        assert found["status"] == "open", found
        run_id = found["detail"]["interrupted_run_id"]
        # the plane's run (caller vaultgate-plane): an admin reads it (185ee851) and undoes it
        run = await vg.ok("get_plan_run", run_id=run_id)
        assert run["status"] == "interrupted", run
        undo = await vg.confirmed("undo_last_plan", run_id=run_id)
        assert not undo["conflicts"], undo
        assert swept(root, rel) == before
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])  # applied by the next run
        [done] = (await vg.ok("list_findings", kind="duplicate", status="applied"))["items"]
        assert done["id"] == found["id"]
        assert observations(root, "Ann") == ["Likes green tea in the morning"]
