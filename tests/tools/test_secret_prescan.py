"""The sensitive-content verdicts of a vault's long notes are scanned in the background once its
index is ready, so that the first searches do not scan them; a note edited afterwards is judged
again by its new version, never by the verdict of the old one."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.activity import Activity
from service.retrieval.sensitive import Guard
from service.tools.query_warmup import PRESCAN_MIN_BYTES
from service.tools.sensitive import guard_for, prescan
from tests.conftest import Harness, started
from tests.tools.test_query_warmup import _until

FILLER = "".join(f"Line {i} of the runbook: check the disks, then the network.\n" for i in range(200))
VAULT = {
    "Ops.md": "# Ops\n\nThe backup runs nightly to the cloud.\n\n" + FILLER,  # long: scanned ahead
    "Notes/Plain.md": "# Plain\n\nNothing secret about the backup schedule.\n",
    "Keys.md": "---\npassword: hunter2pass\n---\n# Keys\n\nThe backup login is hunter2pass as well.\n",
}


def _guard(vg: Harness) -> Guard:
    return guard_for(vg.app.services.settings, next(iter(vg.app.vaults.values())))


def _versions(conn: sqlite3.Connection, min_bytes: int = 0) -> set[tuple[int, str]]:
    return {(int(r[0]), str(r[1])) for r in conn.execute("SELECT id, etag FROM notes WHERE size >= ?", (min_bytes,))}


def _long(conn: sqlite3.Connection) -> set[tuple[int, str]]:
    return _versions(conn, PRESCAN_MIN_BYTES)


def _judged(guard: Guard) -> set[tuple[int, str]]:
    """The (note, version) pairs `guard` holds a verdict on."""
    return {(nid, etag) for nid, (etag, _) in guard.verdicts.items()}


async def test_every_note_is_judged_after_the_index_is_ready_and_an_edit_is_judged_again(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        guard = _guard(vg)
        versions = await vg.app.db.run_read(_long)
        assert len(versions) == 1  # Ops.md
        await _until(lambda: versions <= _judged(guard))  # without any search
        # (the guard is shared by equal configurations)
        assert not any(guard.verdicts[nid][1][0] for nid, _ in versions)

        found = await vg.ok("search_regex", pattern="backup")
        assert "hunter2pass" not in str(found) and "[REDACTED]" in str(found)

        note = await vg.ok("read_note", path="Ops.md")
        await vg.ok(
            "write_note",
            path="Ops.md",
            mode="overwrite",
            expected_etag=note["etag"],
            # the line shown holds no secret pattern: only the note's new verdict can hide the word
            content="---\npassword: swordfish42\n---\n# Ops\n\nThe backup password is swordfish42 now.\n",
        )
        await vg.settled()
        found = await vg.ok("search_regex", pattern="backup")
        ops = [i for i in found["items"] if i["path"] == "Ops.md"]
        assert ops and "swordfish42" not in str(found) and "[REDACTED]" in str(ops)
        assert (await vg.app.db.run_read(_long)) <= _judged(guard)
        assert any("swordfish42" in words for _, (secret, words) in guard.verdicts.values() if secret)


async def test_prescan_goes_in_batches_and_skips_what_is_known(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        guard = Guard.build("redact")  # a guard of its own: the warm-up fills the vault's
        ids = sorted(nid for nid, _ in await vg.app.db.run_read(_versions))
        small = await vg.app.db.run_read(
            lambda c: prescan(guard, c, vault_id="main", after=0, batch=2, min_bytes=1 << 20)
        )
        assert small is None and not guard.verdicts
        last = await vg.app.db.run_read(lambda c: prescan(guard, c, vault_id="main", after=0, batch=2))
        assert last == ids[1] and len(guard.verdicts) == 2
        last = await vg.app.db.run_read(lambda c: prescan(guard, c, vault_id="main", after=ids[1], batch=2))
        assert last == ids[2] and len(guard.verdicts) == 3
        assert await vg.app.db.run_read(lambda c: prescan(guard, c, vault_id="main", after=ids[2], batch=2)) is None
        other = await vg.app.db.run_read(lambda c: prescan(guard, c, vault_id="elsewhere", after=0, batch=2))
        assert other is None and len(guard.verdicts) == 3


async def test_the_prescan_waits_for_the_callers_to_pause(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = {**VAULT, "Ops.md": VAULT["Ops.md"] + "Paused callers only.\n"}  # a version no other test judged
    born = Activity.__init__

    def busy_from_birth(self: Activity, *args: Any, **kwargs: Any) -> None:
        born(self, *args, **kwargs)
        self.begin()  # a call that runs on and on, from before the warm-up can start

    monkeypatch.setattr(Activity, "__init__", busy_from_birth)
    async with started(make_vault(vault)) as vg:
        activity = vg.app.activity
        await vg.indexed()
        guard = _guard(vg)
        versions = await vg.app.db.run_read(_long)
        for _ in range(50):  # the warm-up task gets every chance to run
            await asyncio.sleep(0)
        assert activity.running == 1 and not versions & _judged(guard)
        activity.end()
        await _until(lambda: versions <= _judged(guard))


async def test_a_note_written_again_and_again_keeps_one_verdict(make_vault: Callable[..., Path]) -> None:
    """The memo holds one verdict per note, that of its last version: writes and searches do
    not make it grow (kept by version, every write left a dead entry behind)."""
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        guard = _guard(vg)
        long_notes = await vg.app.db.run_read(_long)
        await _until(lambda: long_notes <= _judged(guard))  # the warm-up's scan is done
        await vg.ok("search_text", query="backup")
        judged = len(guard.verdicts)
        etag = (await vg.ok("read_note", path="Notes/Plain.md"))["etag"]
        for take in range(4):
            content = f"# Plain\n\nNothing secret about the backup schedule, take {take}.\n"
            args = {"path": "Notes/Plain.md", "mode": "overwrite", "expected_etag": etag, "content": content}
            etag = (await vg.ok("write_note", **args))["etag"]
            await vg.settled()
            found = await vg.ok("search_text", query="backup")
            assert "Notes/Plain.md" in {item["path"] for item in found["items"]}
        assert len(guard.verdicts) == judged
        assert await vg.app.db.run_read(_versions) <= _judged(guard)  # every note at its current version
