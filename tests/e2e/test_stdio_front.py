"""The stdio front (service/protocol/stdio_front.py): a second start answers `initialize` /
`server/discover` and `tools/list` from the answers the first start stored, and the session
behind them works exactly as before; other settings never reuse those answers."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from mcp import Client, StdioServerParameters

_made = iter(range(1000))


def _answers_files() -> list[Path]:
    return sorted(Path(os.environ["XDG_CACHE_HOME"]).rglob("stdio-answers-*.json"))


async def _session(root: Path, mode: str, *extra: str) -> tuple[list[str], dict[str, object]]:
    args = ["-m", "service", "stdio", str(root), *extra]
    # The test's cache folder (the SDK passes only a few variables on by default).
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        names = [t.name for t in (await client.list_tools()).tools]
        read = await client.call_tool("read_note", {"path": "Welcome"})
        assert not read.is_error and read.structured_content is not None
        made = await client.call_tool("create_note", {"path": f"From {mode} {next(_made)}", "content": "hi\n"})
        assert not made.is_error
        return names, read.structured_content


async def test_a_second_start_answers_from_the_store_and_serves_as_before(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault()
    first_names, first_read = await _session(root, mode)
    stored = _answers_files()
    assert len(stored) == 1 and stored[0].stat().st_size > 0
    before = stored[0].read_bytes()
    second_names, second_read = await _session(root, mode)
    assert second_names == first_names
    assert second_read["etag"] == first_read["etag"]
    assert _answers_files() == stored and stored[0].read_bytes() == before  # all answered from the store
    assert len(list(root.glob(f"From {mode} *.md"))) == 2


async def test_other_settings_never_reuse_the_stored_answers(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    lean, _ = await _session(root, "legacy")
    triad, _ = await _session(root, "legacy", "--tool-facade", "triad")
    assert len(triad) < len(lean) and "read_note" in lean and "read_note" not in triad
    assert len(_answers_files()) == 2  # one store per key: alternating settings both stay fast
    again, _ = await _session(root, "legacy")
    assert again == lean
