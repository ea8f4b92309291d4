"""One file never takes the vault down: a note that is not UTF-8, a name that is not UTF-8, a FIFO
named like a note, a note that fails to parse or to store, a symlinked folder appearing while the
server runs. At start-up and through the watcher, the file is read with its encoding or left out
with a warning (`index_status.file_warnings`, `server_health`), and every other note is indexed.

Every wait is on the indexer's condition or a bus event, bounded."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from service.indexer import rows
from service.indexer.runner import VaultIndexer
from service.types import Principal
from tests.conftest import Harness, started

WITHIN = 60.0
LATIN1 = b"# Caf\xe9\n\nna\xefve r\xe9sum\xe9 latinword\n"
BASE = {"A.md": "# A\n\nalpha word\n", "B.md": "# B\n\nbeta [[A]]\n"}


def _moved_past(indexer: VaultIndexer, generation: int) -> bool:
    return indexer.generation > generation


async def _paths(vg: Harness) -> set[str]:
    return {str(r[0]) for r in await vg.app.services.db.fetchall("SELECT path FROM notes")}


async def _until_indexed(vg: Harness, *paths: str) -> None:
    """Wait (bounded) until every path is in the index, looking again after each applied batch."""
    indexer = vg.indexer("main")

    async def wait() -> None:
        while True:
            generation = indexer.generation
            if set(paths) <= await _paths(vg):
                return
            await indexer.wait_for(partial(_moved_past, indexer, generation), WITHIN)

    await asyncio.wait_for(wait(), WITHIN)


def _bad(root: Path, rel: bytes, data: bytes = b"# R\n\nresumeword\n") -> None:
    """A file whose name is not UTF-8 (as bytes, the way another program may write it)."""
    full = os.path.join(os.fsencode(root), rel)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as fh:
        fh.write(data)


@contextlib.contextmanager
def _fifo(path: Path) -> Iterator[Path]:
    """A FIFO; on the way out a reader still blocked on it (the defect) is released, so a failing
    test does not hang the interpreter's exit."""
    os.mkfifo(path)
    try:
        yield path
    finally:
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)


