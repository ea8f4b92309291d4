"""The sensitive-content verdict of every note is stored in the background once its index is
ready (`secret_verdicts`), so that searches read verdicts instead of scanning notes; a stored
verdict counts only for the note's current version and the guard that judged it: a note edited
afterwards is judged again by its new version, never by the verdict of the old one."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.activity import Activity
from service.retrieval.sensitive import Guard
from service.tools.sensitive import excerpts, guard_for, store, unjudged
from tests.conftest import Harness, started

FILLER = "".join(f"Line {i} of the runbook: check the disks, then the network.\n" for i in range(200))
VAULT = {
    "Ops.md": "# Ops\n\nThe backup runs nightly to the cloud.\n\n" + FILLER,
    "Notes/Plain.md": "# Plain\n\nNothing secret about the backup schedule.\n",
    "Keys.md": "---\npassword: hunter2pass\n---\n# Keys\n\nThe backup login is hunter2pass as well.\n",
}
# (note id, etag, guard fingerprint, secret, words) of a stored verdict
Row = tuple[int, str, str, int, str]


def _guard(vg: Harness) -> Guard:
    return guard_for(vg.app.services.settings, next(iter(vg.app.vaults.values())))


def _versions(conn: sqlite3.Connection) -> set[tuple[int, str]]:
    return {(int(r[0]), str(r[1])) for r in conn.execute("SELECT id, etag FROM notes")}


def _stored(conn: sqlite3.Connection) -> dict[str, Row]:
    """Stored verdicts by note path."""
    sql = (
        "SELECT n.path, v.note_id, v.etag, v.guard, v.secret, v.words"
        " FROM secret_verdicts v JOIN notes n ON n.id = v.note_id"
    )
    return {str(r[0]): (int(r[1]), str(r[2]), str(r[3]), int(r[4]), str(r[5])) for r in conn.execute(sql)}


async def _judged(vg: Harness, guard: Guard) -> set[tuple[int, str]]:
    """The (note, version) pairs stored under `guard`."""
    rows = await vg.app.db.run_read(_stored)
    return {(nid, etag) for nid, etag, fp, _, _ in rows.values() if fp == guard.fingerprint}


async def _until_judged(vg: Harness, guard: Guard, within: float = 60.0) -> None:
    """Wait (bounded) until every note's current version has a stored verdict under `guard`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while not (await vg.app.db.run_read(_versions)) <= await _judged(vg, guard):
        assert loop.time() < end, "the verdicts were not stored"
        await asyncio.sleep(0.02)


