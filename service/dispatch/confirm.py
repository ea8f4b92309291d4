"""confirm: risky calls need a human.

A call needs confirmation when its tool is destructive, when one of its scopes has a floor
(`execute:command` and `execute:plugin` always; `confirmation.scope_floors` may add more, never
remove these), when `confirmation.tools` names it (config additions apply while
`confirmation.enabled`; nothing else depends on it), or when the tool's `confirm_when` hook
returns a preview for these particular arguments (overwriting non-empty content without a
matching etag, permanent deletes, cross-folder moves, non-dry-run link rewrites and tag
renames, bulk writes above a count), or when the vault's `write_mode` is `confirm` (every
mutating call; the acl layer notes it). A call that is a step of a plan a human approved as a
whole (`service.policy.approval`) proceeds as confirmed (`notes["confirmed"] = "plan"`). Else, in
this order:

1. an `elicit_token` minted by a human for exactly this vault + tool + args_hash, and for the
   preview this call has now (`Confirmations.consume`), is consumed (single use, atomic) and the
   call proceeds (`notes["confirmed"]`); a token whose preview changed asks again (step 3);
2. else, when the client can be asked (it declared `elicitation`), the human is asked through
   the client: in the older protocol era over SSE with an `elicitation/create` request; in
   2026-07-28 by answering `InputRequiredResult` (the client asks, then retries the same call
   with the answer and our `request_state`, an HMAC-sealed binding to this exact call and preview that
   expires with the confirmation TTL, holds a nonce of its own (each question is its own state)
   and is spent by the approved call: a replayed retry is asked again). Accept → proceed;
   decline/cancel → `forbidden` (details.reason "declined");
3. else the call answers `elicit_required` with `details.args_hash`, the tool, the vault, a
   preview of what would change (with every file it changes: `details.files` and
   `details.files_changed`, when the tool knows them from the arguments), the expiry, and how to mint a token
   (`vaultgate confirm ARGS_HASH PATH` or `POST /admin/confirm`); retry with `elicit_token`.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from service.dispatch.context import CallContext, ContextFor, Next, ToolResult
from service.errors import ElicitRequired, Forbidden
from service.policy import approval
from service.policy.confirmations import ChangePreview, Confirmations, preview_sha
from service.settings import ConfirmationSettings
from service.tools.models import PIPELINE_ARGS

if TYPE_CHECKING:
    from service.tools.spec import ToolSpec
    from service.vault.vault import Vault

log = logging.getLogger(__name__)
BUILTIN_FLOORS = frozenset({"execute:command", "execute:plugin"})
_INPUT_KEY = "vaultgate_confirm"
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean", "title": "Allow this change?", "default": False}},
    "required": ["confirm"],
}


MAX_ASKS = 3  # questions to a 2025-era client about one call whose preview keeps changing


class Confirm:
    name = "confirm"

    def __init__(
        self,
        context_for: ContextFor,
        cfg: ConfirmationSettings,
        store: Confirmations,
        *,
        json_response: bool,
        vaults: Mapping[str, Vault] | None = None,
    ) -> None:
        self.context_for = context_for  # the tool's `confirm_when` hook runs with a ToolContext
        self.vaults = vaults if vaults is not None else {}  # a vault in write_mode confirm asks for every change
        self.json_response = json_response  # no SSE stream: the client cannot be asked mid-call
        self.cfg = cfg
        self.store = store
        # `confirmation.enabled = false` switches off only what config added; the built-in floors,
        # destructive tools and the tools' own conditions always ask ("config may add floors, never
        # remove them").
        added = cfg.enabled
        self.floors = BUILTIN_FLOORS | (frozenset(cfg.scope_floors) if added else frozenset())
        self.extra_tools = frozenset(cfg.tools) if added else frozenset()
        self._secret = os.urandom(32)  # seals request_state; a restart simply asks again
        # request_state values already spent on an approved call (state -> expiry): an approval
        # is single use, like a token; replaying the retry asks again.
        self._spent: dict[str, int] = {}

    def may_ask(self, spec: ToolSpec) -> bool:
        """Whether a call of `spec` can need a human's answer here: the transports' fast paths
        leave such a call to the SDK's session, through which a client that can be asked is. A
        tool that runs other tools which may ask (`apply_finding`'s execute_plan) can too."""
        return (
            spec.confirm != "never"
            or spec.destructive
            or spec.forwards_destructive
            or spec.name in self.extra_tools
            or not self.floors.isdisjoint(spec.scopes)
            or (spec.mutating and any(v.config.write_mode == "confirm" for v in self.vaults.values()))
        )

    async def preview(self, call: CallContext) -> ChangePreview | None:
        """What a human must approve for this call, or None when it needs no confirmation. The
        tool's own `confirm_when` preview (with the files it changes) is preferred whenever the
        tool has one, also for a call that asks for another reason."""
        spec = call.spec
        assert spec is not None and call.args is not None and call.vault is not None
        found: str | ChangePreview | None = None
        if spec.confirm != "never" and spec.confirm_when is not None:
            found = await spec.confirm_when(self.context_for(call), call.args)
        if isinstance(found, str):
            found = ChangePreview(found)
        args = call.args

        def shown() -> str:  # the arguments without the pipeline's own (the token is not what is approved)
            return args.model_dump_json(exclude_none=True, exclude=set(PIPELINE_ARGS))

        def plain() -> str:  # written only for a call that asks (a read never does: ~3 us a call)
            return f"{spec.name} ({spec.title}) with {shown()}"

        floored = sorted(set(spec.scopes) & self.floors)
        if spec.confirm == "always" or spec.destructive or spec.name in self.extra_tools:
            return ChangePreview(plain()) if found is None else found
        if floored:
            needs = f"{spec.name} needs {', '.join(floored)}: {shown()}"
            return ChangePreview(needs) if found is None else ChangePreview(f"{needs}\n{found.summary}", found.files)
        if found is not None:
            return found
        if call.notes.get("write_mode") == "confirm":  # the vault asks for every change (acl layer)
            return ChangePreview(plain())
        return None

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        spec, args, vault = call.spec, call.args, call.vault
        assert spec is not None and args is not None and vault is not None
        preview = await self.preview(call)
        if preview is None:
            return await next(call)
        if approval.covers(vault.id, call.principal.subject) is not None:  # a step of an approved plan
            call.notes["confirmed"] = "plan"
            return await next(call)
        if args.elicit_token:
            spent = await self.store.consume(args.elicit_token, vault.id, spec.name, call.args_hash, preview.text())
            if spent == "spent":
                call.notes["confirmed"] = "token"
                return await next(call)
            reason = (
                "what this call would change is no longer what the token approved: confirm the new preview"
                if spent == "changed"
                else "the elicit_token is unknown, used, expired or minted for another call"
            )
            raise await self._required(call, preview, reason=reason)
        if self.cfg.use_elicitation:
            asked = await self._ask_modern(call, preview)
            if isinstance(asked, ToolResult):
                return asked
            if asked:
                call.notes["confirmed"] = "elicitation"
                return await next(call)
            for _ in range(MAX_ASKS):  # a 2025-era client: asked while the call waits
                if not await self._ask(call, preview):
                    break
                now = await self.preview(call)  # what it would change now, after the human's answer
                if now is None or now.text() == preview.text():
                    call.notes["confirmed"] = "elicitation"
                    return await next(call)
                preview = now  # changed while the human was deciding: ask about what it changes now
        raise await self._required(call, preview)

    # -- protocol 2026-07-28: InputRequiredResult ------------------------------------------

    def _state(self, call: CallContext, preview: ChangePreview, expires: int, nonce: str) -> str:
        """The seal of one input request: this call, this caller, what it was shown, the expiry,
        and a nonce of its own, so two questions about the same call within the same second are
        two states (else the second would be the first's spent state, and its answer, a decline
        too, would only be asked again)."""
        assert call.vault is not None
        shown = preview_sha(preview.text())
        body = f"{call.vault.id}|{call.tool}|{call.args_hash}|{call.principal.subject}|{shown}|{expires}|{nonce}"
        mac = hmac.new(self._secret, body.encode(), hashlib.sha256).hexdigest()
        return f"{expires}.{nonce}.{mac}"

    def _state_ok(self, call: CallContext, preview: ChangePreview, state: Any) -> bool:
        """Whether `state` seals this call as it would run now (a changed preview asks again)."""
        if not isinstance(state, str) or state in self._spent:
            return False
        expires_text, _, rest = state.partition(".")
        nonce, _, _mac = rest.partition(".")
        # the client's text: `isdigit` holds for '²' and `int` refuses over 4300 digits (a time has 10)
        if not (expires_text.isascii() and expires_text.isdigit()) or len(expires_text) > 12:
            return False
        if int(expires_text) < time.time() or not nonce:
            return False
        sealed = self._state(call, preview, int(expires_text), nonce)
        return hmac.compare_digest(state.encode(), sealed.encode())  # str: TypeError on non-ASCII

    def _spend(self, state: str) -> None:
        """Record an approval as used (no await between the check and this: atomic on the loop)."""
        now = time.time()
        if len(self._spent) > 1024:
            self._spent = {s: exp for s, exp in self._spent.items() if exp >= now}
        self._spent[state] = int(state.partition(".")[0])

    async def _ask_modern(self, call: CallContext, preview: ChangePreview) -> bool | ToolResult:
        """True when the client's answer to our earlier input request approves this call; a
        ToolResult carrying an InputRequiredResult when the client should ask now; False when
        this is not a 2026-07-28 client that can be asked. Raises on a declined answer."""
        session = getattr(call.request, "session", None)
        if session is None or getattr(session, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
            return False
        caps = getattr(session, "client_capabilities", None)
        if caps is None or getattr(caps, "elicitation", None) is None:
            return False
        state = call.notes.get("request_state")
        if state is not None and self._state_ok(call, preview, state):
            answer = (call.notes.get("input_responses") or {}).get(_INPUT_KEY)
            if isinstance(answer, types.ElicitResult):
                if answer.action == "accept" and (answer.content or {}).get("confirm") is True:
                    self._spend(state)
                    return True
                raise Forbidden(
                    "the change was not approved",
                    details={"reason": "declined", "action": answer.action, "tool": call.tool},
                    hint="Ask the human what to change, or call a non-destructive alternative.",
                )
        assert call.vault is not None
        expires = int(time.time()) + self.cfg.elicit_ttl_seconds
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=f"vaultgate: allow this change in vault {call.vault.id}?\n\n{preview.brief()}",
                requested_schema=_SCHEMA,
            )
        )
        pending = types.InputRequiredResult(
            input_requests={_INPUT_KEY: request}, request_state=self._state(call, preview, expires, os.urandom(8).hex())
        )
        call.notes["input_required"] = True
        call.notes["confirmation_trip"] = True  # counted here, not again by a facade call around it
        return ToolResult(structured=None, text="", input_required=pending)

    async def _ask(self, call: CallContext, preview: ChangePreview) -> bool:
        """Ask through the client when it can be asked; False when it cannot. Raises on decline."""
        request = call.request
        session = getattr(request, "session", None)
        if session is None or self.json_response:
            return False
        caps = getattr(session, "client_capabilities", None)
        if caps is None or getattr(caps, "elicitation", None) is None:
            return False
        if not getattr(session, "can_send_request", True):
            return False
        try:
            answer = await session.elicit_form(
                f"vaultgate: allow this change in vault {call.vault.id if call.vault else '?'}?\n\n{preview.brief()}",
                _SCHEMA,
                related_request_id=getattr(request, "request_id", None),
            )
        except Exception as exc:  # noqa: BLE001 - no back channel, or the client failed: fall back to tokens
            log.info("elicitation unavailable (%s); answering elicit_required", type(exc).__name__)
            return False
        content = answer.content or {}
        if answer.action == "accept" and content.get("confirm") is True:
            return True
        raise Forbidden(
            "the change was not approved",
            details={"reason": "declined", "action": answer.action, "tool": call.tool},
            hint="Ask the human what to change, or call a non-destructive alternative.",
        )

    async def _required(self, call: CallContext, preview: ChangePreview, reason: str | None = None) -> ElicitRequired:
        assert call.vault is not None and call.spec is not None
        call.notes["confirmation_trip"] = True  # counted here, not again by a facade call around it
        expires = await self.store.record_request(
            call.args_hash, call.vault.id, call.spec.name, preview.text(), call.principal.subject
        )
        details: dict[str, Any] = {
            "args_hash": call.args_hash,
            "tool": call.spec.name,
            "vault": call.vault.id,
            "preview": preview.text(),
            "expires_at": expires,
            "confirm_with": [f"vaultgate confirm {call.args_hash} <vault folder or config>", "POST /admin/confirm"],
        }
        if preview.files is not None:  # every file, as `vaultgate confirm` prints them
            details["files_changed"] = len(preview.files)
            details["files"] = list(preview.files)
        if reason is not None:
            details["reason"] = reason
        return ElicitRequired(
            "this change needs a human's confirmation",
            details=details,
            hint=f"Ask the human to run `vaultgate confirm {call.args_hash} <vault folder or config>` (the"
            " folder or config file the server was started with) and retry the same call with elicit_token"
            " set to the token it prints.",
        )
