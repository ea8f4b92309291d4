"""Notes as MCP resources: a paginated list, reads, a URI template and change subscriptions.

URIs are `vault://<vault id>/<percent-encoded vault path>`. Every list and read goes through the
same path resolution and read ACL as the tools. Subscribers (handshake-era `resources/subscribe`)
get `notifications/resources/updated` when a subscribed note changes — through vaultgate or on
disk (the file watcher publishes external edits on the same change bus); who hears of what, the
bound per connection and the release when a connection closes: `service.protocol.subscriptions`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError

from service.errors import VaultgateError
from service.protocol.access import VaultAccess
from service.protocol.subscriptions import BoundedListen, Subscriptions
from service.protocol.walked import Walked
from service.security.acl import check_path
from service.settings.policy import GovernorSettings
from service.tools.models import decode_cursor, page_of
from service.tools.named_files import not_a_note
from service.vault import offloop
from service.vault.events import FileChange
from service.vault.oserrors import storage_error
from service.vault.paths import VaultPath

if TYPE_CHECKING:
    from service.vault.vault import Vault

log = logging.getLogger(__name__)
SCHEME = "vault://"
PAGE = 200
TEMPLATE = "vault://{vault}/{path}"
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource


def uri_for(vault_id: str, rel: str) -> str:
    return f"{SCHEME}{vault_id}/{quote(rel, safe='/')}"


def parse_uri(uri: str) -> tuple[str, str]:
    if not uri.startswith(SCHEME) or "/" not in uri[len(SCHEME) :]:
        raise MCPError(types.INVALID_PARAMS, f"not a vaultgate resource URI: {uri!r}")
    vault_id, _, path = uri[len(SCHEME) :].partition("/")
    return vault_id, unquote(path)


class Resources:
    def __init__(self, access: VaultAccess, walked: Walked, governor: GovernorSettings | None = None) -> None:
        self.access = access
        # the longest note one read answers, as for read_note (`governor.max_response_bytes`)
        self.max_bytes = (governor or GovernorSettings()).max_response_bytes
        self.walked = walked  # the notes a caller may read, walked once for all the pages
        self.vaults = access.vaults
        self.guard = access.guard
        self.subscriptions = Subscriptions()  # handshake-era `resources/subscribe`, per connection
        # Protocol 2026-07-28: no standing stream; clients `subscriptions/listen` and the SDK's
        # handler fans our ResourceUpdated events out to the URIs each stream asked for.
        self.bus = InMemorySubscriptionBus()
        self.listen = BoundedListen(ListenHandler(self.bus))
        self._heard: dict[str, Any] = {}  # vault id -> the change bus listened to
        for vault in self.vaults.values():
            self.watch(vault)

    def watch(self, vault: Vault) -> None:
        """Tell subscribers of the vault's notes about their changes: every vault at the start,
        and one added at run time (`reload_vault`) when the composition root adds it."""
        if self._heard.get(vault.id) is not vault.bus:
            self._heard[vault.id] = vault.bus
            vault.bus.subscribe(self._changed_listener(vault))

    def _vault(self, ctx: ServerRequestContext[Any, Any], vault_id: str | None) -> tuple[Vault, Any]:
        principal, vault = self.access.caller(ctx, "resources", vault_id)
        return vault, principal

    def _resolve(self, ctx: ServerRequestContext[Any, Any], uri: str) -> tuple[Vault, VaultPath]:
        vault_id, path = parse_uri(uri)
        vault, principal = self._vault(ctx, vault_id)
        try:
            vp = vault.paths.resolve(path, op="read")
            check_path(self.guard, principal, vault, vp, "read")
        except VaultgateError as exc:
            raise MCPError(types.INVALID_PARAMS, f"{exc.code}: {exc.message}") from None
        return vault, vp

    async def list(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        vault, principal = self._vault(ctx, None)
        items = (await self.walked.entries(vault, principal)).notes  # one walk for all the pages
        cursor = params.cursor if params is not None else None
        try:
            offset = decode_cursor(cursor, v=vault.id)
        except VaultgateError:
            raise MCPError(types.INVALID_PARAMS, "invalid cursor") from None
        window, nxt = page_of(items, offset, PAGE, v=vault.id)
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=uri_for(vault.id, rel),
                    name=rel,
                    title=rel.rsplit("/", 1)[-1][:-3],
                    mime_type="text/markdown",
                    size=size,
                    description=self._unread(size),
                )
                for rel, size in window
            ],
            next_cursor=nxt,
        )

    def _unread(self, size: int) -> str | None:
        """A listed note over the limit of one read (`read` refuses it: `overflow`) says so, with
        its size (the Resource's `size`), so a client does not ask for what it cannot get."""
        if size <= self.max_bytes:
            return None
        return (
            f"{size} bytes, over the {self.max_bytes}-byte limit of one resources/read answer (refused as overflow): "
            "read_note reads it in parts (a line range or a heading), bundle_files in pages"
        )

    async def templates(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    name="note",
                    title="A note in a vault",
                    uri_template=TEMPLATE,
                    description="Any note by vault id and vault-relative path (e.g. vault://main/Projects/Plan.md).",
                    mime_type="text/markdown",
                )
            ]
        )

    async def read(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        vault, vp = self._resolve(ctx, str(params.uri))
        if not vp.rel.lower().endswith(".md"):  # an image, a canvas, a base: as read_note refuses them
            refusal = not_a_note(vp)
            data = {"uri": str(params.uri), "code": refusal.code, "kind": refusal.details["kind"]}
            raise MCPError(types.INVALID_PARAMS, f"{refusal.code}: {refusal.message}", data)
        try:
            # At most the limit (and one character) is read: a longer note is refused, not held whole.
            text = await offloop.sized(offloop.size_of(vp), vault.files.read_start, vp, self.max_bytes + 1)
        except VaultgateError as exc:
            raise MCPError(RESOURCE_NOT_FOUND, f"{exc.code}: {exc.message}", {"uri": str(params.uri)}) from None
        except OSError as exc:  # permissions, a read-only or failing disk: said, not a server bug
            error = storage_error(exc, vault.paths.root, writing=False)
            data = {"uri": str(params.uri), "code": error.code, **error.details}
            raise MCPError(types.INTERNAL_ERROR, f"{error.code}: {error.message}", data) from None
        if len(text) > self.max_bytes or len(text.encode("utf-8", "surrogatepass")) > self.max_bytes:
            size = max(offloop.size_of(vp), len(text.encode("utf-8", "surrogatepass")))
            data = {"uri": str(params.uri), "code": "overflow", "bytes": size, "limit": self.max_bytes}
            raise MCPError(
                types.INVALID_PARAMS,
                f"overflow: {vp.rel!r} is at least {size} bytes, over the {self.max_bytes}-byte limit of one answer; "
                "read_note reads it in parts (a line range or a heading), bundle_files in pages",
                data,
            )
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=str(params.uri), mime_type="text/markdown", text=text)]
        )

    async def subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        vault, vp = self._resolve(ctx, str(params.uri))
        self.subscriptions.add(ctx, uri_for(vault.id, vp.rel))
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        vault_id, path = parse_uri(str(params.uri))
        self.subscriptions.remove(ctx, uri_for(vault_id, path))
        return types.EmptyResult()

    def _changed_listener(self, vault: Vault) -> Any:
        async def changed(changes: Sequence[FileChange]) -> None:
            for change in changes:
                for rel in filter(None, (change.path, change.old_path)):
                    uri = uri_for(vault.id, rel)
                    try:
                        await self.bus.publish(ResourceUpdated(uri=uri))
                    except Exception:  # noqa: BLE001 - a listener failure must not fail a write
                        log.warning("subscriptions/listen publish failed", exc_info=True)
                    await self.subscriptions.notify(uri)

        return changed