async def test_every_note_is_judged_after_the_index_is_ready_without_a_search(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        guard = _guard(vg)
        await _until_judged(vg, guard)
        rows = await vg.app.db.run_read(_stored)
        assert {p: r[3] for p, r in rows.items()} == {"Ops.md": 0, "Notes/Plain.md": 0, "Keys.md": 1}
        assert "hunter2pass" in rows["Keys.md"][4].split()
        guard.verdicts.clear()  # the guard is shared by equal configurations (other tests' searches)
        found = await vg.ok("search_regex", pattern="backup")
        assert "hunter2pass" not in str(found) and "[REDACTED]" in str(found)
        assert not guard.verdicts  # the search read the stored verdicts


async def test_an_edited_note_is_not_shown_by_its_old_stored_verdict(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        guard = _guard(vg)
        await _until_judged(vg, guard)
        old = (await vg.app.db.run_read(_stored))["Ops.md"]
        assert old[3] == 0
        vg.app.activity.begin()  # a call that runs on: no verdict is stored again meanwhile
        try:
            note = await vg.ok("read_note", path="Ops.md")
            content = "---\npassword: swordfish42\n---\n# Ops\n\nThe backup password is swordfish42 now.\n"
            # the line shown holds no secret pattern: only the note's new verdict can hide the word
            await vg.ok("write_note", path="Ops.md", mode="overwrite", expected_etag=note["etag"], content=content)
            await vg.settled()
            assert (await vg.app.db.run_read(_stored))["Ops.md"] == old  # stale: the old version's
            found = await vg.ok("search_regex", pattern="backup")
            ops = [i for i in found["items"] if i["path"] == "Ops.md"]
            assert ops and "swordfish42" not in str(found) and "[REDACTED]" in str(ops)
        finally:
            vg.app.activity.end()
        await _until_judged(vg, guard)  # judged again once the calls pause
        new = (await vg.app.db.run_read(_stored))["Ops.md"]
        assert new[1] != old[1] and new[3] == 1 and "swordfish42" in new[4].split()


async def test_a_verdict_stored_under_another_guard_is_not_used(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await _until_judged(vg, _guard(vg))
        strict = Guard.build("redact", patterns={"runbook_line": r"Line 7 of the runbook"})
        assert strict.fingerprint != _guard(vg).fingerprint
        ops = (await vg.app.db.run_read(_stored))["Ops.md"][0]
        shown = await vg.app.db.run_read(lambda c: excerpts(strict, c, [ops]))
        assert shown.secret(ops)  # scanned under its own patterns, not read as the stored "clean"


async def test_unjudged_goes_in_batches_and_store_skips_a_note_changed_since(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        guard = Guard.build("redact", secret_keys=["password", "pin"])  # not the vault's: nothing stored yet
        ids = sorted(nid for nid, _ in await vg.app.db.run_read(_versions))
        last, judged = await vg.app.db.run_read(
            lambda c: unjudged(guard, c, vault_id="main", after=0, batch=2, max_bytes=1 << 20)
        )
        assert last == ids[1] and [j[0] for j in judged] == ids[:2]
        last, judged = await vg.app.db.run_read(
            lambda c: unjudged(guard, c, vault_id="main", after=0, batch=3, max_bytes=1)
        )
        assert last == ids[0] and len(judged) == 1  # one note's text is over max_bytes already
        last, judged = await vg.app.db.run_read(
            lambda c: unjudged(guard, c, vault_id="main", after=0, batch=10, max_bytes=1 << 20)
        )
        assert last == ids[-1] and len(judged) == 3
        plain_id = (await vg.app.db.run_read(_ids))["Notes/Plain.md"]
        plain = next(j for j in judged if j[0] == plain_id)
        note = await vg.ok("read_note", path="Notes/Plain.md")
        await vg.ok(
            "write_note", path="Notes/Plain.md", mode="overwrite", expected_etag=note["etag"], content="# New\n"
        )
        await vg.settled()
        stored = await vg.app.db.run_write(lambda c: store(guard, c, judged=judged))
        assert stored == 2  # not the version of Plain.md scanned before its write
        assert (plain[0], plain[1]) not in await _judged(vg, guard)
        last, judged = await vg.app.db.run_read(
            lambda c: unjudged(guard, c, vault_id="main", after=0, batch=10, max_bytes=1 << 20)
        )
        assert [j[0] for j in judged] == [plain[0]]  # only the note written since is left
        other = await vg.app.db.run_read(
            lambda c: unjudged(guard, c, vault_id="elsewhere", after=0, batch=10, max_bytes=1 << 20)
        )
        assert other == (None, [])


def _ids(conn: sqlite3.Connection) -> dict[str, int]:
    return {str(r[0]): int(r[1]) for r in conn.execute("SELECT path, id FROM notes")}


async def test_a_deleted_note_leaves_no_verdict(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await _until_judged(vg, _guard(vg))
        gone = (await vg.app.db.run_read(_ids))["Keys.md"]
        await vg.ok("delete_note", path="Keys.md")
        await vg.settled()
        ids = {r[0] for r in (await vg.app.db.run_read(_stored)).values()}
        assert gone not in ids and len(ids) == 2


async def test_the_verdicts_wait_for_the_callers_to_pause(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    born = Activity.__init__

    def busy_from_birth(self: Activity, *args: Any, **kwargs: Any) -> None:
        born(self, *args, **kwargs)
        self.begin()  # a call that runs on and on, from before the warm-up can start

    monkeypatch.setattr(Activity, "__init__", busy_from_birth)
    async with started(make_vault(VAULT)) as vg:
        activity = vg.app.activity
        await vg.indexed()
        for _ in range(50):  # the warm-up task gets every chance to run
            await asyncio.sleep(0)
        assert activity.running == 1 and not await _judged(vg, _guard(vg))
        activity.end()
        await _until_judged(vg, _guard(vg))
