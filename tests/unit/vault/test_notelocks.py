"""Two vaultgate processes on one vault never lose each other's write to one note: the last etag
compare and the rename hold a lock every vaultgate process takes for that note
(`service.vault.notelocks`), so another process's rename cannot land between them."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.errors import Conflict
from service.vault import dirfd, notelocks
from service.vault.events import ChangeBus
from service.vault.files import VaultFiles
from service.vault.paths import VaultPaths
from tests.conftest import started

ROOT = str(Path(__file__).resolve().parents[3])

# Another vaultgate process writing the note as the memory does: read it, then write the new text
# with the etag read (a `conflict` is not acknowledged). Prints what it was answered.
OTHER_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from service.errors import Conflict
    from service.vault import notelocks
    from service.vault.events import ChangeBus
    from service.vault.files import VaultFiles
    from service.vault.paths import VaultPaths

    notelocks.WAIT_SECONDS = 0.3
    root, rel, line = sys.argv[1:4]

    async def main():
        files = VaultFiles(VaultPaths(root), ChangeBus(), max_concurrent=1, trash_folder=".trash")
        vp = files.paths.resolve(rel)
        note = files.read(vp)
        try:
            await files.write(vp, note.content + line + "\\n", expected_etag=note.etag)
        except Conflict:
            print("conflict", flush=True)
            return
        print("written", flush=True)

    asyncio.run(main())
    """
)

HOLDER = textwrap.dedent(
    """
    import sys
    from service.vault import notelocks

    with notelocks.held(sys.argv[1], sys.argv[2]):
        print("held", flush=True)
        sys.stdin.readline()
    """
)


def _python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


@contextlib.contextmanager
def _held_elsewhere(root: Path, rel: str) -> Iterator[None]:
    """The note's lock held by another process until the block ends."""
    args = _python(HOLDER, str(root), rel)
    with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        try:
            assert holder.stdout.readline().strip() == "held"
            yield
        finally:
            holder.stdin.write("\n")
            holder.stdin.flush()
            holder.wait(timeout=60)


async def test_another_process_writing_between_the_last_compare_and_the_rename_is_never_lost(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the dispatch chain: an add_observations whose last compare has just passed; right
    then another vaultgate process writes the same note (its own read, its own etag). Before the
    lock, that process was answered success and its line was gone once the first rename landed;
    now it waits for the note's lock and is answered `conflict` (or, had it got the lock first,
    the first write's compare would see its line): every acknowledged line is in the note."""
    root = make_vault({"Memory/Ann.md": "---\ntype: entity\nentityType: person\n---\n# Ann\n\n- seed\n"})
    answers: list[str] = []
    original = VaultFiles.check_etag

    def check_then_other_process(self: VaultFiles, vp: object, expected: str | None) -> bool:
        existed = original(self, vp, expected)  # type: ignore[arg-type]
        in_window = threading.current_thread() is not threading.main_thread()
        if in_window and not answers and getattr(vp, "rel", "") == "Memory/Ann.md":
            other = subprocess.run(
                _python(OTHER_WRITER, str(self.paths.root), "Memory/Ann.md", "- other process line"),
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=120,
                check=True,
            )
            answers.append(other.stdout.strip())
        return existed

    monkeypatch.setattr(VaultFiles, "check_etag", check_then_other_process)
    async with started(root) as vg:
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["agent fact"]}])
        text = (root / "Memory/Ann.md").read_text(encoding="utf-8")
    assert answers and answers[0] in ("written", "conflict"), answers
    assert "agent fact" in text
    if answers[0] == "written":
        assert "- other process line" in text, f"the other process's acknowledged write was lost:\n{text}"


async def test_a_write_waits_for_the_lock_another_process_holds_and_answers_conflict_after_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the note's lock: a write there answers `conflict` (retry) once the
    bounded wait is over, with nothing written; released, the same write goes through."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Ann.md").write_text("first\n", encoding="utf-8")
    files = VaultFiles(VaultPaths(root), ChangeBus(), max_concurrent=1, trash_folder=".trash")
    vp = files.paths.resolve("Ann.md")
    with _held_elsewhere(root, "Ann.md"):
        monkeypatch.setattr(notelocks, "WAIT_SECONDS", 0.2)
        with pytest.raises(Conflict) as refused:
            await files.write(vp, "second\n", expected_etag=files.read(vp).etag)
        assert refused.value.details["reason"] == "locked by another process"
        with pytest.raises(Conflict):
            await files.write(vp, "blind\n")  # a write without an etag takes the lock too
        assert (root / "Ann.md").read_text(encoding="utf-8") == "first\n"
        assert not [p for p in root.iterdir() if p.name.endswith(".vgtmp")]
    await files.write(vp, "second\n", expected_etag=files.read(vp).etag)
    assert (root / "Ann.md").read_text(encoding="utf-8") == "second\n"
    assert not any(p.is_relative_to(root) for p in Path(notelocks.lock_folder(str(root)) or "").parents)


