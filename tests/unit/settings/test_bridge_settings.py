"""`[vaults.bridge]`: defaults, the trust settings' forms and the mistakes refused at load."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from service.errors import ConfigError
from service.settings import BridgeSettings, load_settings


def test_defaults_point_at_the_plugins_encrypted_port_and_allow_no_command() -> None:
    bridge = BridgeSettings()
    assert bridge.url == "https://127.0.0.1:27124" and bridge.api_key_env == "OBSIDIAN_API_KEY"
    assert bridge.safe_commands == [] and bridge.timeout_s == 5.0 and bridge.probe_at_start is True
    assert bridge.cert_file is None and bridge.cert_fingerprint is None


def test_a_fingerprint_is_taken_as_openssl_prints_it() -> None:
    hex_digest = "ab" * 32
    printed = "SHA256 Fingerprint=" + ":".join(["AB"] * 32)
    assert BridgeSettings(cert_fingerprint=printed).cert_fingerprint == hex_digest
    with pytest.raises(ValidationError):
        BridgeSettings(cert_fingerprint="ab:cd")


@pytest.mark.parametrize(
    "bad",
    [
        {"url": "http://127.0.0.1:27123"},  # the unencrypted port would carry the key in clear
        {"url": "https://127.0.0.1:27124/vault"},
        {"api_key_env": "sk-the-key-itself!"},
        {"cert_fingerprint": "ab" * 32, "cert_file": "plugin.crt"},
        {"safe_commands": [" "]},
        {"timeout_s": 0},
    ],
)
def test_mistakes_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        BridgeSettings.model_validate(bad)


def test_cert_file_is_relative_to_the_config_file_and_must_exist(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (tmp_path / "conf" / "tls").mkdir(parents=True)
    (tmp_path / "conf" / "tls" / "obsidian.crt").write_text("PEM")
    config = tmp_path / "conf" / "vaultgate.toml"
    block = f'[[vaults]]\nid = "v"\npath = "{vault}"\n[vaults.bridge]\ncert_file = "tls/obsidian.crt"\n'
    config.write_text(block)
    settings = load_settings(config)
    assert settings.vaults[0].bridge is not None
    assert settings.vaults[0].bridge.cert_file == (tmp_path / "conf" / "tls" / "obsidian.crt").resolve()
    config.write_text(block.replace("obsidian.crt", "gone.crt"))
    with pytest.raises(ConfigError, match="cert_file"):
        load_settings(config)


def _two_bridged(tmp_path: Path, second_url: str) -> Path:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    config = tmp_path / "vaultgate.toml"
    config.write_text(
        f'[[vaults]]\nid = "a"\npath = "{tmp_path / "a"}"\n[vaults.bridge]\n'
        f'[[vaults]]\nid = "b"\npath = "{tmp_path / "b"}"\n[vaults.bridge]\nurl = "{second_url}"\n',
        encoding="utf-8",
    )
    return config


def test_two_vaults_bridged_to_one_address_are_a_warning_at_validate(tmp_path: Path) -> None:
    """One Local REST API plugin answers at an address, for whichever vault its Obsidian has open:
    two vaults bridged there reach each other's open note and commands (A5 s95). It works, so it is
    a warning, as a secret in the config file is; the server logs it at its start too."""
    from service.settings import config_warnings
    from tests.e2e.test_cli import run

    shared = _two_bridged(tmp_path, "https://127.0.0.1:27124/")  # the default, written out
    [warning] = config_warnings(load_settings(shared))
    assert "'a', 'b'" in warning and "own Local REST API port" in warning
    out = run("config", "validate", str(shared))
    assert out.returncode == 0 and f"warning: {warning}" in out.stderr, out.stderr
    (tmp_path / "other").mkdir()
    apart = _two_bridged(tmp_path / "other", "https://127.0.0.1:27125")
    assert config_warnings(load_settings(apart)) == []