@pytest.fixture
async def vg_latin(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    files: dict[str, str | bytes] = {
        **BASE,
        "Cafe.md": LATIN1,
        "Wide.md": "# Wide\n\nwidewords über\n".encode("utf-16"),
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed(WITHIN)
        yield vg


async def test_a_latin1_note_at_start_is_indexed_with_its_encoding_and_so_is_the_vault(vg_latin: Harness) -> None:
    vg = vg_latin
    status = await vg.ok("index_status")
    assert (status["state"], status["notes"]) == ("ready", 4)
    assert [i["path"] for i in (await vg.ok("search_text", query="alpha"))["items"]] == ["A.md"]
    assert [i["path"] for i in (await vg.ok("search_text", query="latinword"))["items"]] == ["Cafe.md"]
    assert [i["path"] for i in (await vg.ok("search_text", query="widewords"))["items"]] == ["Wide.md"]
    warnings = status["file_warnings"]
    assert (warnings["skipped"], warnings["fallback_encoding"]) == (0, 2)
    assert {(e["path"], e["detail"]) for e in warnings["examples"]} == {("Cafe.md", "cp1252"), ("Wide.md", "utf-16-le")}
    [health] = (await vg.ok("server_health"))["vaults"]
    assert (health["skipped_files"], health["fallback_encoding"]) == (0, 2)


async def test_read_note_answers_a_latin1_note_with_its_text_and_says_which_encoding(vg_latin: Harness) -> None:
    note = await vg_latin.ok("read_note", path="Cafe")
    assert note["content"] == "# Café\n\nnaïve résumé latinword\n"
    assert note["encoding"] == "cp1252"
    assert (await vg_latin.ok("read_note", path="A")).get("encoding") is None
    [item] = (await vg_latin.ok("read_notes", paths=["Wide.md"]))["items"]
    assert (item["content"], item["encoding"]) == ("# Wide\n\nwidewords über\n", "utf-16-le")


async def test_notes_written_beside_a_latin1_note_while_serving_are_all_indexed(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(dict(BASE))) as vg:
        await vg.indexed(WITHIN)
        (vg.root / "X1.md").write_text("# X1\n\nfirstword\n", encoding="utf-8")
        (vg.root / "Latin.md").write_bytes(LATIN1)
        (vg.root / "X2.md").write_text("# X2\n\nsecondword\n", encoding="utf-8")
        await _until_indexed(vg, "X1.md", "Latin.md", "X2.md")
        assert [i["path"] for i in (await vg.ok("search_text", query="secondword"))["items"]] == ["X2.md"]
        assert (await vg.ok("index_status"))["file_warnings"]["fallback_encoding"] == 1


async def test_a_name_that_is_not_utf8_is_left_out_and_the_rest_of_the_vault_works(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(dict(BASE))
    _bad(root, b"Caf\xe9/r\xe9sum\xe9.md")
    _bad(root, b"Notes/bad\xff.md")
    (root / "Notes" / "Good.md").write_text("# Good\n\ngoodword\n", encoding="utf-8")
    async with started(root) as vg:
        await vg.indexed(WITHIN)
        status = await vg.ok("index_status")
        assert (status["state"], status["notes"]) == ("ready", 3)
        warnings = status["file_warnings"]
        assert warnings["by_reason"] == {"name_not_utf8": 2}
        assert {e["path"] for e in warnings["examples"]} == {"Caf\\xe9", "Notes/bad\\xff.md"}
        assert [i["path"] for i in (await vg.ok("search_text", query="goodword"))["items"]] == ["Notes/Good.md"]
        listed = await vg.ok("list_notes", include_attachments=True)
        assert [i["path"] for i in listed["items"]] == ["A.md", "B.md", "Notes/Good.md"]
        assert [i["path"] for i in (await vg.ok("list_notes", folder="Notes"))["items"]] == ["Notes/Good.md"]
        assert [f["path"] for f in (await vg.ok("list_folders"))["items"]] == ["Notes"]
        bundle = await vg.ok("bundle_folder", folder="")
        assert {e["path"] for e in bundle["entries"]} == {"A.md", "B.md", "Notes/Good.md"}


async def test_the_watcher_goes_on_after_a_name_that_is_not_utf8_appears(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(dict(BASE))) as vg:
        await vg.indexed(WITHIN)
        _bad(vg.root, b"Caf\xe9/r\xe9sum\xe9.md")
        (vg.root / "After.md").write_text("# After\n\nafterword\n", encoding="utf-8")
        await _until_indexed(vg, "After.md")
        (vg.root / "Later.md").write_text("# Later\n\nlaterword\n", encoding="utf-8")
        await _until_indexed(vg, "Later.md")
        assert vg.indexer("main").watching
        assert [i["path"] for i in (await vg.ok("search_text", query="laterword"))["items"]] == ["Later.md"]
        assert (await vg.ok("list_notes"))["total"] == 4


async def test_a_fifo_named_like_a_note_at_start_is_left_out_without_being_opened(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(dict(BASE))
    (root / "Folder").mkdir()
    with _fifo(root / "Pipe.md"), _fifo(root / "Folder" / "Queue.md"):
        async with started(root) as vg:
            await vg.indexed(WITHIN)
            status = await vg.ok("index_status")
            assert (status["state"], status["notes"]) == ("ready", 2)
            assert status["file_warnings"]["by_reason"] == {"special_file": 2}
            listed = await vg.ok("list_notes", include_attachments=True)
            assert [i["path"] for i in listed["items"]] == ["A.md", "B.md"]
            assert [e["path"] for e in (await vg.ok("bundle_folder", folder=""))["entries"]] == ["A.md", "B.md"]
            assert (await vg.call("read_note", path="Pipe.md")).is_error
            assert (await vg.call("read_attachment", path="Pipe.md")).is_error
            assert (await vg.call("note_info", path="Folder/Queue.md")).is_error


async def test_a_fifo_made_while_serving_does_not_hold_up_the_notes_after_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(dict(BASE))) as vg:
        await vg.indexed(WITHIN)
        with _fifo(vg.root / "Pipe.md"):
            (vg.root / "After.md").write_text("# After\n\nafterword\n", encoding="utf-8")
            await _until_indexed(vg, "After.md")
            assert "Pipe.md" not in await _paths(vg)
            assert [i["path"] for i in (await vg.ok("list_notes"))["items"]] == ["A.md", "After.md", "B.md"]


async def test_a_note_whose_parsing_fails_is_left_out_and_the_batch_goes_on(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    original = rows.prepare

    def failing(item: rows.NoteInput, paths: Any, *rest: Any) -> rows.Prepared:
        if item.path.startswith("Bad"):
            raise RecursionError("maximum recursion depth exceeded")
        return original(item, paths, *rest)

    monkeypatch.setattr(rows, "prepare", failing)
    async with started(make_vault({**BASE, "Bad.md": "# Bad\n"})) as vg:
        await vg.indexed(WITHIN)
        assert await _paths(vg) == {"A.md", "B.md"}
        (vg.root / "Bad2.md").write_text("# Bad 2\n", encoding="utf-8")
        (vg.root / "C.md").write_text("# C\n\ngammaword\n", encoding="utf-8")
        await _until_indexed(vg, "C.md")
        status = await vg.ok("index_status")
        assert status["state"] == "ready"
        assert status["file_warnings"]["by_reason"] == {"parse_failed": 2}
        assert await _paths(vg) == {"A.md", "B.md", "C.md"}


async def test_a_note_whose_rows_sqlite_refuses_is_rolled_back_alone(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    original = rows.upsert_note

    def refusing(conn: Any, vault_id: str, prep: rows.Prepared) -> int:
        note_id = original(conn, vault_id, prep)  # its rows are written, then the note fails
        if prep.path == "Bad.md":
            raise ValueError("a value SQLite refuses")
        return note_id

    monkeypatch.setattr(rows, "upsert_note", refusing)
    async with started(make_vault({**BASE, "Bad.md": "# Bad\n\nbadword #badtag\n"})) as vg:
        await vg.indexed(WITHIN)
        assert await _paths(vg) == {"A.md", "B.md"}
        assert (await vg.ok("search_text", query="badword"))["items"] == []
        assert (await vg.ok("index_status"))["file_warnings"]["by_reason"] == {"store_failed": 1}
        tags = await vg.app.services.db.fetchall("SELECT tag FROM note_tags")
        assert tags == []


async def test_a_symlinked_folder_appearing_while_serving_is_not_indexed(make_vault: Callable[..., Path]) -> None:
    outside = make_vault({"Secret.md": "# Secret\n\noutsideword\n"}, name="outside")
    async with started(make_vault(dict(BASE))) as vg:
        await vg.indexed(WITHIN)
        (vg.root / "Linked").symlink_to(outside, target_is_directory=True)
        (vg.root / "After.md").write_text("# After\n\nafterword\n", encoding="utf-8")
        await _until_indexed(vg, "After.md")
        assert (await vg.ok("search_text", query="outsideword"))["items"] == []
        assert await _paths(vg) == {"A.md", "B.md", "After.md"}


async def test_a_caller_some_path_rule_restricts_sees_no_counts_and_only_readable_examples(
    make_vault: Callable[..., Path],
) -> None:
    """file_warnings must not tell a restricted caller how many files it cannot see, nor their names."""
    files: dict[str, str | bytes] = {**BASE, "Private/Diary.md": LATIN1, "Notes/Cafe.md": LATIN1}
    no_private = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(make_vault(files), acl=no_private) as vg:
        await vg.indexed(WITHIN)
        vg.principal = Principal(subject="reader", scopes=frozenset({"read:vault"}), authenticated=True)
        assert vg.indexer("main").file_issues.summary()["fallback_encoding"] == 2  # both are recorded
        warnings = (await vg.ok("index_status"))["file_warnings"]
        assert (warnings["skipped"], warnings["fallback_encoding"], warnings["by_reason"]) == (None, None, None)
        assert [e["path"] for e in warnings["examples"]] == ["Notes/Cafe.md"]


async def test_editing_a_latin1_note_keeps_its_encoding_and_its_text(vg_latin: Harness) -> None:
    """Edits keep a cp1252 note's encoding since c68096aa (they saved it as UTF-8 before)."""
    vg = vg_latin
    await vg.ok("append_note", path="Cafe", content="ajouté\n")
    assert (vg.root / "Cafe.md").read_bytes() == "# Café\n\nnaïve résumé latinword\najouté\n".encode("cp1252")
    note = await vg.ok("read_note", path="Cafe")
    assert note["encoding"] == "cp1252" and note["content"].endswith("ajouté\n")
    await vg.settled()
    assert (await vg.ok("index_status"))["file_warnings"]["fallback_encoding"] == 2  # still Cafe.md and Wide.md


async def test_undoing_an_edit_of_a_latin1_note_puts_its_bytes_back_exactly(vg_latin: Harness) -> None:
    vg = vg_latin
    plan = {"goal": "add", "steps": [{"id": "a", "tool": "append_note", "args": {"path": "Cafe", "content": "x\n"}}]}
    await vg.ok("execute_plan", plan=plan)
    assert (vg.root / "Cafe.md").read_bytes() != LATIN1
    await vg.confirmed("undo_last_plan")
    assert (vg.root / "Cafe.md").read_bytes() == LATIN1
