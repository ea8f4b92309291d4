"""`idempotency_key` and `elicit_token` in the request's `_meta` (`vaultgate/idempotency_key`,
`vaultgate/elicit_token`), through the whole dispatch chain: the same effect as the arguments,
conflicts and bad values are validation errors that change nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.dispatch.context import ToolResult
from service.tools.models import META_KEYS
from tests.conftest import Harness, started

IDEM = META_KEYS["idempotency_key"]
TOKEN = META_KEYS["elicit_token"]


async def call(vg: Harness, tool: str, meta: dict[str, Any], **args: Any) -> ToolResult:
    return await vg.app.dispatcher.call(tool, args, principal=vg.principal, meta=meta)


def test_the_meta_keys_are_namespaced() -> None:
    assert IDEM == "vaultgate/idempotency_key" and TOKEN == "vaultgate/elicit_token"


@pytest.mark.covers("append_note", "success")
async def test_an_idempotency_key_in_meta_replays_the_first_result(vg: Harness) -> None:
    first = await call(vg, "append_note", {IDEM: "k-1"}, path="Welcome", content="once\n")
    again = await call(vg, "append_note", {IDEM: "k-1"}, path="Welcome", content="once\n")
    assert not first.is_error and not again.is_error
    assert again.structured == first.structured
    assert vg.read("Welcome.md").count("once") == 1
    # the key is the same key whichever way it came: the argument form replays it too
    by_argument = await vg.call("append_note", path="Welcome", content="once\n", idempotency_key="k-1")
    assert by_argument.structured == first.structured and vg.read("Welcome.md").count("once") == 1
    # and the same value in both places is one key
    both = await call(vg, "append_note", {IDEM: "k-1"}, path="Welcome", content="once\n", idempotency_key="k-1")
    assert both.structured == first.structured and vg.read("Welcome.md").count("once") == 1


@pytest.mark.covers("append_note", "failure")
async def test_an_idempotency_key_in_meta_for_other_arguments_is_a_mismatch(vg: Harness) -> None:
    await call(vg, "append_note", {IDEM: "k-2"}, path="Welcome", content="a\n")
    before = vg.snapshot()
    other = await call(vg, "append_note", {IDEM: "k-2"}, path="Welcome", content="b\n")
    assert other.is_error and other.error_code == "idempotency_key_mismatch"
    assert vg.snapshot() == before


@pytest.mark.covers("append_note", "failure")
@pytest.mark.parametrize(
    ("meta", "args"),
    [
        ({IDEM: "from-meta"}, {"idempotency_key": "from-args"}),  # two different keys
        ({IDEM: ""}, {}),  # empty
        ({IDEM: 7}, {}),  # not a string
        ({IDEM: "x" * 201}, {}),  # too long
        ({TOKEN: ["a"]}, {}),
    ],
)
async def test_a_bad_or_conflicting_meta_value_is_a_validation_error(
    vg: Harness, meta: dict[str, Any], args: dict[str, Any]
) -> None:
    before = vg.snapshot()
    result = await call(vg, "append_note", meta, path="Welcome", content="never\n", **args)
    assert result.is_error and result.error_code == "validation_error", result.structured
    assert result.structured is not None and result.structured["error"]["details"]["issues"]
    assert vg.snapshot() == before


@pytest.mark.covers("delete_note", "success")
@pytest.mark.covers("delete_note", "failure")
async def test_an_elicit_token_in_meta_confirms_the_call_it_was_minted_for(vg: Harness) -> None:
    token = await vg.token_for("delete_note", path="Welcome", permanent=True)
    wrong = await call(vg, "delete_note", {TOKEN: "not-a-token"}, path="Welcome", permanent=True)
    assert wrong.is_error and wrong.error_code == "elicit_required"
    assert (vg.root / "Welcome.md").exists()
    done = await call(vg, "delete_note", {TOKEN: token}, path="Welcome", permanent=True)
    assert not done.is_error, done.structured
    assert not (vg.root / "Welcome.md").exists()


async def test_other_meta_keys_are_ignored(vg: Harness) -> None:
    out = await call(vg, "read_note", {"progressToken": 3, "other.example/key": {"x": 1}}, path="Welcome")
    assert not out.is_error and out.structured is not None and out.structured["path"] == "Welcome.md"


async def test_an_argument_past_its_size_is_too_large(make_vault: Callable[..., Path]) -> None:
    """A several-MB capture is refused by the input model; the answer names the reason as the
    tool's own size check does (`details.reason: too_large`), so a client branches on one field."""
    async with started(make_vault()) as vg:
        error = await vg.err("capture", "validation_error", text="x" * (2 * 1024 * 1024))
        assert (error["details"]["reason"], error["details"]["field"]) == ("too_large", "text")
        small = await vg.err("capture", "validation_error", text="x" * (100 * 1024))  # past max_capture_bytes
        assert small["details"]["reason"] == "too_large"
        other = await vg.err("capture", "validation_error", text="")
        assert "reason" not in other["details"]
