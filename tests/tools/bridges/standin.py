"""A stand-in for Obsidian's Local REST API plugin (and the vaultgate companion's probe route),
served over real HTTPS on loopback with a self-signed certificate made here.

It follows the plugin's published OpenAPI (`docs/openapi.yaml` of
coddingtonbear/obsidian-local-rest-api) and its real behaviour, not vaultgate's client:
`GET /` answers without a key ({status, manifest, versions: {obsidian, self}, service,
authenticated}); every other route wants `Authorization: Bearer <key>` and answers 401 with the
plugin's `{message, errorCode}` otherwise; routes end in `/`; `GET /active/` gives NoteJson for
`Accept: application/vnd.olrapi.note+json` and 404 when no file is open; `POST /open/{path}`
answers 200 with an empty body; `GET /commands/` lists `{commands: [{id, name}]}`;
`POST /commands/{id}/` answers 204 (also for a command whose check refuses it: `refusing`), or
404 for an unknown id. The companion's
`GET /vaultgate/v1/probe/` has the shape deploy/obsidian-plugin/src/routes.ts gives
({companion, plugins, routes}), and so have its Templater, QuickAdd and make.md routes (their
errors `{message, errorCode, error, plugin}`); without the companion the plugin answers its own 404.

Every request is recorded (method, raw path, query, whether a key came), so tests can assert
what was sent, and that nothing was. `hold` makes the plugin never answer (until the stand-in
stops), for time-outs.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import ipaddress
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

NOTE_JSON = "application/vnd.olrapi.note+json"
KEY = "olrapi-test-key-6f1d2c9e8b7a"


@dataclass
class SelfSigned:
    cert_file: Path
    key_file: Path
    der: bytes

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(self.der).hexdigest()


def make_cert(folder: Path, name: str = "obsidian") -> SelfSigned:
    """A self-signed certificate for 127.0.0.1 and localhost, as the plugin makes its own."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Obsidian Local REST API ({name})")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    cert_file, key_file = folder / f"{name}.crt", folder / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return SelfSigned(cert_file, key_file, cert.public_bytes(serialization.Encoding.DER))


@dataclass
class Sent:
    method: str
    raw_path: str
    query: str
    authorization: str | None


