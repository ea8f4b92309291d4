"""The Obsidian Local REST API plugin, over HTTPS: the requests the bridge tools make.

Shapes follow the plugin's published OpenAPI (`docs/openapi.yaml` of
coddingtonbear/obsidian-local-rest-api) and its behaviour:

| call | request | answer |
|---|---|---|
| `server_info` | `GET /` (no key needed) | {status, manifest, versions: {obsidian, self}, service, authenticated} |
| `open_file` | `POST /open/{path}` (`?newLeaf=true`) | 200, empty body |
| `active_note` | `GET /active/`, Accept: NoteJson (+5 s) | {path, content, frontmatter, tags, stat}; 404: none open |
| `commands` | `GET /commands/` | {commands: [{id, name}]} |
| `execute` | `POST /commands/{id}/` | 204; 404: no such command; 500: the command threw |
| `companion_probe` | `GET /vaultgate/v1/probe/` (the companion) | {companion, plugins, routes}; 404: none |

NoteJson is `application/vnd.olrapi.note+json`; the companion is deploy/obsidian-plugin. Errors come
as `{message, errorCode}`. Each path segment is percent-encoded once. Every request carries
`Authorization: Bearer <key>`, the key read from the environment at the call; the key is never put
in an error, a result or a log line (an answer echoing it has it scrubbed: `answers`). A request is
bounded by `timeout_s` (connect included, the answer read to its end) and uses its own connection
(nothing to close at shutdown); no proxy from the environment is used. Failures raise the bridge
errors of `service.errors`: `plugin_unreachable` (retryable: nothing answers, a time-out, a 5xx; a
time-out or a broken connection of a request that acts in Obsidian is `MayHaveRun`, not retryable,
and a command that threw, the plugin's 500 to `POST /commands/{id}/`, is `plugin_incompatible` with
`reason: plugin_failed`), `plugin_incompatible` (the key is refused or missing, the certificate is
not the trusted one, an answer in another shape, a route the plugin lacks) and `plugin_missing` (the
companion routes are absent).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import anyio

from service.bridges.answers import MAX_VALUES, TooManyValues, clip, loads, many_values, scrubbed
from service.bridges.tls import PLUGIN, UNREACHABLE_HINT, Pinned, file_context
from service.errors import PluginIncompatible, PluginUnreachable, ValidationFailed, VaultgateError
from service.settings import BridgeSettings

NOTE_JSON = "application/vnd.olrapi.note+json"
COMPANION = "vaultgate-companion"
COMPANION_PREFIX = "/vaultgate/v1"
MAX_BODY = 64 * 1024 * 1024  # an answer larger than this is refused before it is parsed
# requests in flight per bridge, each buffering up to MAX_BODY (some 220 MB at its peak for a
# 60 MB note): more wait for a slot within their bound. Obsidian runs the plugin on one thread.
MAX_IN_FLIGHT = 4
# The plugin's NoteJson first waits this long for Obsidian's metadata of the file
# (`waitForFileCache(file, 5000)`, src/vaultOperations.ts), which never comes for a file Obsidian
# keeps none of (a canvas, a PDF, an image): `GET /active/` gets it on top of `timeout_s`.
METADATA_WAIT_S = 5.0
MAY_HAVE_RUN_HINT = "It may have run in Obsidian, in part: look there before sending it again."
# an answer the client cannot read: another program on the port, or a plugin of another version
BAD_ANSWER_HINT = "Check that [vaults.bridge] url is the Local REST API plugin's and that the plugin is up to date."


class MayHaveRun(PluginUnreachable):
    """A request that acts in Obsidian (runs a command, a template, a QuickAdd choice) got no answer
    within its bound: it may have reached the plugin and may still run (a prompt waiting for the
    person at Obsidian), so sending it again could run it twice. Not retryable."""

    retryable = False


def encode_path(rel: str) -> str:
    """A vault path as URL path segments, each percent-encoded exactly once."""
    return "/".join(quote(segment, safe="") for segment in rel.split("/"))


def _verify_failed(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _is_command(item: object) -> bool:
    """`{id, name}` with string values (`name` may be absent: the id stands in)."""
    return (
        isinstance(item, dict)
        and isinstance(item.get("id"), str)
        and bool(item["id"])
        and isinstance(item.get("name", ""), str)
    )


@dataclass(frozen=True)
class Answer:
    """An HTTP answer of the plugin, read whole (bounded by MAX_BODY)."""

    status_code: int
    content: bytes
    location: str = ""  # the `Content-Location` it names (the active file's path, plugin 3.x)


def _plugin_error(resp: Answer) -> tuple[str, int | None]:
    """The plugin's `{message, errorCode}`, or the start of whatever it answered."""
    try:
        body = loads(resp.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        code = body.get("errorCode")
        return clip(body["message"]), code if isinstance(code, int) else None
    return resp.content[:200].decode("utf-8", "replace"), None


class LocalRestApi:
    """One vault's client. Cheap to build; holds no connection between calls."""

    def __init__(self, settings: BridgeSettings, environ: Mapping[str, str] | None = None) -> None:
        self.settings = settings
        self.base_url = settings.url
        self._environ = environ if environ is not None else os.environ
        parts = urlsplit(settings.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 443
        self._pinned = (
            Pinned(host, port, settings.cert_fingerprint, settings.timeout_s) if settings.cert_fingerprint else None
        )
        self._file_ctx: ssl.SSLContext | None = None
        self._slots = anyio.Semaphore(MAX_IN_FLIGHT)

    # -- plumbing ------------------------------------------------------------------------------

    def _details(self, reason: str, **more: Any) -> dict[str, Any]:
        return {"plugin": PLUGIN, "reason": reason, "url": self.base_url, **more}

    def has_key(self) -> bool:
        return bool(self._environ.get(self.settings.api_key_env, "").strip())

    def _key(self) -> str:
        key = self._environ.get(self.settings.api_key_env, "").strip()
        if not key:
            raise PluginIncompatible(
                f"no API key for the Local REST API: the environment variable {self.settings.api_key_env} is empty",
                details=self._details("api_key_missing", api_key_env=self.settings.api_key_env),
                hint="Copy the key from Obsidian → Settings → Local REST API into that variable and restart.",
            )
        return key

    async def _verify(self) -> ssl.SSLContext | bool:
        if self._pinned is not None:
            return await self._pinned.context()
        if self.settings.cert_file is not None:
            if self._file_ctx is None:
                self._file_ctx = file_context(self.settings.cert_file)
            return self._file_ctx
        return True  # the system trust store

    async def send(
        self,
        method: str,
        path: str,
        *,
        accept: str = "application/json",
        params: Mapping[str, str] | None = None,
        json_body: Any = None,
        authenticated: bool = True,
        slack_s: float = 0.0,
        acts: bool = False,
    ) -> Answer:
        """One request; answers any HTTP status (the caller decides what a 404 means), raises
        the bridge errors for everything that is not an answer. `timeout_s` bounds the whole
        request (certificate check, connect, send, and the answer read to its end), not each read:
        a plugin that trickles its answer is `plugin_unreachable` (`reason: timeout`) too.
        `slack_s` is added to it for a route the plugin answers only after a wait of its own.
        `acts`: the request runs something in Obsidian, so a time-out after it may have been sent is
        `MayHaveRun` (not retryable), not a plain `plugin_unreachable`."""
        headers = {"Accept": accept}
        if authenticated:
            headers["Authorization"] = f"Bearer {self._key()}"
        bound = self.settings.timeout_s + slack_s
        sent = False  # a time-out waiting for a slot sent nothing
        try:
            with anyio.fail_after(bound):
                async with self._slots:
                    sent = True
                    return await self._exchange(method, path, headers, params, json_body, bound, acts)
        except TimeoutError as exc:
            raise self._timed_out(method, path, bound, acts and sent) from exc

    def _timed_out(self, method: str, path: str, bound: float, acts: bool) -> PluginUnreachable:
        message = f"Obsidian did not answer {method} {path} within {bound} s"
        if acts:
            return MayHaveRun(
                message + ": the request may have reached it and may still run",
                details=self._details("timeout", route=path, may_have_run=True),
                hint="It may be waiting for the person at Obsidian (a prompt); look there before sending it again.",
            )
        return PluginUnreachable(
            message, details=self._details("timeout", route=path), hint="Obsidian may be busy or closed; try again."
        )

    async def _exchange(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        params: Mapping[str, str] | None,
        json_body: Any,
        bound: float,
        acts: bool,
    ) -> Answer:
        import httpx2  # at the first request: a server that never calls out never loads it

        for attempt in (1, 2):
            try:
                verify = await self._verify()
            except PluginUnreachable as exc:  # the pinned certificate's check: nothing answered it
                exc.details |= {"url": self.base_url, "route": path}
                raise
            try:
                async with (
                    httpx2.AsyncClient(verify=verify, timeout=bound, trust_env=False, follow_redirects=False) as client,
                    client.stream(method, self.base_url + path, headers=headers, params=params, json=json_body) as resp,
                ):
                    body = bytearray()
                    where = scrubbed(unquote(resp.headers.get("content-location", "")).encode(), headers).decode()
                    async for chunk in resp.aiter_bytes():
                        body += chunk
                        if len(body) > MAX_BODY:  # the file it is about, when the plugin names it
                            raise PluginIncompatible(
                                f"the plugin's answer to {method} {path} passed {MAX_BODY} bytes",
                                details=self._details("answer_too_large", route=path)
                                | ({"content_location": where} if where else {}),
                            )
                    return Answer(resp.status_code, scrubbed(bytes(body), headers), where)
            except httpx2.TimeoutException as exc:  # a connect that timed out sent nothing
                raise self._timed_out(method, path, bound, acts and not isinstance(exc, httpx2.ConnectTimeout)) from exc
            except httpx2.HTTPError as exc:
                if acts and not isinstance(exc, httpx2.ConnectError | httpx2.UnsupportedProtocol):
                    raise self._cut(method, path, exc) from None  # connected: the request may have gone
                if _verify_failed(exc):
                    if self._pinned is not None and attempt == 1:
                        self._pinned.forget()  # the certificate changed since it was pinned: check it again
                        continue
                    raise PluginIncompatible(
                        f"the certificate at {self.base_url} is not the trusted one",
                        details=self._details("certificate_untrusted"),
                        hint="Set [vaults.bridge] cert_file (the certificate) or cert_fingerprint (its SHA-256).",
                    ) from None
                raise PluginUnreachable(
                    f"cannot reach the Local REST API at {self.base_url} ({type(exc).__name__}); is Obsidian running "
                    "with the plugin enabled?",
                    details=self._details("connect_failed", route=path),
                    hint=UNREACHABLE_HINT,
                ) from None
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _cut(self, method: str, path: str, exc: BaseException) -> MayHaveRun:
        """A request that acts in Obsidian whose connection failed after it was made (reset, closed
        mid-answer): like a time-out, the plugin may have run it, so it is not retryable."""
        return MayHaveRun(
            f"the connection to the Local REST API broke during {method} {path} ({type(exc).__name__}): "
            "the request may have reached Obsidian and run",
            details=self._details("connection_lost", route=path, may_have_run=True),
            hint=MAY_HAVE_RUN_HINT,
        )

    def failure(self, resp: Answer, route: str) -> VaultgateError:
        """The error for an answer no caller handled."""
        message, error_code = _plugin_error(resp)
        more: dict[str, Any] = {"route": route, "status": resp.status_code, "plugin_message": message}
        if error_code is not None:
            more["error_code"] = error_code
        if resp.status_code in (401, 403):
            return PluginIncompatible(
                f"the Local REST API refused the API key ({resp.status_code}: {message})",
                details=self._details("unauthorized", api_key_env=self.settings.api_key_env, **more),
                hint=f"Put the key shown in Obsidian → Settings → Local REST API into {self.settings.api_key_env}.",
            )
        if resp.status_code >= 500:
            return PluginUnreachable(
                f"Obsidian failed {route} ({resp.status_code}: {message})",
                details=self._details("plugin_error", **more),
                hint="The plugin failed in Obsidian: try again; if it keeps failing, its message is in Obsidian's "
                "developer console (Ctrl+Shift+I).",
            )
        if resp.status_code == 404:
            return PluginIncompatible(
                f"the Local REST API has no {route} ({message})",
                details=self._details("route_missing", **more),
                hint="Update the Local REST API plugin.",
            )
        return PluginIncompatible(
            f"the Local REST API refused {route} ({resp.status_code}: {message})",
            details=self._details("rejected", **more),
        )

    def read_json(self, resp: Answer, route: str) -> Any:
        if resp.status_code >= 300:
            raise self.failure(resp, route)
        try:
            return loads(resp.content)
        except TooManyValues as exc:
            raise PluginIncompatible(
                f"the answer to {route} holds {exc}",
                details=self._details("answer_too_large", route=route, limit=MAX_VALUES),
                hint=BAD_ANSWER_HINT,
            ) from None
        except ValueError as exc:
            raise PluginIncompatible(
                f"the answer to {route} is not JSON ({exc})"[:300],
                details=self._details("bad_answer", route=route),
                hint=BAD_ANSWER_HINT,
            ) from None

    # -- the calls -----------------------------------------------------------------------------

    async def server_info(self) -> dict[str, Any]:
        """`GET /`: the plugin's status and versions, and whether the key was accepted."""
        resp = await self.send("GET", "/", authenticated=self.has_key())
        body = self.read_json(resp, "/")
        if not isinstance(body, dict) or not isinstance(body.get("versions"), dict):
            raise PluginIncompatible(
                f"{self.base_url} does not answer as the Local REST API does",
                details=self._details("not_local_rest_api"),
            )
        return body

    async def open_file(self, rel: str, *, new_leaf: bool) -> None:
        route = "/open/" + encode_path(rel)
        resp = await self.send("POST", route, params={"newLeaf": "true"} if new_leaf else None)
        if resp.status_code >= 300:
            raise self.failure(resp, "/open/{path}")

    async def active_note(self) -> dict[str, Any] | None:
        """The active file as the plugin's NoteJson, or None when no file is open; given
        `METADATA_WAIT_S` more than `timeout_s` (a canvas or a PDF in focus is answered after it).
        A file whose NoteJson passes `MAX_BODY` (a large video or PDF, its bytes read as text) is
        its path only, `content` None, when the plugin names it (`Content-Location`, since 3.x)."""
        try:
            resp = await self.send("GET", "/active/", accept=NOTE_JSON, slack_s=METADATA_WAIT_S)
        except PluginIncompatible as exc:  # a file whose NoteJson (its bytes as text) passes MAX_BODY
            where = exc.details.get("content_location") if exc.details.get("reason") == "answer_too_large" else None
            if not where:
                raise
            return {"path": where, "content": None, "frontmatter": {}, "tags": [], "stat": None}
        if resp.status_code == 404:
            return None
        if resp.status_code < 300 and resp.location and many_values(resp.content):  # a CSV note's commas
            return {"path": resp.location, "content": None, "frontmatter": {}, "tags": [], "stat": None}
        body = self.read_json(resp, "/active/")
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("path"), str)
            or not isinstance(body.get("content"), str)
        ):
            raise PluginIncompatible(
                "the active note came in another shape than NoteJson",
                details=self._details("bad_answer", route="/active/"),
                hint=BAD_ANSWER_HINT,
            )
        return body

    async def commands(self) -> list[dict[str, str]]:
        body = self.read_json(await self.send("GET", "/commands/"), "/commands/")
        items = body.get("commands") if isinstance(body, dict) else None
        if not isinstance(items, list):
            raise PluginIncompatible(
                "the command list came in another shape",
                details=self._details("bad_answer", route="/commands/"),
                hint=BAD_ANSWER_HINT,
            )
        if not all(_is_command(item) for item in items):  # not "no commands": an incompatible plugin
            raise PluginIncompatible(
                "the command list holds an entry that is not {id, name}",
                details=self._details("bad_answer", route="/commands/"),
                hint=BAD_ANSWER_HINT,
            )
        return [{"id": item["id"], "name": item.get("name", item["id"])} for item in items]

    async def execute(self, command_id: str) -> None:
        resp = await self.send("POST", f"/commands/{quote(command_id, safe='')}/", acts=True)
        if resp.status_code == 404:
            message, _ = _plugin_error(resp)
            raise ValidationFailed(
                f"Obsidian has no command {command_id!r} ({message})",
                details={"field": "command_id", "reason": "unknown_command", "command_id": command_id},
                hint="list_commands lists the command ids of the running Obsidian.",
            )
        if resp.status_code >= 500:  # the command threw (the plugin's 500 with its message): it ran, in part
            message, _ = _plugin_error(resp)
            raise PluginIncompatible(
                f"Obsidian's command {command_id!r} failed ({resp.status_code}: {message})",
                details=self._details(
                    "plugin_failed", route="/commands/{id}/", status=resp.status_code, plugin_message=message
                ),
                hint="It may have done part of its work: look in Obsidian (its console) before running it again.",
            )
        if resp.status_code >= 300:
            raise self.failure(resp, "/commands/{id}/")

    async def companion_probe(self) -> dict[str, Any] | None:
        """The companion's probe, or None when its routes are not there."""
        route = f"{COMPANION_PREFIX}/probe/"
        resp = await self.send("GET", route)
        if resp.status_code == 404:
            return None
        body = self.read_json(resp, route)
        if not isinstance(body, dict) or not isinstance(body.get("companion"), dict):
            raise PluginIncompatible(
                "the companion's probe came in another shape",
                details=self._details("bad_answer", route=route),
                hint=BAD_ANSWER_HINT,
            )
        return body
