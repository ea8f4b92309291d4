"""E2E (both eras, SDK client over real HTTP): a bundle cursor written by hand (a field of another
type than the tool writes) answers validation_error 'invalid cursor', not internal_error; the
tool's own cursor still reads on (tests/reliability/test_attack_bundle_cursor.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.reliability.test_attack_bundle_cursor import BAD, CALLS, decoded, encoded


async def test_a_cursor_written_by_hand_is_refused(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"A.md": "# A\n" + "line of words\n" * 3000, "B.md": "# B\n"})
    async with e2e(root) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        for tool, args in CALLS:
            first = await ok(client, tool, args, max_bytes=1000)
            cursor = decoded(first["next_cursor"])
            for change in BAD[:6]:
                err = await error(client, tool, args, max_bytes=1000, cursor=encoded({**cursor, **change}))
                assert (err["code"], err["message"]) == ("validation_error", "invalid cursor"), (tool, change, err)
            again = await ok(client, tool, args, max_bytes=1000, cursor=first["next_cursor"])
            assert again["entries"][0]["part"] == 2, tool
