"""`check_config`: every problem of every stage in one run (settings, the files and folders they
name, whether those folders can be used), and a stage that could not run says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.errors import ConfigError
from service.settings import check_config, load_settings

FINGERPRINT = "ab" * 32


def config(tmp_path: Path, text: str) -> Path:
    (tmp_path / "vault").mkdir(exist_ok=True)
    (tmp_path / "afile").write_text("x")
    path = tmp_path / "vaultgate.toml"
    path.write_text(text)
    return path


VALID_BUT_UNUSABLE = """
[[vaults]]
id = "gone"
path = "no-such-vault"
[[vaults]]
id = "ok"
path = "vault"
[vaults.bridge]
cert_file = "missing.crt"
[storage]
cache_dir = "afile"
"""


def test_a_missing_vault_a_missing_cert_file_and_a_cache_dir_that_is_a_file_are_named_together(
    tmp_path: Path,
) -> None:
    settings, problems = check_config(config(tmp_path, VALID_BUT_UNUSABLE))
    assert settings is not None
    assert [p.split(":")[0] for p in problems[:3]] == [
        "vault 'gone'",
        "vault 'ok'",
        "cache folder (storage.cache_dir) " + str(tmp_path / "afile"),
    ]
    assert "no-such-vault" in problems[0] and "missing.crt" in problems[1] and "not a folder" in problems[2]
    assert len(problems) == len(set(problems))  # the missing vault is named once, not by two stages
    with pytest.raises(ConfigError) as raised:  # start-up still refuses, with the same first stage
        load_settings(tmp_path / "vaultgate.toml")
    assert raised.value.problems == problems[:2]


def test_schema_errors_do_not_hide_the_files_and_folders_the_raw_values_name(tmp_path: Path) -> None:
    text = VALID_BUT_UNUSABLE.replace(
        "[storage]", f'cert_fingerprint = "{FINGERPRINT}"\n[http]\nport = 99999\n[storage]'
    )
    settings, problems = check_config(config(tmp_path, text))
    assert settings is None
    assert problems[0] == "vaults.1.bridge: give cert_file or cert_fingerprint, not both"
    assert problems[1].startswith("http.port: ")
    assert any("no-such-vault" in p for p in problems) and any("missing.crt" in p for p in problems)
    assert any(p.startswith("cache folder (storage.cache_dir)") for p in problems)
    assert problems[-1].startswith("not checked until the settings above are valid")


def test_a_config_that_does_not_parse_says_nothing_else_was_checked(tmp_path: Path) -> None:
    settings, problems = check_config(config(tmp_path, "[[vaults]\n"))
    assert settings is None and len(problems) == 2
    assert "not valid TOML" in problems[0] and problems[1].startswith("nothing else was checked")


def test_a_usable_configuration_has_no_problems(tmp_path: Path) -> None:
    text = f'[[vaults]]\nid = "ok"\npath = "vault"\n[storage]\ncache_dir = "{tmp_path / "cache"}"\n'
    settings, problems = check_config(config(tmp_path, text))
    assert settings is not None and problems == []
    assert settings.vaults[0].path == (tmp_path / "vault").resolve()
