"""Real keys for the auth tests, generated per test session (RSA, EC P-256, Ed25519, HS256)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import warnings
from functools import lru_cache
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey, OctKey, OKPKey, RSAKey

SECRET = "s3cret-" + "x" * 40  # 47 bytes


@lru_cache(maxsize=1)
def keys() -> dict[str, Any]:
    return {
        "rsa": RSAKey.generate_key(2048, parameters={"kid": "rsa-1"}),
        "ec": ECKey.generate_key("P-256", parameters={"kid": "ec-1"}),
        "ed": OKPKey.generate_key("Ed25519", parameters={"kid": "ed-1"}),
        "other_rsa": RSAKey.generate_key(2048, parameters={"kid": "rsa-1"}),  # same kid, other key
    }


def jwks(*names: str) -> dict[str, Any]:
    return {"keys": [keys()[n].as_dict(private=False) for n in names]}


def claims(**extra: Any) -> dict[str, Any]:
    now = int(time.time())
    base: dict[str, Any] = {"sub": "agent", "scope": "read:vault write:vault", "iat": now, "exp": now + 600}
    base.update(extra)
    return {k: v for k, v in base.items() if v is not None}


def sign(alg: str, payload: dict[str, Any], key: Any, **header: Any) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return jwt.encode({"alg": alg, **header}, payload, key, algorithms=[alg])


def reheader(token: str, **header: Any) -> str:
    """Swap the protected header, keeping payload and signature (the signature no longer matches)."""
    _, body, sig = token.split(".")
    return f"{b64(header)}.{body}.{sig}"


def hs(payload: dict[str, Any] | None = None, secret: str = SECRET) -> str:
    return sign("HS256", payload or claims(), OctKey.import_key(secret.encode()))


def b64(data: Any) -> str:
    raw = json.dumps(data).encode() if not isinstance(data, bytes) else data
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unsigned(payload: dict[str, Any] | None = None) -> str:
    return f"{b64({'alg': 'none', 'typ': 'JWT'})}.{b64(payload or claims())}."


def tampered(token: str, **changes: Any) -> str:
    head, body, sig = token.split(".")
    data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    data.update(changes)
    return f"{head}.{b64(data)}.{sig}"


def hmac_with_public_key(name: str = "rsa", payload: dict[str, Any] | None = None) -> str:
    """Algorithm confusion: an HS256 token whose HMAC key is the server's public key (PEM bytes),
    built by hand as an attacker would (joserfc itself refuses to use a public key as a secret)."""
    pem = keys()[name].as_pem(private=False)
    signing_input = f"{b64({'alg': 'HS256', 'typ': 'JWT', 'kid': keys()[name].kid})}.{b64(payload or claims())}"
    mac = hmac.new(pem, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(mac)}"
