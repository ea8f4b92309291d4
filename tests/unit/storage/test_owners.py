"""`service.storage.owners`: a lock file another start's sweep sees is already held.

Before, `Owner.id` created `<owner>.lock` and flocked it in a second call: a sweep
(`live_owners`, another server starting) that opened the file between the two took the lock,
judged the owner dead and removed the file, so the new owner held a lock on a file nobody could
find and every later start treated its runs (and reindex jobs) as a dead process's."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from service.storage import owners


def test_a_sweep_between_the_lock_files_creation_and_its_lock_leaves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "owners"
    real_flock = fcntl.flock
    swept: list[set[str]] = []
    sweeping = [False]

    def flock_after_a_sweep(fd: int, operation: int) -> None:
        if not sweeping[0]:  # the new owner's own flock: another start sweeps first
            sweeping[0] = True
            swept.append(owners.live_owners(folder))
        real_flock(fd, operation)

    monkeypatch.setattr(owners.fcntl, "flock", flock_after_a_sweep)
    owner = owners.Owner(folder)
    me = owner.id
    monkeypatch.setattr(owners.fcntl, "flock", real_flock)
    assert swept == [set()]
    assert owners.alive(folder, me) and owners.live_owners(folder) == {me}
    assert sorted(p.name for p in folder.iterdir()) == [f"{me}.lock"]
    owner.release()
    assert not owners.alive(folder, me) and list(folder.iterdir()) == []
