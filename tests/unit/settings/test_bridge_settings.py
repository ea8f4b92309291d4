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
