"""An argument a tool does not take, through the dispatch chain: the validation_error names the
arguments the tool does take (`details.accepted`, and in the message), so that `path` given to
list_tasks, which takes `note`, can be corrected from the answer alone."""

from __future__ import annotations

from tests.conftest import Harness


async def test_an_unknown_argument_names_what_the_tool_takes(vg: Harness) -> None:
    before = vg.snapshot()
    error = await vg.err("list_tasks", "validation_error", path="Welcome")
    assert error["details"]["issues"] == [
        {"field": "path", "issue": "Extra inputs are not permitted", "type": "extra_forbidden"}
    ]
    accepted = error["details"]["accepted"]
    assert "note" in accepted and "folder" in accepted and "path" not in accepted
    assert accepted[-3:] == ["vault", "elicit_token", "idempotency_key"]
    assert "list_tasks takes: status, status_char" in error["message"]
    await vg.err("append_note", "validation_error", path="Welcome", text="x", content="y")
    assert vg.snapshot() == before


async def test_other_argument_errors_do_not_list_the_arguments(vg: Harness) -> None:
    error = await vg.err("read_note", "validation_error", path="Welcome", start_line=0)
    assert "accepted" not in error["details"] and "takes:" not in error["message"]
