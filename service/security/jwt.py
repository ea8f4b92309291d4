"""Bearer-token verification (JWT via joserfc) and minting for HS256 deployments.

Algorithm confusion is impossible by construction: the token's `alg` only selects *which* key
may verify it, from a fixed table —
    HS256          → the configured shared secret, never a JWKS key
    RS256/384/512  → a JWKS key of type RSA
    ES256 / ES384  → a JWKS key of type EC on P-256 / P-384
    EdDSA, Ed25519 → a JWKS key of type OKP (Ed25519)
— and joserfc is told to accept exactly that one algorithm for that one key. `none` and every
other algorithm are refused before any key is touched. With several JWKS keys the token must
name one by `kid` (keys rotate by publishing old + new together); a single key needs no `kid`.
A JWKS key marked `use: enc`, or declaring another `alg`, never verifies a token.
Keys are loaded once at start from the inline JWKS or the JWKS file; nothing is fetched.

Claims: `exp` is required, `nbf` honoured (both finite numbers, with `leeway_seconds`), `iss`/`aud`
checked when configured; `sub` is the caller, `scope` (space-separated) or `scopes` (list) the grants,
`vault` an optional binding. Verified tokens are cached by SHA-256 until they expire.
Whatever a token holds, `verify` answers with a `Verified` or raises `TokenRejected` (a header
that is not base64 or JSON, nests too deep, or names `alg`/`kid` with anything but a string is
malformed): the edge turns that into a 401, never a 500.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.errors import JoseError, SecurityWarning
from joserfc.jwk import ECKey, KeySet, OctKey, OKPKey, RSAKey

from service.errors import ConfigError, TokenRejected
from service.security.scopes import parse_scopes
from service.security.scopes import refusal as scope_refusal
from service.settings import AuthSettings
from service.types import Principal

MIN_SECRET_BYTES = 32
_ASYMMETRIC: dict[str, tuple[type[Any], str | None]] = {
    "RS256": (RSAKey, None),
    "RS384": (RSAKey, None),
    "RS512": (RSAKey, None),
    "ES256": (ECKey, "P-256"),
    "ES384": (ECKey, "P-384"),
    "EdDSA": (OKPKey, "Ed25519"),
    "Ed25519": (OKPKey, "Ed25519"),  # RFC 9864's fully-specified name for EdDSA over Ed25519
}
MAX_TOKEN_BYTES = 16 * 1024


@dataclass(frozen=True, slots=True)
class Verified:
    principal: Principal
    expires_at: float
    claims: dict[str, Any]


def load_jwks(cfg: AuthSettings) -> list[Any]:
    """Public keys from the inline JWKS and/or the JWKS file (private parts are ignored)."""
    docs: list[dict[str, Any]] = []
    if cfg.jwks is not None:
        docs.append(cfg.jwks)
    if cfg.jwks_file is not None:
        try:
            docs.append(json.loads(Path(cfg.jwks_file).expanduser().read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"auth.jwks_file {cfg.jwks_file}: {exc}") from None
    keys: list[Any] = []
    for doc in docs:
        try:
            keys += list(KeySet.import_key_set(doc).keys)  # type: ignore[arg-type]
        except (JoseError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"auth JWKS is not a valid key set: {exc}") from None
    return keys


class JwtVerifier:
    def __init__(self, cfg: AuthSettings, *, cache_size: int = 1024, clock: Callable[[], float] = time.time) -> None:
        self.cfg = cfg
        self._clock = clock  # injectable, so expiry of cached tokens is testable without sleeping
        self.secret: OctKey | None = None
        if cfg.jwt_secret is not None:
            raw = cfg.jwt_secret.get_secret_value().encode()
            if len(raw) < MIN_SECRET_BYTES:
                raise ConfigError(f"auth.jwt_secret must be at least {MIN_SECRET_BYTES} bytes (got {len(raw)})")
            self.secret = OctKey.import_key(raw)
        self.keys = [k for k in load_jwks(cfg) if not isinstance(k, OctKey)]  # never an HMAC key from a JWKS
        if self.secret is None and not self.keys:
            raise ConfigError("auth.mode = 'jwt' needs auth.jwt_secret (HS256) or a JWKS (auth.jwks / auth.jwks_file)")
        self._cache: OrderedDict[str, Verified] = OrderedDict()
        self._cache_size = cache_size

    # -- verification ------------------------------------------------------------------------

    def verify(self, token: str) -> Verified:
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = self._clock()
        hit = self._cache.get(digest)
        if hit is not None:
            if hit.expires_at + self.cfg.leeway_seconds > now:
                self._cache.move_to_end(digest)
                return hit
            del self._cache[digest]
        verified = self._verify(token, now)
        self._cache[digest] = verified
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return verified

    def _verify(self, token: str, now: float) -> Verified:
        if len(token) > MAX_TOKEN_BYTES or token.count(".") != 2:
            raise TokenRejected("malformed token")
        header = _header(token)
        alg, kid = header.get("alg"), header.get("kid")
        if not isinstance(alg, str) or not (kid is None or isinstance(kid, str)):
            raise TokenRejected("malformed token header (alg and kid are strings)")
        key = self._key_for(alg, kid)
        try:
            with warnings.catch_warnings():
                # joserfc flags `EdDSA` as deprecated by RFC 9864; it is still what IdPs issue.
                warnings.simplefilter("ignore", SecurityWarning)
                decoded = jwt.decode(token, key, algorithms=[alg])
        except (JoseError, ValueError) as exc:
            raise TokenRejected(f"signature check failed ({getattr(exc, 'error', 'invalid')})") from None
        except Exception:  # noqa: BLE001 - whatever else an odd token trips in the library is a refusal
            raise TokenRejected("malformed token") from None
        claims = dict(decoded.claims)
        self._check_claims(claims, now)
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise TokenRejected("token has no subject (sub)")
        grants = parse_scopes(claims.get("scope")) | parse_scopes(claims.get("scopes"))
        refused = scope_refusal(grants)
        if refused is not None:
            raise TokenRejected(refused)
        vault = claims.get("vault")
        if vault is not None and not isinstance(vault, str):
            raise TokenRejected("vault claim must be a string")
        principal = Principal(subject=subject, scopes=grants, vault=vault, authenticated=True)
        return Verified(principal, float(claims["exp"]), claims)

    def _key_for(self, alg: Any, kid: Any) -> Any:
        if alg == "HS256":
            if self.secret is None:
                raise TokenRejected("HS256 tokens are not accepted here")
            return self.secret
        if alg not in _ASYMMETRIC:
            raise TokenRejected(f"algorithm {alg!r} is not accepted")
        key_type, curve = _ASYMMETRIC[str(alg)]
        fitting = [
            k
            for k in self.keys
            if isinstance(k, key_type)
            and (curve is None or getattr(k, "curve_name", None) == curve)
            and k.get("use") in (None, "sig")  # an encryption key never verifies a signature
            and k.get("alg") in (None, alg)  # a key that declares its algorithm is used only with it
        ]
        if kid is not None:
            fitting = [k for k in fitting if k.kid == kid]
            if not fitting:
                raise TokenRejected("unknown key id (kid)")
            return fitting[0]
        if len(self.keys) > 1:
            raise TokenRejected("token must name its key (kid): several keys are configured")
        if not fitting:
            raise TokenRejected(f"no {alg} key is configured")
        return fitting[0]

    def _check_claims(self, claims: dict[str, Any], now: float) -> None:
        leeway = self.cfg.leeway_seconds
        exp = _seconds(claims.get("exp"))
        if exp is None:
            raise TokenRejected("token has no expiry (exp)")
        if exp + leeway < now:
            raise TokenRejected("token expired")
        if claims.get("nbf") is not None:
            nbf = _seconds(claims["nbf"])
            if nbf is None:
                raise TokenRejected("invalid nbf")
            if nbf - leeway > now:
                raise TokenRejected("token not valid yet")
        if self.cfg.issuer is not None and claims.get("iss") != self.cfg.issuer:
            raise TokenRejected("wrong issuer")
        if self.cfg.audience is not None:
            aud = claims.get("aud")
            audiences = aud if isinstance(aud, list) else [aud]
            if self.cfg.audience not in audiences:
                raise TokenRejected("wrong audience")


def _seconds(value: Any) -> float | None:
    """A NumericDate claim as seconds: a finite number (JSON as Python reads it also gives
    Infinity, NaN and `1e400`, which would never expire, or compare false), else None."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an int past a float's range
        return None
    return seconds if math.isfinite(seconds) else None


def _header(token: str) -> dict[str, Any]:
    part = token.split(".", 1)[0]
    try:
        header = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (ValueError, RecursionError):  # not base64, not UTF-8, not JSON, nested too deep
        raise TokenRejected("malformed token header") from None
    if not isinstance(header, dict):
        raise TokenRejected("malformed token header")
    return header


def mint_hs256(
    secret: str,
    *,
    subject: str,
    scopes: str,
    ttl_seconds: int,
    vault: str | None = None,
    issuer: str | None = None,
    audience: str | None = None,
) -> str:
    """An HS256 token for `vaultgate token mint` (the same rules the verifier applies)."""
    raw = secret.encode()
    if len(raw) < MIN_SECRET_BYTES:
        raise ConfigError(f"the secret must be at least {MIN_SECRET_BYTES} bytes (got {len(raw)})")
    now = int(time.time())
    claims: dict[str, Any] = {"sub": subject, "scope": scopes, "iat": now, "nbf": now, "exp": now + ttl_seconds}
    if vault:
        claims["vault"] = vault
    if issuer:
        claims["iss"] = issuer
    if audience:
        claims["aud"] = audience
    return jwt.encode({"alg": "HS256", "typ": "JWT"}, claims, OctKey.import_key(raw))
