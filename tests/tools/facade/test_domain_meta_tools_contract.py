"""The domain meta-tools (facade mode `domain`): the inner tool's error is the meta-tool's error,
an operation of another domain is a validation_error, and sessions run through `sessions`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from service.types import Principal
from tests.conftest import Harness, started

READER = Principal(subject="reader", scopes=frozenset({"read:vault"}), authenticated=True)


@pytest.fixture
async def domains(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(), tool_facade={"mode": "domain"}) as harness:
        await harness.indexed()
        yield harness


@pytest.mark.covers("sessions", "success")
@pytest.mark.covers("sessions", "failure")
async def test_sessions_meta_tool_starts_and_ends_a_session(domains: Harness) -> None:
    started_ = await domains.ok("sessions", operation="start_session", arguments={"name": "contract"})
    assert started_["tool"] == "start_session" and started_["result"]["session_id"]
    ended = await domains.ok("sessions", operation="end_session", arguments={})
    assert ended["tool"] == "end_session"
    error = await domains.err("sessions", "not_found", operation="end_session", arguments={})
    assert error["details"]["session_id"] is None


@pytest.mark.covers("graph", "failure")
@pytest.mark.covers("properties", "failure")
@pytest.mark.covers("index", "failure")
@pytest.mark.covers("search", "failure")
@pytest.mark.covers("bundles", "failure")
async def test_domain_meta_tools_answer_the_inner_tools_error(domains: Harness) -> None:
    cases: list[tuple[str, str, dict[str, Any], str]] = [
        ("graph", "get_backlinks", {"path": "Nope"}, "note_not_found"),
        ("properties", "get_properties", {"path": "Nope"}, "note_not_found"),
        ("index", "index_status", {"vault": "nope"}, "vault_not_found"),
        ("search", "search_regex", {"pattern": "("}, "query_syntax_error"),
        ("bundles", "bundle_folder", {"folder": "Nope"}, "note_not_found"),
    ]
    for meta, operation, arguments, code in cases:
        await domains.err(meta, code, operation=operation, arguments=arguments)


@pytest.mark.covers("search", "failure")
async def test_an_operation_of_another_domain_is_a_validation_error(domains: Harness) -> None:
    error = await domains.err("search", "validation_error", operation="read_note", arguments={"path": "Welcome"})
    assert error["details"]["issues"][0]["field"] == "operation"


@pytest.mark.covers("admin", "failure")
async def test_admin_meta_tool_keeps_the_inner_tools_scope(domains: Harness) -> None:
    domains.principal = READER
    error = await domains.err("admin", "forbidden", operation="reload_vault", arguments={})
    assert error["details"]["tool"] == "reload_vault" and error["details"]["required"] == ["admin"]
