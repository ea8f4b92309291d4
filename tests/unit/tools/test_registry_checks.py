"""The registry refuses inconsistent tool declarations at build time."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import Field

from service.tools.models import ToolInput, ToolOutput
from service.tools.registry import Registry, RegistryError
from service.tools.spec import ToolSpec


class EchoIn(ToolInput):
    text: str = Field(description="What to echo.")


class UndocumentedIn(ToolInput):
    text: str


class EchoOut(ToolOutput):
    text: str = Field(description="The echo.")


async def _echo(ctx: Any, args: EchoIn) -> EchoOut:
    return EchoOut(text=args.text)


async def _never(ctx: Any, args: Any) -> str | None:
    return None


def _spec(**overrides: Any) -> ToolSpec:
    fields: dict[str, Any] = {
        "name": "echo",
        "domain": "test",
        "title": "Echo",
        "description": "Echo the text back.",
        "input_model": EchoIn,
        "output_model": EchoOut,
        "handler": _echo,
    }
    fields.update(overrides)
    return ToolSpec(**fields)


def test_a_consistent_declaration_builds() -> None:
    registry = Registry([_spec(), _spec(name="echo2")])
    assert registry.names() == ["echo", "echo2"]


def test_duplicate_tool_name_raises_at_build() -> None:
    with pytest.raises(RegistryError, match="duplicate tool name 'echo'"):
        Registry([_spec(), _spec(description="Another echo.")])


def test_destructive_tool_without_a_confirmation_policy_raises() -> None:
    writer = {"mutating": True, "scopes": ("write:vault",), "scope_class": "write"}
    with pytest.raises(RegistryError, match="destructive tool without a confirmation policy"):
        Registry([_spec(destructive=True, confirm="never", **writer)])
    Registry([_spec(destructive=True, confirm="always", **writer)])  # the same tool, declared properly


def test_conditional_confirmation_without_confirm_when_raises() -> None:
    writer = {"mutating": True, "scopes": ("write:vault",), "scope_class": "write"}
    with pytest.raises(RegistryError, match="conditional confirmation without confirm_when"):
        Registry([_spec(confirm="conditional", **writer)])
    Registry([_spec(confirm="conditional", confirm_when=_never, **writer)])


@pytest.mark.parametrize("scope", ["write:vault", "delete:vault", "write:vault/Inbox/**", "execute:command"])
def test_read_only_tool_with_a_write_scope_raises(scope: str) -> None:
    with pytest.raises(RegistryError, match="read-only tool requires a write scope"):
        Registry([_spec(scopes=(scope,))])


@pytest.mark.parametrize("scope_class", ["write", "delete", "bulk"])
def test_read_only_tool_in_a_writing_scope_class_raises(scope_class: str) -> None:
    with pytest.raises(RegistryError, match="read-only tool in scope class"):
        Registry([_spec(scope_class=scope_class)])


@pytest.mark.parametrize(("field", "value"), [("description", ""), ("description", "   "), ("title", "")])
def test_missing_title_or_description_raises(field: str, value: str) -> None:
    with pytest.raises(RegistryError, match="missing title or description"):
        Registry([_spec(**{field: value})])


def test_undocumented_input_field_raises() -> None:
    with pytest.raises(RegistryError, match="input field 'text' has no description"):
        Registry([_spec(input_model=UndocumentedIn)])


def test_a_failed_check_names_the_tool_and_registers_nothing() -> None:
    registry = Registry()
    with pytest.raises(RegistryError, match="tool 'broken'"):
        registry.add(_spec(name="broken", description=""))
    assert len(registry) == 0 and registry.get("broken") is None


def test_destructive_hint_is_derived_from_what_the_tool_may_do() -> None:
    writer = {"mutating": True, "scopes": ("write:vault",), "scope_class": "write"}
    additive = _spec(**writer).to_mcp().annotations
    assert additive is not None and additive.destructive_hint is False and additive.read_only_hint is False
    conditional = _spec(confirm="conditional", confirm_when=_never, **writer).to_mcp().annotations
    assert conditional is not None and conditional.destructive_hint is True
    deleting = _spec(mutating=True, scopes=("delete:vault",), scope_class="delete").to_mcp().annotations
    assert deleting is not None and deleting.destructive_hint is True
    reader = _spec(idempotent=False).to_mcp().annotations
    assert reader is not None and reader.read_only_hint is True and reader.destructive_hint is None
    assert reader.idempotent_hint is True
