"""The vaultgate companion's routes (deploy/obsidian-plugin), over the same Local REST API client.

| call | request | answer |
|---|---|---|
| `templater_templates` | `GET /vaultgate/v1/templater/templates/` | {folder, templates: [{path, name}]} |
| `templater_create` | `POST /vaultgate/v1/templater/create/` {template, folder?, filename?, open?} | {path, template} |
| `quickadd_choices` | `GET /vaultgate/v1/quickadd/choices/` | {choices: [{id, name, type, parent}]} |
| `quickadd_execute` | `POST /vaultgate/v1/quickadd/execute/` {choice, variables} | {choice, executed} |
| `makemd_spaces` | `GET /vaultgate/v1/makemd/spaces/` | {spaces: [{path, name, type}]} |
| `makemd_query` | `POST /vaultgate/v1/makemd/query/` {text?, type?, limit?} | {spaces, truncated} |

The companion's errors are the plugin's `{message, errorCode}` plus `error` (its stable code) and
`plugin`: `plugin_missing` (the community plugin is not enabled) → `plugin_missing` with
`details.plugin`; `plugin_incompatible` → `plugin_incompatible`; `template_not_found` →
`note_not_found`; `choice_not_found` and `bad_request` → `validation_error`; `plugin_failed` (the
plugin threw) → `plugin_incompatible` with `details.reason: plugin_failed`. Any other failure of a
route that acts (templater/create, quickadd/execute) that would be retryable (a 5xx) is
`MayHaveRun`: the route may have run the template or the choice before it failed. A route that is
not there at all (the plugin's own 404, without `error`) means the companion is not installed:
`plugin_missing` with `details.plugin: vaultgate-companion`.
"""

from __future__ import annotations

import json
from typing import Any

from service.bridges.answers import clip, loads
from service.bridges.rest_api import COMPANION, COMPANION_PREFIX, MAY_HAVE_RUN_HINT, Answer, LocalRestApi, MayHaveRun
from service.errors import NoteNotFound, PluginIncompatible, PluginMissing, ValidationFailed, VaultgateError

SPACE = ("path", "name", "type")  # what routes.ts's describeSpace writes of each space


def _body(resp: Answer) -> dict[str, Any]:
    try:
        found = loads(resp.content)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


class Companion:
    """The companion's routes on one vault's bridge."""

    def __init__(self, client: LocalRestApi) -> None:
        self.client = client

    def _error(self, resp: Answer, route: str) -> VaultgateError:
        body = _body(resp)
        code, message = body.get("error"), clip(str(body.get("message", "")))
        plugin = clip(body["plugin"]) if isinstance(body.get("plugin"), str) else None
        details: dict[str, Any] = {"route": route, "status": resp.status_code, "plugin_message": message}
        if isinstance(body.get("errorCode"), int):
            details["error_code"] = body["errorCode"]
        if code is None and resp.status_code == 404:
            return PluginMissing(
                "the vaultgate companion's routes are not there: the companion plugin is not installed or not enabled",
                details={**details, "plugin": COMPANION, "reason": "companion_missing"},
                hint="Install the companion from deploy/obsidian-plugin (docs/bridges.md) and enable it.",
            )
        if code == "plugin_missing":
            return PluginMissing(message, details={**details, "plugin": plugin, "reason": "not_enabled"})
        if code in ("plugin_incompatible", "plugin_failed"):
            return PluginIncompatible(message, details={**details, "plugin": plugin, "reason": code})
        if code == "template_not_found":
            return NoteNotFound(message, details={**details, "reason": code})
        if code in ("choice_not_found", "bad_request"):
            return ValidationFailed(message, details={**details, "reason": code})
        return self.client.failure(resp, route)

    async def _call(
        self, method: str, path: str, body: dict[str, Any] | None = None, *, acts: bool = False
    ) -> dict[str, Any]:
        route = COMPANION_PREFIX + path
        resp = await self.client.send(method, route, json_body=body, acts=acts)
        if resp.status_code >= 300:
            error = self._error(resp, route)
            if acts and error.retryable:  # a 5xx once it ran (a template's script, a macro): not again
                raise MayHaveRun(
                    error.message, details=error.details | {"may_have_run": True}, hint=MAY_HAVE_RUN_HINT
                ) from None
            raise error
        found = self.client.read_json(resp, route)
        if not isinstance(found, dict):
            raise PluginIncompatible(
                f"the companion's answer to {route} is not an object",
                details={"plugin": COMPANION, "reason": "bad_answer", "route": route},
            )
        return found

    def _list(self, found: dict[str, Any], key: str, route: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
        """The list `key` of an answer, each entry an object with string `fields` (as routes.ts
        always writes them): an entry in another shape is `bad_answer`, never left out unsaid (a
        dropped QuickAdd choice would read as `choice_not_found`, a dropped space as none)."""
        items = found.get(key)
        if not isinstance(items, list):
            raise PluginIncompatible(
                f"the companion's answer to {route} has no {key} list",
                details={"plugin": COMPANION, "reason": "bad_answer", "route": route},
            )
        for item in items:
            if not (isinstance(item, dict) and all(isinstance(item.get(f), str) for f in fields)):
                raise PluginIncompatible(
                    f"the companion's answer to {route} holds an entry that is not {{{', '.join(fields)}}} "
                    f"with string values: {json.dumps(item, ensure_ascii=False)[:100]}",
                    details={"plugin": COMPANION, "reason": "bad_answer", "route": route},
                    hint="Update the vaultgate companion plugin in Obsidian to this server's version.",
                )
        return items

    async def templater_templates(self) -> tuple[str, list[dict[str, Any]]]:
        found = await self._call("GET", "/templater/templates/")
        return str(found.get("folder", "")), self._list(found, "templates", "templater/templates/", ("path", "name"))

    async def templater_create(
        self, template: str, folder: str | None, filename: str | None, *, open_note: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"template": template, "open": open_note}
        if folder is not None:
            body["folder"] = folder
        if filename is not None:
            body["filename"] = filename
        return await self._call("POST", "/templater/create/", body, acts=True)

    async def quickadd_choices(self) -> list[dict[str, Any]]:
        return self._list(
            await self._call("GET", "/quickadd/choices/"), "choices", "quickadd/choices/", ("id", "name", "type")
        )

    async def quickadd_execute(self, choice: str, variables: dict[str, str]) -> None:
        await self._call("POST", "/quickadd/execute/", {"choice": choice, "variables": variables}, acts=True)

    async def makemd_spaces(self) -> list[dict[str, Any]]:
        return self._list(await self._call("GET", "/makemd/spaces/"), "spaces", "makemd/spaces/", SPACE)

    async def makemd_query(self, text: str | None, type_: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        body: dict[str, Any] = {"limit": limit}
        if text is not None:
            body["text"] = text
        if type_ is not None:
            body["type"] = type_
        found = await self._call("POST", "/makemd/query/", body)
        return self._list(found, "spaces", "makemd/query/", SPACE), bool(found.get("truncated"))
