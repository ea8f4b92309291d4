"""Where the index and the records that cannot be rebuilt live by default, and the start-up
checks of those folders. XDG homes point at temp folders (tests/conftest.py `_xdg_homes`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from service.settings import load_settings
from service.settings.checks import folder_problems
from service.settings.storage import folder_key, user_cache_home, user_data_home

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG folders are the Linux convention")


@linux_only
def test_defaults_are_the_xdg_cache_and_data_folders_one_subfolder_per_vault(
    make_vault: Callable[..., Path], _xdg_homes: Path
) -> None:
    root = make_vault(name="My Notes")
    settings = load_settings(root)
    assert user_cache_home() == _xdg_homes / "cache" / "vaultgate"
    assert user_data_home() == _xdg_homes / "data" / "vaultgate"
    key = folder_key(root)
    assert key.startswith("my-notes-") and len(key) == len("my-notes-") + 8
    assert settings.cache_dir() == _xdg_homes / "cache" / "vaultgate" / key
    assert settings.data_dir() == _xdg_homes / "data" / "vaultgate" / key
    other = make_vault(name="other/My Notes")  # the same name elsewhere: its own folder
    assert folder_key(other) != key


def test_an_explicit_cache_dir_keeps_its_records_beside_it_unless_data_dir_is_set(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault()
    settings = load_settings(root, storage={"cache_dir": tmp_path / "cache"})
    assert settings.cache_dir() == tmp_path / "cache" and settings.data_dir() == tmp_path / "cache" / "data"
    both = load_settings(root, storage={"cache_dir": tmp_path / "c", "data_dir": tmp_path / "d"})
    assert both.data_dir() == tmp_path / "d"


def test_folder_checks_pass_on_a_usable_setup_and_create_nothing(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    settings = load_settings(root)
    before = sorted(p.name for p in root.iterdir())
    assert folder_problems(settings) == []
    assert sorted(p.name for p in root.iterdir()) == before  # the probe file is gone
    assert not settings.cache_dir().exists() and not settings.data_dir().exists()


def test_folder_checks_name_every_unusable_folder(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    root = make_vault()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    settings = load_settings(
        root,
        storage={"cache_dir": blocker / "cache", "data_dir": blocker / "data"},
        events={"spool_dir": blocker / "spool"},
        auth={"mode": "jwt", "jwks_file": tmp_path / "missing-jwks.json"},
        http={"host": "127.0.0.1"},
    )
    problems = folder_problems(settings)
    assert len(problems) == 4, problems
    assert any("cache folder" in p and str(blocker) in p and "not a folder" in p for p in problems)
    assert any("data folder" in p for p in problems) and any("spool" in p for p in problems)
    assert any("auth.jwks_file" in p and "missing-jwks.json" in p for p in problems)
