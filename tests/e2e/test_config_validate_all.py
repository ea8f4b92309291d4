"""`vaultgate config validate`, `serve` and `stdio` as a user runs them: every problem of a
configuration in one run, whichever stage finds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _config(tmp_path: Path) -> Path:
    (tmp_path / "vault").mkdir()
    (tmp_path / "afile").write_text("x")
    config = tmp_path / "vg.toml"
    config.write_text(
        f'[[vaults]]\nid = "gone"\npath = "{tmp_path}/no-such-vault"\n'
        f'[[vaults]]\nid = "ok"\npath = "{tmp_path}/vault"\n[vaults.bridge]\ncert_file = "missing.crt"\n'
        f'[storage]\ncache_dir = "{tmp_path}/afile"\n'
    )
    return config


COMMANDS = [("config", "validate", "CONFIG"), ("serve", "CONFIG", "--port", "0"), ("stdio", "CONFIG")]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_problem_is_named_in_one_run(tmp_path: Path, command: tuple[str, ...]) -> None:
    config = _config(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "service", *(str(config) if arg == "CONFIG" else arg for arg in command)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "no-such-vault" in out.stderr and "missing.crt" in out.stderr
    assert f"cache folder (storage.cache_dir) {tmp_path}/afile" in out.stderr