@dataclass
class Obsidian:
    """What the running Obsidian holds, and what it was asked."""

    key: str = KEY
    active: dict[str, Any] | None = None
    commands: list[dict[str, str]] = field(
        default_factory=lambda: [
            {"id": "editor:save-file", "name": "Save current file"},
            {"id": "graph:open", "name": "Graph view: Open graph view"},
            {"id": "app:delete-file", "name": "Delete current file"},
        ]
    )
    companion: bool = True
    throwing: set[str] = field(default_factory=set)  # command ids whose callback throws when run
    # command ids whose check refuses them where the focus is (an editor command with no note open):
    # `executeCommandById` returns false and does nothing, and `commandPost` answers 204 all the same
    refusing: set[str] = field(default_factory=set)
    # the community plugins the companion reaches (None: not enabled), as routes.ts reads them
    templates: list[str] | None = field(default_factory=lambda: ["Templates/Daily.md", "Templates/Meeting.md"])
    choices: list[dict[str, Any]] | None = field(
        default_factory=lambda: [
            {"id": "c1", "name": "Log", "type": "Capture", "parent": None},
            {"id": "c2", "name": "Tools", "type": "Multi", "parent": None},
            {"id": "c3", "name": "New project", "type": "Template", "parent": "Tools"},
        ]
    )
    spaces: list[dict[str, str]] | None = field(
        default_factory=lambda: [
            {"path": "Projects", "name": "Projects", "type": "folder"},
            {"path": "Private", "name": "Private", "type": "folder"},
            {"path": "spaces://#idea", "name": "idea", "type": "tag"},
        ]
    )
    # Obsidian's "Default location for new notes" (`vault.getConfig("newFileLocation")`: root,
    # current, folder) and its folder, which Templater's create_new_note_from_template uses when
    # it is given no folder, or an empty one (`if (!folder)`)
    # How long the plugin's NoteJson waits for Obsidian's metadata of a file that has none (a
    # canvas, a PDF, an image: Obsidian caches metadata for Markdown files only):
    # `waitForFileCache(file, timeoutMs = 5000)` in src/vaultOperations.ts
    metadata_wait_s: float = 5.0
    # How long a QuickAdd choice runs before the route answers: QuickAdd's executeChoice awaits its
    # prompts ({{VALUE}} without a value, "ask for file name"), which wait for the person at Obsidian
    quickadd_prompt_s: float = 0.0
    new_file_location: str = "root"
    new_file_folder: str = ""
    # The vault's folder, when Templater's notes are to be made there as Obsidian makes them
    # (`vault.getAvailablePath`: a name taken gets ' 1', ' 2', ...; the folder made when missing).
    vault_root: Path | None = None
    created: list[dict[str, Any]] = field(default_factory=list)
    quickadd_runs: list[dict[str, Any]] = field(default_factory=list)
    hold: bool = False
    sent: list[Sent] = field(default_factory=list)
    executed: list[str] = field(default_factory=list)
    opened: list[tuple[str, str]] = field(default_factory=list)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/", self.root, methods=["GET"]),
                Route("/active/", self.get_active, methods=["GET"]),
                Route("/open/{filename:path}", self.open_file, methods=["POST"]),
                Route("/commands/", self.list_commands, methods=["GET"]),
                Route("/commands/{command_id}/", self.execute, methods=["POST"]),
                Route("/vaultgate/v1/probe/", self.probe, methods=["GET"]),
                Route("/vaultgate/v1/templater/templates/", self.companion_route, methods=["GET"]),
                Route("/vaultgate/v1/templater/create/", self.companion_route, methods=["POST"]),
                Route("/vaultgate/v1/quickadd/choices/", self.companion_route, methods=["GET"]),
                Route("/vaultgate/v1/quickadd/execute/", self.companion_route, methods=["POST"]),
                Route("/vaultgate/v1/makemd/spaces/", self.companion_route, methods=["GET"]),
                Route("/vaultgate/v1/makemd/query/", self.companion_route, methods=["POST"]),
            ]
        )

    async def _seen(self, request: Request) -> Response | None:
        """Record the request; the plugin's 401 when the key is wrong (None: go on)."""
        raw = request.scope.get("raw_path", b"").decode("ascii")
        auth = request.headers.get("authorization")
        self.sent.append(Sent(request.method, raw, request.url.query, auth))
        if self.hold:
            await self.released.wait()  # released when the stand-in stops
        if request.url.path != "/" and auth != f"Bearer {self.key}":
            return JSONResponse(
                {
                    "message": "Authorization required.  Find your API Key in the 'Local REST API' section.",
                    "errorCode": 40101,
                },
                status_code=401,
            )
        return None

    async def root(self, request: Request) -> Response:
        await self._seen(request)
        auth = request.headers.get("authorization")
        return JSONResponse(
            {
                "status": "OK",
                "manifest": {"id": "obsidian-local-rest-api", "name": "Local REST API", "version": "3.2.0"},
                "versions": {"obsidian": "1.8.10", "self": "3.2.0"},
                "service": "Obsidian Local REST API",
                "authenticated": auth == f"Bearer {self.key}",
            }
        )

    async def get_active(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        if self.active is None:
            return JSONResponse({"message": "Not Found", "errorCode": 40400}, status_code=404)
        if request.headers.get("accept") == NOTE_JSON:
            if not self.active["path"].endswith(".md"):
                await asyncio.sleep(self.metadata_wait_s)  # no metadata will come: the plugin's wait runs out
            where = {"Content-Location": quote(self.active["path"], safe="/")}  # activeFileGet: encodeURI(file.path)
            return JSONResponse(self.active, media_type=NOTE_JSON, headers=where)
        return Response(self.active["content"], media_type="text/markdown")

    async def open_file(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        self.opened.append((request.path_params["filename"], request.url.query))
        return Response(b"", status_code=200)

    async def list_commands(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        return JSONResponse({"commands": self.commands})

    async def execute(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        command_id = request.path_params["command_id"]
        if command_id not in {c["id"] for c in self.commands}:
            return JSONResponse(
                {"message": "The command you specified does not exist.", "errorCode": 40400}, status_code=404
            )
        if command_id in self.refusing:
            return Response(status_code=204)  # commandPost ignores executeCommandById's false
        self.executed.append(command_id)
        if command_id in self.throwing:  # commandPost: executeCommand threw, its message in the plugin's 500
            return JSONResponse({"message": "Cannot read properties of null", "errorCode": 50000}, status_code=500)
        return Response(status_code=204)

    async def probe(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        if not self.companion:
            return JSONResponse({"message": "Not Found", "errorCode": 40400}, status_code=404)
        prefix = "/vaultgate/v1"
        return JSONResponse(
            {
                "companion": {"id": "vaultgate-companion", "version": "0.1.0", "apiVersion": 1},
                "plugins": {
                    "templater-obsidian": {"installed": True, "version": "2.11.1"},
                    "quickadd": {"installed": False, "version": None},
                    "make-md": {"installed": False, "version": None},
                },
                "routes": [f"get {prefix}/probe/", f"get {prefix}/templater/templates/"],
            }
        )

    async def companion_route(self, request: Request) -> Response:
        """The companion's routes, with routes.ts's answers and errors ({message, errorCode, error, plugin})."""
        if (refused := await self._seen(request)) is not None:
            return refused
        if not self.companion:
            return JSONResponse({"message": "Not Found", "errorCode": 40400}, status_code=404)
        body = await request.json() if request.method == "POST" else {}
        route = request.url.path.removeprefix("/vaultgate/v1/")

        def missing(plugin: str) -> Response:
            message = f"{plugin} is not installed or not enabled"
            payload = {"message": message, "errorCode": 40460, "error": "plugin_missing", "plugin": plugin}
            return JSONResponse(payload, status_code=404)

        if route.startswith("templater/"):
            if self.templates is None:
                return missing("templater-obsidian")
            if route == "templater/templates/":
                items = [{"path": p, "name": p.removeprefix("Templates/").removesuffix(".md")} for p in self.templates]
                return JSONResponse({"folder": "Templates", "templates": items})
            if body.get("template") not in self.templates:
                payload = {"message": "no template file", "errorCode": 40461, "error": "template_not_found"}
                return JSONResponse(payload, status_code=404)
            self.created.append(body)
            return JSONResponse({"path": self.templater_path(body), "template": body["template"]})
        if route.startswith("quickadd/"):
            if self.choices is None:
                return missing("quickadd")
            if route == "quickadd/choices/":
                return JSONResponse({"choices": self.choices})
            runnable = {c["name"] for c in self.choices if c["type"] != "Multi"}
            if body.get("choice") not in runnable:
                payload = {"message": "no QuickAdd choice", "errorCode": 40462, "error": "choice_not_found"}
                return JSONResponse(payload, status_code=404)
            self.quickadd_runs.append(body)
            await asyncio.sleep(self.quickadd_prompt_s)  # a prompt waiting in Obsidian
            return JSONResponse({"choice": body["choice"], "executed": True})
        if self.spaces is None:
            return missing("make-md")
        if route == "makemd/spaces/":
            return JSONResponse({"spaces": self.spaces})
        text, limit = str(body.get("text", "")).lower(), int(body.get("limit", 100))
        found = [
            sp
            for sp in self.spaces
            if (not text or text in sp["name"].lower() or text in sp["path"].lower())
            and body.get("type") in (None, sp["type"])
        ]
        return JSONResponse({"spaces": found[:limit], "truncated": len(found) > limit})

    def templater_path(self, body: dict[str, Any]) -> str:
        """Where Templater's create_new_note_from_template(template, folder, filename) puts the
        note (src/core/Templater.ts): a folder that is falsy in JavaScript (absent, null, "") is
        replaced by Obsidian's default location for new notes; then
        `normalizePath(`${folder}/${filename || "Untitled"}`)` (slashes collapsed, none at either
        end) with the template's extension."""
        folder = body.get("folder")
        if not folder:
            if self.new_file_location == "current" and self.active is not None:
                folder = self.active["path"].rpartition("/")[0]
            elif self.new_file_location == "folder":
                folder = self.new_file_folder
        joined = f"{folder or ''}/{body.get('filename') or 'Untitled'}"
        stem = "/".join(part for part in joined.split("/") if part)
        if self.vault_root is None:
            return stem + ".md"
        n, path = 0, stem + ".md"
        while (self.vault_root / path).exists():  # getAvailablePath
            n += 1
            path = f"{stem} {n}.md"
        made = self.vault_root / path
        made.parent.mkdir(parents=True, exist_ok=True)
        made.write_text((self.vault_root / str(body["template"])).read_text(encoding="utf-8"), encoding="utf-8")
        return path


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Any:
        yield  # a server inside the tests' loop installs no signal handlers

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.ready.set()


@contextlib.asynccontextmanager
async def serving(obsidian: Obsidian, cert: SelfSigned) -> AsyncIterator[str]:
    """The stand-in on https://127.0.0.1:<free port>; yields its URL."""
    config = uvicorn.Config(
        obsidian.app(),
        host="127.0.0.1",
        port=0,
        ssl_certfile=str(cert.cert_file),
        ssl_keyfile=str(cert.key_file),
        log_level="warning",
        lifespan="off",
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(30):
            await server.ready.wait()
        assert server.started, "the stand-in did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"https://127.0.0.1:{port}"
    finally:
        obsidian.released.set()
        server.should_exit = True
        async with asyncio.timeout(30):
            await task


def closed_port() -> int:
    """A loopback port nothing listens on (Obsidian closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
