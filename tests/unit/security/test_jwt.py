"""JWT verification: real keys, and every forgery the issue lists is rejected."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest
from joserfc.jwk import OctKey, RSAKey
from pydantic import SecretStr, ValidationError

from service.errors import ConfigError
from service.security.jwt import JwtVerifier, TokenRejected, mint_hs256
from service.settings import AuthSettings
from tests.keys import (
    SECRET,
    b64,
    claims,
    hmac_with_public_key,
    hs,
    jwks,
    keys,
    reheader,
    sign,
    tampered,
    unsigned,
)


def verifier(**cfg: Any) -> JwtVerifier:
    cfg.setdefault("mode", "jwt")
    if "jwt_secret" in cfg:
        cfg["jwt_secret"] = SecretStr(cfg["jwt_secret"])
    return JwtVerifier(AuthSettings(**cfg))


BOTH = {"jwt_secret": SECRET, "jwks": jwks("rsa", "ec", "ed")}


@pytest.mark.parametrize(
    ("alg", "name"),
    [("RS256", "rsa"), ("RS512", "rsa"), ("ES256", "ec"), ("EdDSA", "ed"), ("Ed25519", "ed")],
)
def test_asymmetric_tokens_verify_against_the_jwks_by_kid(alg: str, name: str) -> None:
    key = keys()[name]
    token = sign(alg, claims(scope="read:vault write:vault/Inbox/**", vault="main"), key, kid=key.kid)
    principal = verifier(**BOTH).verify(token).principal
    assert principal.subject == "agent" and principal.authenticated
    assert principal.scopes == {"read:vault", "write:vault/Inbox/**"} and principal.vault == "main"


def test_hs256_and_scopes_list_claim() -> None:
    principal = verifier(jwt_secret=SECRET).verify(hs(claims(scope=None, scopes=["admin"]))).principal
    assert principal.scopes == {"admin"}


def test_a_single_jwks_key_needs_no_kid_and_cache_hits_are_identical() -> None:
    v = verifier(jwks=jwks("ec"))
    token = sign("ES256", claims(), keys()["ec"])
    assert v.verify(token) is v.verify(token)


def declared(**params: str) -> dict[str, Any]:
    """A JWKS whose only key is ours, with extra declared parameters (alg, use)."""
    return {"jwks": {"keys": [{**keys()["rsa"].as_dict(private=False), **params}]}}


FORGERIES: list[tuple[str, Any, dict[str, Any]]] = [
    ("alg none", lambda: unsigned(), BOTH),
    ("alg none, upper case", lambda: unsigned().replace("bm9uZ", "Tk9OR"), BOTH),
    ("HS256 signed with the public RSA key", lambda: hmac_with_public_key("rsa"), BOTH),
    ("HS256 signed with the public key, JWKS only", lambda: hmac_with_public_key("rsa"), {"jwks": jwks("rsa")}),
    ("expired", lambda: hs(claims(exp=int(time.time()) - 3600)), BOTH),
    ("expired beyond leeway", lambda: hs(claims(exp=int(time.time()) - 31)), BOTH),
    ("no exp", lambda: hs(claims(exp=None)), BOTH),
    ("not yet valid", lambda: hs(claims(nbf=int(time.time()) + 3600)), BOTH),
    ("wrong issuer", lambda: hs(claims(iss="evil")), {**BOTH, "issuer": "https://idp.example"}),
    ("missing issuer", lambda: hs(claims()), {**BOTH, "issuer": "https://idp.example"}),
    ("wrong audience", lambda: hs(claims(aud="other")), {**BOTH, "audience": "vaultgate"}),
    ("unknown kid", lambda: sign("RS256", claims(), keys()["rsa"], kid="nope"), BOTH),
    ("known kid, other key", lambda: sign("RS256", claims(), keys()["other_rsa"], kid="rsa-1"), BOTH),
    ("no kid among several keys", lambda: sign("RS256", claims(), keys()["rsa"]), BOTH),
    ("tampered payload", lambda: tampered(hs(), scope="admin"), BOTH),
    ("tampered EdDSA payload", lambda: tampered(sign("EdDSA", claims(), keys()["ed"], kid="ed-1"), sub="root"), BOTH),
    ("wrong secret", lambda: hs(secret="another-secret-" + "y" * 40), BOTH),
    ("unknown algorithm HS512", lambda: sign("HS512", claims(), OctKey.import_key(SECRET.encode())), BOTH),
    ("PS256 is not accepted", lambda: sign("PS256", claims(), keys()["rsa"], kid="rsa-1"), BOTH),
    (
        "ES256 token relabelled RS256",
        lambda: reheader(sign("ES256", claims(), keys()["ec"], kid="ec-1"), alg="RS256", kid="rsa-1"),
        BOTH,
    ),
    (
        "RS256 token relabelled HS256",
        lambda: reheader(sign("RS256", claims(), keys()["rsa"], kid="rsa-1"), alg="HS256"),
        BOTH,
    ),
    ("EC key used for RS256 kid", lambda: sign("ES256", claims(), keys()["ec"], kid="rsa-1"), BOTH),
    ("no subject", lambda: hs(claims(sub=None)), BOTH),
    ("garbage", lambda: "not.a.token", BOTH),
    ("two parts", lambda: "abc.def", BOTH),
    ("HS256 when only a JWKS is configured", lambda: hs(), {"jwks": jwks("rsa")}),
    ("embedded jwk header with the attacker's key", lambda: attacker_signed(jwk=True), BOTH),
    ("jku header pointing at the attacker's keys", lambda: attacker_signed(jku="https://evil.example/jwks"), BOTH),
    ("audience list without ours", lambda: hs(claims(aud=["a", "b"])), {**BOTH, "audience": "vaultgate"}),
    ("exp as a string", lambda: hs(claims(exp="9999999999")), BOTH),
    ("nbf as a string", lambda: hs(claims(nbf="0")), BOTH),
    ("subject not a string", lambda: hs(claims(sub=42)), BOTH),
    ("vault claim not a string", lambda: hs(claims(vault=["main", "second"])), BOTH),
    ("oversized token", lambda: hs(claims(pad="x" * 20_000)), BOTH),
    (
        "RS256 with a key declared RS512",
        lambda: sign("RS256", claims(), keys()["rsa"], kid="rsa-1"),
        declared(alg="RS512"),
    ),
    ("RS256 with an encryption key", lambda: sign("RS256", claims(), keys()["rsa"], kid="rsa-1"), declared(use="enc")),
]


def attacker_signed(**header: Any) -> str:
    """RS256 under our kid, signed by a key the attacker made, optionally advertising it."""
    mine = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})
    if header.pop("jwk", False):
        header["jwk"] = mine.as_dict(private=False)
    return sign("RS256", claims(scope="admin"), mine, kid="rsa-1", **header)


@pytest.mark.parametrize(("case", "make", "cfg"), FORGERIES, ids=[f[0] for f in FORGERIES])
def test_forgeries_are_rejected(case: str, make: Any, cfg: dict[str, Any]) -> None:
    with pytest.raises(TokenRejected):
        verifier(**cfg).verify(make())


def test_a_key_declaring_its_own_algorithm_and_use_still_verifies() -> None:
    token = sign("RS256", claims(), keys()["rsa"], kid="rsa-1")
    assert verifier(**declared(alg="RS256", use="sig")).verify(token).principal.subject == "agent"


def test_leeway_accepts_small_clock_skew() -> None:
    token = hs(claims(exp=int(time.time()) - 5, nbf=int(time.time()) + 5))
    assert verifier(jwt_secret=SECRET, leeway_seconds=30).verify(token).principal.subject == "agent"


def test_short_secret_and_empty_config_are_refused_at_start() -> None:
    # The [auth] section refuses them as it is read (reported with every other config problem) ...
    with pytest.raises(ValidationError, match="at least 32 bytes"):
        verifier(jwt_secret="too-short")
    with pytest.raises(ValidationError, match="needs auth.jwt_secret"):
        verifier()
    # ... and the verifier refuses them again should settings be built without validation.
    with pytest.raises(ConfigError):
        JwtVerifier(AuthSettings.model_construct(mode="jwt", jwt_secret=SecretStr("too-short")))
    with pytest.raises(ConfigError):
        JwtVerifier(AuthSettings.model_construct(mode="jwt"))


def test_mint_round_trips_and_refuses_short_secrets() -> None:
    token = mint_hs256(SECRET, subject="bot", scopes="read:vault", ttl_seconds=60, vault="main", issuer="me")
    principal = verifier(jwt_secret=SECRET, issuer="me").verify(token).principal
    assert (principal.subject, principal.scopes, principal.vault) == ("bot", {"read:vault"}, "main")
    with pytest.raises(ConfigError):
        mint_hs256("short", subject="x", scopes="read:vault", ttl_seconds=60)


def test_a_cached_token_is_refused_once_it_expires() -> None:
    """The verified-token cache never outlives the token: the clock is injected, nothing sleeps."""
    now = [1_900_000_000.0]
    v = JwtVerifier(AuthSettings(mode="jwt", jwt_secret=SecretStr(SECRET)), clock=lambda: now[0])
    token = hs(claims(iat=int(now[0]), exp=int(now[0]) + 60))
    first = v.verify(token)
    now[0] += 60 + 29  # past exp, within the 30 s leeway: still the cached answer
    assert v.verify(token) is first
    now[0] += 2  # beyond the leeway: the cache entry is dropped and the token re-checked
    with pytest.raises(TokenRejected, match="expired"):
        v.verify(token)
    with pytest.raises(TokenRejected, match="expired"):
        v.verify(token)  # and it stays refused (no stale entry was put back)


def _raw_header(header: bytes) -> str:
    """A token whose header part is `header` (base64url), with a plausible payload and signature."""
    part = base64.urlsafe_b64encode(header).decode().rstrip("=")
    return f"{part}.{b64(claims())}.c2ln"


MALFORMED_HEADERS: list[tuple[str, str]] = [
    ("alg as an array", _raw_header(b'{"alg": ["HS256"], "typ": "JWT"}')),
    ("alg as an object", _raw_header(b'{"alg": {"HS256": 1}, "typ": "JWT"}')),
    ("alg as a number", _raw_header(b'{"alg": 256}')),
    ("kid as an object", _raw_header(b'{"alg": "RS256", "kid": {"a": 1}}')),
    ("kid as an array", _raw_header(b'{"alg": "RS256", "kid": ["rsa-1"]}')),
    ("header nested 5,000 deep", _raw_header(b'{"alg": "HS256", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}")),
    ("header nested 100,000 deep", _raw_header(b"[" * 100_000 + b"]" * 100_000)),
    ("header not base64", "!!!$$$.e30.c2ln"),
    ("header not JSON", _raw_header(b"not json at all")),
    ("header not UTF-8", _raw_header(b'{"alg": "\xff\xfe"}')),
    ("header with NaN", _raw_header(b'{"alg": "HS256", "n": NaN}')),
    ("header a JSON string", _raw_header(b'"HS256"')),
    ("empty header", ".e30.c2ln"),
    ("crit as a string", _raw_header(b'{"alg": "HS256", "crit": "exp"}')),
    ("b64 false", _raw_header(b'{"alg": "HS256", "b64": false, "crit": ["b64"]}')),
]


@pytest.mark.parametrize("token", [t for _, t in MALFORMED_HEADERS], ids=[n for n, _ in MALFORMED_HEADERS])
def test_a_malformed_token_header_is_rejected_not_raised(token: str) -> None:
    with pytest.raises(TokenRejected):
        verifier(**BOTH).verify(token)


@pytest.mark.parametrize("scope", ["admin/Projects/**", "read:vault admin/Projects"])
def test_a_folder_narrowed_admin_is_refused_with_a_clear_reason(scope: str) -> None:
    """admin's powers are vault-wide (config, reindex, /admin/confirm of any call): `admin/F` is refused."""
    with pytest.raises(TokenRejected, match="admin cannot be narrowed to a folder"):
        verifier(jwt_secret=SECRET).verify(hs(claims(scope=scope)))
    assert "admin" in verifier(jwt_secret=SECRET).verify(hs(claims(scope="admin"))).principal.scopes
