"""`vaultgate token mint`: minted tokens verify with the server's rules; bad input exits 1 and
prints nothing on stdout (no token, no secret)."""

from __future__ import annotations

import time

import pytest
from pydantic import SecretStr

from service.__main__ import main, parse_ttl
from service.security.jwt import JwtVerifier
from service.settings import AuthSettings
from tests.keys import SECRET


def test_minted_token_carries_sub_scopes_vault_and_ttl(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VG_SECRET", SECRET)
    argv = ["token", "mint", "--secret-env", "VG_SECRET", "--sub", "claude", "--scope", "read:vault write:vault/Inbox"]
    argv += ["--vault", "main", "--ttl", "2h", "--issuer", "me", "--audience", "vaultgate"]
    assert main(argv) == 0
    out = capsys.readouterr()
    token = out.out.strip()
    assert SECRET not in out.out + out.err
    cfg = AuthSettings(mode="jwt", jwt_secret=SecretStr(SECRET), issuer="me", audience="vaultgate")
    verified = JwtVerifier(cfg).verify(token)
    principal = verified.principal
    assert principal.subject == "claude" and principal.vault == "main" and principal.authenticated
    assert principal.scopes == {"read:vault", "write:vault/Inbox/**"}
    assert abs(verified.expires_at - (time.time() + 7200)) < 60


@pytest.mark.parametrize(
    ("env", "extra", "message"),
    [
        (None, [], "is not set"),
        ("short-secret", [], "at least 32 bytes"),
        (SECRET, ["--scope", "root:everything"], "unknown or missing scopes"),
        (SECRET, ["--scope", ""], "unknown or missing scopes"),
        (SECRET, ["--scope", "admin/Projects/**"], "admin cannot be narrowed to a folder"),
        (SECRET, ["--scope", "read:vault admin/Projects"], "admin cannot be narrowed to a folder"),
        (SECRET, ["--ttl", "forever"], "--ttl"),
        (SECRET, ["--ttl", "0s"], "--ttl"),
        (SECRET, ["--ttl", "400d"], "--ttl"),
    ],
)
def test_mint_refuses_bad_input(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: str | None,
    extra: list[str],
    message: str,
) -> None:
    if env is None:
        monkeypatch.delenv("VG_SECRET", raising=False)
    else:
        monkeypatch.setenv("VG_SECRET", env)
    argv = ["token", "mint", "--secret-env", "VG_SECRET", "--sub", "a", "--scope", "read:vault", *extra]
    assert main(argv) == 1
    out = capsys.readouterr()
    assert out.out == "" and message in out.err


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("30m", 1800), ("12h", 43200), ("7d", 604800), ("45", 45)])
def test_ttl_units(text: str, seconds: int) -> None:
    assert parse_ttl(text) == seconds
