"""Auth configuration through the exact environment names deployments use, and the start-up
interlocks: no `none` off loopback, no short secret, no unusable JWKS, no key-less jwt mode."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from service.app import VaultgateApp
from service.errors import ConfigError
from service.http.asgi import http_app
from service.http.auth import Authenticator
from service.settings import load_settings
from tests.e2e.test_cli import run
from tests.keys import SECRET, claims, jwks, keys, sign


def test_environment_names_configure_jwt_with_a_jwks_file(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jwks_file = tmp_path / "jwks.json"
    jwks_file.write_text(json.dumps(jwks("rsa", "ec")), encoding="utf-8")
    env = {
        "VAULTGATE_AUTH__MODE": "jwt",
        "VAULTGATE_AUTH__JWT_SECRET": SECRET,
        "VAULTGATE_AUTH__JWKS_FILE": str(jwks_file),
        "VAULTGATE_AUTH__ISSUER": "https://idp.example",
        "VAULTGATE_AUTH__AUDIENCE": "vaultgate",
        "VAULTGATE_HTTP__ALLOWED_HOSTS": '["notes.example.com"]',
        "VAULTGATE_HTTP__ALLOWED_ORIGINS": '["https://notes.example.com"]',
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = load_settings(make_vault({"A.md": "a"}))
    assert settings.auth.mode == "jwt" and settings.auth.issuer == "https://idp.example"
    assert settings.http.effective_allowed_hosts() == ["notes.example.com"]
    assert settings.http.effective_allowed_origins() == ["https://notes.example.com"]
    assert SECRET not in json.dumps(settings.redacted())
    verifier = Authenticator(VaultgateApp(settings).settings.auth, settings.http.path).verifier
    assert verifier is not None
    token = sign("ES256", claims(iss="https://idp.example", aud="vaultgate"), keys()["ec"], kid="ec-1")
    assert verifier.verify(token).principal.subject == "agent"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"http": {"host": "0.0.0.0"}}, "refusing to serve without authentication"),
        ({"http": {"host": "192.168.1.20"}, "auth": {"mode": "none"}}, "refusing to serve without authentication"),
        ({"auth": {"mode": "jwt"}}, "needs auth.jwt_secret"),
        ({"auth": {"mode": "jwt", "jwt_secret": "x" * 31}}, "at least 32 bytes"),
    ],
)
def test_unsafe_configurations_are_refused_at_start(
    make_vault: Callable[..., Path], overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(make_vault({"A.md": "a"}), **overrides)


def test_jwt_on_a_public_interface_is_allowed(make_vault: Callable[..., Path]) -> None:
    settings = load_settings(
        make_vault({"A.md": "a"}), http={"host": "0.0.0.0"}, auth={"mode": "jwt", "jwt_secret": SECRET}
    )
    assert settings.auth.mode == "jwt"


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps({"keys": [{"kty": "RSA", "n": "broken"}]}),
        json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0" * 8}]}),
    ],
    ids=["not-json", "broken-rsa", "only-an-hmac-key"],
)
def test_an_unusable_jwks_file_fails_when_the_http_app_is_built(
    make_vault: Callable[..., Path], tmp_path: Path, content: str
) -> None:
    bad = tmp_path / "jwks.json"
    bad.write_text(content, encoding="utf-8")
    app = VaultgateApp(load_settings(make_vault({"A.md": "a"}), auth={"mode": "jwt", "jwks_file": str(bad)}))
    with pytest.raises(ConfigError):
        http_app(app)


def config_with(tmp_path: Path, vault: Path, auth: str) -> Path:
    config = tmp_path / "vaultgate.toml"
    config.write_text(f'[[vaults]]\nid = "main"\npath = "{vault}"\n[auth]\n{auth}', encoding="utf-8")
    return config


async def test_a_secret_in_the_config_file_is_a_warning_at_validate_and_start(
    make_vault: Callable[..., Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    vault = make_vault({"A.md": "a"})
    in_file = config_with(tmp_path, vault, f'mode = "jwt"\njwt_secret = "{SECRET}"\n')
    out = run("config", "validate", str(in_file))
    assert out.returncode == 0, out.stderr  # a warning, not an error
    assert "warning: auth.jwt_secret is set in vaultgate.toml" in out.stderr
    assert "VAULTGATE_AUTH__JWT_SECRET" in out.stderr and SECRET not in out.stderr + out.stdout

    with caplog.at_level("WARNING", logger="vaultgate"):
        async with VaultgateApp(load_settings(in_file)).running():
            pass
    assert any("auth.jwt_secret is set in vaultgate.toml" in r.getMessage() for r in caplog.records)
    assert SECRET not in caplog.text

    from_env = config_with(tmp_path, vault, 'mode = "jwt"\n')
    out = run("config", "validate", str(from_env), env={"VAULTGATE_AUTH__JWT_SECRET": SECRET})
    assert out.returncode == 0 and "warning" not in out.stderr
