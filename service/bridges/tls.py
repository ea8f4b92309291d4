"""Trusting the Local REST API plugin's self-signed certificate, never by switching checks off.

Three ways, from `[vaults.bridge]`:
- `cert_file`: the plugin's certificate is the only authority; the chain and the host name are
  checked as for any HTTPS server (the plugin puts 127.0.0.1 and localhost in it).
- `cert_fingerprint`: pinning. `Pinned.context()` opens one TLS connection that only reads the
  certificate the server presents (nothing is written on it, so no key can leak), compares its
  SHA-256 with the configured one, and on a match returns a context whose only trusted
  certificate is exactly that one. Every request then runs over that context: a server
  presenting any other certificate fails the handshake, so a swap after the check is refused
  too. The name is not checked in this mode: the certificate's identity is the pin.
- neither: the system's trust store (a certificate the user installed there).
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from dataclasses import dataclass
from pathlib import Path

from service.errors import PluginIncompatible, PluginUnreachable

PLUGIN = "obsidian-local-rest-api"
UNREACHABLE_HINT = "Start Obsidian with the vault open and the Local REST API plugin enabled, then try again."


def fingerprint(der: bytes) -> str:
    return hashlib.sha256(der).hexdigest()


def spaced(hex_digest: str) -> str:
    """`ab12…` → `AB:12:…`, the form browsers and openssl print."""
    return ":".join(hex_digest[i : i + 2] for i in range(0, len(hex_digest), 2)).upper()


def _strict_off(ctx: ssl.SSLContext) -> ssl.SSLContext:
    # A self-signed leaf made by the plugin (node-forge) is no CA by RFC 5280's letter; X509
    # strict mode (default from Python 3.13) would refuse it as its own trust anchor.
    strict = getattr(ssl, "VERIFY_X509_STRICT", 0)
    ctx.verify_flags &= ~strict
    return ctx


def file_context(cert_file: Path) -> ssl.SSLContext:
    """Trust exactly the certificate(s) in `cert_file`, with host-name checks."""
    try:
        return _strict_off(ssl.create_default_context(cafile=str(cert_file)))
    except (OSError, ssl.SSLError) as exc:
        raise PluginIncompatible(
            f"the bridge's cert_file cannot be loaded: {exc}",
            details={"plugin": PLUGIN, "reason": "certificate_unusable"},
            hint="Save the certificate from https://127.0.0.1:27124/obsidian-local-rest-api.crt as cert_file.",
        ) from exc


def pinned_context(der: bytes) -> ssl.SSLContext:
    """A context that accepts one certificate, `der`, and nothing else."""
    ctx = _strict_off(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
    ctx.check_hostname = False  # the pin is the identity (see the module docstring)
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(cadata=der)
    return ctx


async def presented_certificate(host: str, port: int, timeout_s: float) -> bytes:
    """The DER certificate the server at host:port presents. Only the handshake runs: no byte
    of a request is written, so reading the certificate unverified can leak nothing."""
    reader_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    reader_ctx.check_hostname = False
    reader_ctx.verify_mode = ssl.CERT_NONE  # read, then compared with the pin; never used for a request
    try:
        async with asyncio.timeout(timeout_s):
            _, writer = await asyncio.open_connection(host, port, ssl=reader_ctx, server_hostname=host)
    except (OSError, TimeoutError, ssl.SSLError) as exc:
        raise PluginUnreachable(
            f"nothing answers TLS at {host}:{port} ({type(exc).__name__}); is Obsidian running?",
            details={"plugin": PLUGIN, "reason": "timeout" if isinstance(exc, TimeoutError) else "connect_failed"},
            hint=UNREACHABLE_HINT,
        ) from exc
    try:
        ssl_object = writer.get_extra_info("ssl_object")
        der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
    finally:
        writer.close()
        try:
            async with asyncio.timeout(timeout_s):
                await writer.wait_closed()
        except (OSError, TimeoutError, ssl.SSLError):
            pass  # the certificate is read; how the connection ends does not matter
    if not der:
        raise PluginIncompatible(
            f"{host}:{port} presented no certificate", details={"plugin": PLUGIN, "reason": "certificate_mismatch"}
        )
    return bytes(der)


@dataclass
class Pinned:
    """The pinned trust of one bridge: checked once, re-checked when a handshake fails."""

    host: str
    port: int
    expected: str  # 64 lower-case hex digits
    timeout_s: float
    _ctx: ssl.SSLContext | None = None

    async def context(self) -> ssl.SSLContext:
        if self._ctx is None:
            der = await presented_certificate(self.host, self.port, self.timeout_s)
            found = fingerprint(der)
            if found != self.expected:
                raise PluginIncompatible(
                    f"the certificate at {self.host}:{self.port} is not the pinned one (SHA-256 {spaced(found)}); "
                    "nothing was sent to it",
                    details={
                        "plugin": PLUGIN,
                        "reason": "certificate_mismatch",
                        "expected_fingerprint": spaced(self.expected),
                        "presented_fingerprint": spaced(found),
                    },
                    hint="If the plugin made a new certificate, put its SHA-256 in [vaults.bridge] cert_fingerprint; "
                    "otherwise something else answers on that port.",
                )
            self._ctx = pinned_context(der)
        return self._ctx

    def forget(self) -> None:
        """A handshake failed with the pinned context: check the certificate again next time."""
        self._ctx = None
