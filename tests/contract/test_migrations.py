"""Migrations: numbered without gaps, applying cleanly to an empty database, found when installed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from service.storage.db import Database
from service.storage.migrate import MigrationError, load_migrations, migrate, migrations_dir

REPO = Path(__file__).resolve().parents[2]


def test_migrations_are_numbered_from_one_without_gaps() -> None:
    versions = [m.version for m in load_migrations()]
    assert versions == list(range(1, len(versions) + 1))
    assert migrations_dir().is_dir()


async def test_migrations_apply_to_an_empty_database_and_are_recorded(tmp_path: Path) -> None:
    db = Database(tmp_path / "cache.db", readers=1)
    await db.open()
    try:
        applied = await migrate(db)
        assert applied == [m.version for m in load_migrations()]
        assert await migrate(db) == []
        rows = await db.fetchall("SELECT version FROM schema_migrations ORDER BY version")
        assert [r[0] for r in rows] == applied
    finally:
        await db.close()


async def test_a_failing_migration_rolls_back_and_is_not_recorded(tmp_path: Path) -> None:
    folder = tmp_path / "migs"
    folder.mkdir()
    (folder / "0001_ok.sql").write_text("CREATE TABLE a(x);\n")
    (folder / "0002_bad.sql").write_text("CREATE TABLE b(x);\nTHIS IS NOT SQL;\n")
    db = Database(tmp_path / "cache.db", readers=1)
    await db.open()
    try:
        with pytest.raises(MigrationError):
            await migrate(db, folder)
        tables = {r[0] for r in await db.fetchall("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "a" in tables and "b" not in tables
        assert [r[0] for r in await db.fetchall("SELECT version FROM schema_migrations")] == [1]
    finally:
        await db.close()


def test_the_built_wheel_carries_the_migrations_and_sample_vault(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if built.returncode != 0 and "No module named" in built.stderr and "hatchling" in built.stderr:
        pytest.skip("hatchling is not installed in this environment")
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next(tmp_path.glob("vaultgate-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    # The main chain and the experiential chain (`experiential.db`, service.memory.experiences).
    folder = REPO / "migrations"
    expected = {f"service/_migrations/{m.relative_to(folder).as_posix()}" for m in folder.rglob("*.sql")}
    assert expected <= set(names)
    assert any(n.startswith("service/_sample_vault/") for n in names)