def test_notes_in_two_vaults_or_two_notes_do_not_share_a_lock_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    assert notelocks.lock_folder(str(a)) != notelocks.lock_folder(str(b))
    assert notelocks.slot_of("Ann.md") == notelocks.slot_of("ann.md")  # one name on a case-blind disk
    assert notelocks.slot_of("Ann.md") != notelocks.slot_of("Bob.md")


async def test_a_delete_with_an_etag_never_removes_another_process_s_acknowledged_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delete with the etag it read (as delete_entities makes, permanently): another vaultgate
    process writing the note right before the unlink either waits for the note's lock and is
    answered `conflict`, or, had it written first, the delete is `conflict` and its line stays.
    Before, the delete compared on the event loop and unlinked the other process's new version."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Ann.md").write_text("- seed\n", encoding="utf-8")
    files = VaultFiles(VaultPaths(root), ChangeBus(), max_concurrent=1, trash_folder=".trash")
    vp = files.paths.resolve("Ann.md")
    answers: list[str] = []
    unlink = dirfd.unlink

    def other_process_then_unlink(at: Path, rel: str, *, under: contextlib.AbstractContextManager[object]) -> None:
        @contextlib.contextmanager
        def compared_then_other_process() -> Iterator[None]:  # right after the compare, before the unlink
            with under:
                other = subprocess.run(
                    _python(OTHER_WRITER, str(root), "Ann.md", "- other process line"),
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                    timeout=120,
                    check=True,
                )
                answers.append(other.stdout.strip())
                yield

        unlink(at, rel, under=compared_then_other_process())

    monkeypatch.setattr(dirfd, "unlink", other_process_then_unlink)
    try:
        await files.delete(vp, permanent=True, expected_etag=files.read(vp).etag)
    except Conflict:
        answers.append("delete refused")
    assert answers and answers[0] in ("written", "conflict"), answers
    if answers[0] == "written":
        assert (root / "Ann.md").is_file(), "the other process's acknowledged write was deleted"
        assert "- other process line" in (root / "Ann.md").read_text(encoding="utf-8")
    else:
        assert not (root / "Ann.md").exists()


def test_undo_removing_a_note_its_change_made_holds_the_note_s_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Undo's removal of a note the change created compares and unlinks under the note's lock, as
    its put-back writes do (review R3 s63 #5: another process took the lock and wrote between the
    compare and the unlink, and its acknowledged write was removed)."""
    from service.vault import restore
    from service.vault.etags import etag_of

    root = tmp_path / "vault"
    (root / "Memory").mkdir(parents=True)
    made = b"the plan created this"
    (root / "Memory" / "New.md").write_bytes(made)
    files = VaultFiles(VaultPaths(root), ChangeBus(), max_concurrent=1, trash_folder=".trash")
    seen: list[str] = []
    unlink = dirfd.unlink

    def another_process_then_unlink(at: Path, rel: str) -> None:
        def other() -> None:
            try:
                with notelocks.held(root, rel, wait=0):
                    seen.append("written")
            except Conflict:
                seen.append("locked")

        thread = threading.Thread(target=other)  # a second lock holder, as another process is
        thread.start()
        thread.join()
        unlink(at, rel)

    monkeypatch.setattr(dirfd, "unlink", another_process_then_unlink)
    restore._put_back(files, "Memory/New.md", root / "Memory" / "New.md", None, None, etag_of(made))
    assert seen == ["locked"] and not (root / "Memory" / "New.md").exists()


def test_a_delete_refused_under_the_lock_withdraws_its_undo_records(tmp_path: Path) -> None:
    """A delete whose etag no longer holds under the note's lock changed nothing: its journal
    records are withdrawn, so undo never takes it for a delete (review R3 s63 #12)."""
    from service.vault import journal
    from service.vault.etags import etag_of

    root = tmp_path / "vault"
    (root / "Memory").mkdir(parents=True)
    (root / "Memory" / "Ann.md").write_bytes(b"v1")
    files = VaultFiles(VaultPaths(root), ChangeBus(), max_concurrent=1, trash_folder=".trash")
    vp = files.paths.resolve("Memory/Ann.md")
    records: list[object] = []

    class Recorder:
        def record(self, state: object) -> None:
            records.append(state)

    token = journal.RECORDER.set(Recorder())  # type: ignore[arg-type]
    try:
        (root / "Memory" / "Ann.md").write_bytes(b"v2, written after the delete's look")
        with pytest.raises(Conflict):
            files._delete_sync(vp, None, etag_of(b"v1"))
    finally:
        journal.RECORDER.reset(token)
    assert getattr(records[-1], "kind", None) == "void"
    assert (root / "Memory" / "Ann.md").read_bytes() == b"v2, written after the delete's look"
