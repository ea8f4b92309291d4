"""Each foundation layer alone, with a fake `next`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from service.dispatch.args_hash import ArgsHash, args_hash
from service.dispatch.context import CallContext, ToolResult
from service.dispatch.governor import Governor
from service.dispatch.lookup import Lookup
from service.dispatch.resolve_vault import ResolveVault
from service.dispatch.translate import Translate
from service.dispatch.validate import Validate
from service.errors import Forbidden, NoteNotFound, Overflow, ToolNotFound, ValidationFailed, VaultNotFound
from service.settings import GovernorSettings, VaultConfig, WriteSettings
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.registry import Registry
from service.tools.spec import ToolSpec
from service.types import Principal
from service.vault.vault import Vault


class EchoIn(ToolInput):
    text: str = Field(description="Text to echo.")


class EchoOut(ToolOutput):
    text: str = Field(description="The echoed text.")


async def _echo(ctx: ToolContext, args: EchoIn) -> EchoOut:
    return EchoOut(text=args.text)


ECHO = ToolSpec(
    name="echo",
    domain="test",
    title="Echo",
    description="Echo text.",
    input_model=EchoIn,
    output_model=EchoOut,
    handler=_echo,
)


def _call(tool: str = "echo", **args: Any) -> CallContext:
    return CallContext(tool=tool, raw_args=args, principal=Principal.local(), transport="inproc")


async def _ok(call: CallContext) -> ToolResult:
    return ToolResult(structured={"text": "x" * 10}, text="x" * 10)


async def test_translate_turns_typed_errors_into_structured_results() -> None:
    async def boom(call: CallContext) -> ToolResult:
        raise NoteNotFound("missing", details={"path": "a.md"})

    result = await Translate()(_call(), boom)
    assert result.is_error and result.structured is not None
    assert result.structured["error"]["code"] == "note_not_found"
    assert result.structured["error"]["details"] == {"path": "a.md"}


async def test_translate_hides_unknown_exceptions_behind_a_correlation_id() -> None:
    async def boom(call: CallContext) -> ToolResult:
        raise RuntimeError("secret /home/user/path")

    call = _call()
    result = await Translate()(call, boom)
    assert result.structured is not None
    error = result.structured["error"]
    assert error["code"] == "internal_error"
    assert error["details"] == {"correlation_id": call.correlation_id}
    assert "secret" not in result.text and "/home" not in result.text


async def test_governor_passes_small_results_and_records_their_size() -> None:
    result = await Governor(GovernorSettings(max_response_bytes=1024))(_call(), _ok)
    assert not result.is_error and result.size > 0


async def test_governor_refuses_results_over_the_byte_budget() -> None:
    async def big(call: CallContext) -> ToolResult:
        return ToolResult(structured={"text": "x" * 5000}, text="x" * 5000)

    with pytest.raises(Overflow) as info:
        await Governor(GovernorSettings(max_response_bytes=1024))(_call(), big)
    assert info.value.details["limit"] == 1024 and info.value.details["bytes"] > 1024
    assert info.value.hint


async def test_lookup_finds_the_spec_and_rejects_unknown_and_disabled_tools() -> None:
    registry = Registry([ECHO])
    call = _call()
    await Lookup(registry)(call, _ok)
    assert call.spec is ECHO
    with pytest.raises(ToolNotFound):
        await Lookup(registry)(_call("nope"), _ok)
    with pytest.raises(ToolNotFound):
        await Lookup(registry, lambda spec: False)(_call(), _ok)


def test_args_hash_ignores_pipeline_arguments_and_key_order() -> None:
    a = args_hash("echo", {"text": "hi", "vault": "main"})
    b = args_hash("echo", {"vault": "main", "text": "hi", "idempotency_key": "k", "elicit_token": "t"})
    assert a == b and len(a) == 32
    assert args_hash("echo", {"text": "other"}) != a
    assert args_hash("other", {"text": "hi", "vault": "main"}) != a


async def test_args_hash_layer_sets_the_hash_once() -> None:
    call = _call(text="hi")
    await ArgsHash()(call, _ok)
    assert call.args_hash == args_hash("echo", {"text": "hi"})


async def test_validate_reports_every_field_issue() -> None:
    call = _call(text=5, extra="x")
    call.spec = ECHO
    with pytest.raises(ValidationFailed) as info:
        await Validate()(call, _ok)
    fields = {issue["field"] for issue in info.value.details["issues"]}
    assert {"text", "extra"} <= fields


async def test_resolve_vault_uses_argument_then_default_and_enforces_binding(tmp_path: Path) -> None:
    vaults = {}
    for vid in ("a", "b"):
        (tmp_path / vid).mkdir()
        vaults[vid] = Vault.open(VaultConfig(id=vid, path=tmp_path / vid), WriteSettings())
    layer = ResolveVault(vaults, "b")

    call = _call(text="x")
    call.args = EchoIn(text="x")
    await layer(call, _ok)
    assert call.vault is vaults["b"]

    call = _call(text="x", vault="a")
    call.args = EchoIn(text="x", vault="a")
    await layer(call, _ok)
    assert call.vault is vaults["a"]

    call = _call(text="x", vault="zzz")
    call.args = EchoIn(text="x", vault="zzz")
    with pytest.raises(VaultNotFound):
        await layer(call, _ok)

    bound = CallContext(
        tool="echo", raw_args={}, principal=Principal("agent", frozenset({"read:vault"}), vault="a"), transport="http"
    )
    bound.args = EchoIn(text="x", vault="b")
    with pytest.raises(Forbidden):
        await layer(bound, _ok)
