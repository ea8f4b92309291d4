"""The server as a non-root uid against a vault another uid owns — what a container started with
`--user` (or the systemd unit's dedicated user) meets: refused at start with a message that says
which folder, whose it is and who asks; served normally when it runs as the owner.

Changing uid needs root (the test drops to other uids with util-linux `setpriv`); elsewhere the
tests skip and say so. The other uids import vaultgate from a copy of `service/` and
`migrations/` in a folder they may read, so a checkout only root can read (cloned into a
`mktemp -d` folder or under /root) runs these tests too; when the interpreter or its packages
are out of their reach as well, the tests skip with the reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.e2e.calls import ok

REPO = Path(__file__).resolve().parents[2]
OWNER, OTHER = 4242, 4343
PROBE = "import mcp, pydantic, service.__main__, service.storage.migrate as m; assert m.load_migrations()"
pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to run the server as other uids",
)


def as_uid(uid: int) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def _public_folder(prefix: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder


@pytest.fixture(scope="module")
def source() -> Iterator[Path]:
    """vaultgate's code where every uid may read it: a copy of `service/` and `migrations/` (the
    checkout itself may be private to root). Skips, with the reason, when another uid cannot run
    this interpreter or import its packages even so."""
    folder = _public_folder("vaultgate-src-")
    try:
        skip = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(REPO / "service", folder / "service", ignore=skip)
        shutil.copytree(REPO / "migrations", folder / "migrations", ignore=skip)
        for path in folder.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        try:
            probe = subprocess.run(
                [*as_uid(OTHER), sys.executable, "-c", PROBE],
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, "PYTHONPATH": str(folder), "HOME": str(folder)},
                cwd=folder,
                stdin=subprocess.DEVNULL,
            )
        except OSError as exc:
            pytest.skip(f"uid {OTHER} cannot start {sys.executable}: {exc}")
        if probe.returncode != 0:
            last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
            pytest.skip(f"uid {OTHER} cannot run vaultgate with {sys.executable} and its packages: {last}")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder every uid may enter (pytest's tmp_path is private to root)."""
    folder = _public_folder("vaultgate-uid-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def owned(path: Path, uid: int) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    os.chown(path, uid, uid)
    return path


def env_for(place: Path, uid: int, source: Path) -> dict[str, str]:
    home = owned(place / f"home-{uid}", uid)
    return {
        **os.environ,
        "PYTHONPATH": str(source),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(owned(home / "cache", uid)),
        "XDG_DATA_HOME": str(owned(home / "data", uid)),
    }


def make_vault(place: Path) -> Path:
    vault = owned(place / "vault", OWNER)
    (vault / "Welcome.md").write_text("# Welcome\n\nHello.\n", encoding="utf-8")
    os.chown(vault / "Welcome.md", OWNER, OWNER)
    vault.chmod(0o755)
    return vault


def test_another_uid_is_refused_at_start_with_the_owner_mode_and_its_own_uid(place: Path, source: Path) -> None:
    vault = make_vault(place)
    for command in (["config", "validate"], ["stdio"]):
        out = subprocess.run(
            [*as_uid(OTHER), sys.executable, "-m", "service", *command, str(vault)],
            capture_output=True,
            text=True,
            timeout=60,
            env=env_for(place, OTHER, source),
            cwd=place,
            stdin=subprocess.DEVNULL,
        )
        assert out.returncode == 1, out.stderr
        assert f"folder {vault} is not writable: Permission denied" in out.stderr
        assert f"owned by uid {OWNER} gid {OWNER}, mode drwxr-xr-x" in out.stderr
        assert f"vaultgate runs as uid {OTHER} gid {OTHER}" in out.stderr
        assert f"docker run --user {OWNER}:{OWNER}" in out.stderr and "Traceback" not in out.stderr
    assert sorted(p.name for p in vault.iterdir()) == ["Welcome.md"]


async def test_the_owner_uid_serves_reads_and_writes_its_vault(place: Path, source: Path) -> None:
    vault = make_vault(place)
    params = StdioServerParameters(
        command=as_uid(OWNER)[0],
        args=[*as_uid(OWNER)[1:], sys.executable, "-m", "service", "stdio", str(vault)],
        env=env_for(place, OWNER, source),
        cwd=place,
    )
    async with Client(params) as client:
        assert (await ok(client, "read_note", path="Welcome"))["content"].startswith("# Welcome")
        made = await ok(client, "create_note", path="Inbox/From agent", content="hi\n")
    created = vault / made["path"]
    assert created.read_text(encoding="utf-8") == "hi\n"
    assert created.stat().st_uid == OWNER and created.parent.stat().st_uid == OWNER
    # the index lives in the owner's cache folder, never in the vault
    assert not (vault / ".vaultgate").exists()
    assert any((place / f"home-{OWNER}" / "cache").rglob("cache.db"))
