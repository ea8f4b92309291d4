"""A completed change whose report is one big map (set_properties echoing 550 properties, ~60 KB,
against a 16 KiB budget) still answers a success within the byte budget, with its path and new
etag: the governor halves the map, never the fields the result model names. (The acceptance run's
20,000 keys make a frontmatter that property edits now refuse: `frontmatter_size`.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.tools.properties.edit import EditOut
from tests.conftest import started

LIMIT = 16 * 1024
KEYS = 550  # a frontmatter under the 65,536 characters property edits accept
NOTE = {"Welcome.md": "---\ntitle: Hi\n---\n# Welcome\n\nText.\n"}


async def test_a_completed_set_properties_too_big_to_echo_answers_success_with_its_etag(
    make_vault: Callable[..., Path],
) -> None:
    big = {f"k{i}": "v" * 100 for i in range(KEYS)}  # ~60 KB of properties, far over the 16 KiB budget
    async with started(make_vault(NOTE), governor={"max_response_bytes": LIMIT}, throttle={"enabled": False}) as vg:
        result = await vg.call("set_properties", path="Welcome.md", properties=big)
        assert not result.is_error, result.structured
        assert result.size <= LIMIT and "completed" in result.text
        out = result.structured
        assert out is not None
        EditOut.model_validate(out)  # still an instance of the tool's result model
        assert out["path"] == "Welcome.md" and out["changed"] is True
        assert 0 < len(out["properties"]) < len(big)
        # the etag answered is the note's etag now: an edit guarded by it goes through
        text = vg.read("Welcome.md")
        assert f"k{KEYS - 1}: " in text and "k0: " in text  # the write itself is complete
        # a read of the same note is still `overflow`: nothing happened, ask for less
        await vg.err("get_properties", "overflow", path="Welcome.md")
        await vg.err("delete_property", "conflict", path="Welcome.md", key="title", expected_etag="0" * 16)
        done = await vg.call("delete_property", path="Welcome.md", key="title", expected_etag=out["etag"])
        assert not done.is_error and "title:" not in vg.read("Welcome.md")


async def test_the_same_change_through_call_capability_keeps_the_inner_path_and_etag(
    make_vault: Callable[..., Path],
) -> None:
    big = {f"k{i}": "v" * 100 for i in range(KEYS)}
    async with started(make_vault(NOTE), governor={"max_response_bytes": LIMIT}, throttle={"enabled": False}) as vg:
        args = {"path": "Welcome.md", "properties": big}
        result = await vg.call("call_capability", name="set_properties", arguments=args)
        assert not result.is_error, result.structured
        assert result.size <= LIMIT and result.structured is not None
        inner = result.structured["result"]
        EditOut.model_validate(inner)
        assert inner["path"] == "Welcome.md" and inner["changed"] is True and 0 < len(inner["properties"]) < KEYS
        done = await vg.call("delete_property", path="Welcome.md", key="title", expected_etag=inner["etag"])
        assert not done.is_error and "title:" not in vg.read("Welcome.md")
