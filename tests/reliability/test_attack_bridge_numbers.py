"""A Local REST API answer holding a number that is not finite (U1, session 80).

Obsidian's plugin writes JSON with JavaScript's JSON.stringify, which writes null for NaN and
infinity; a stand-in (another program on that port, a proxy) may answer `NaN`, `Infinity` or
`1e400`, which Python's reader takes. get_active_note passed such a `stat` on: its answer
carried NaN and infinity, which no JSON answer can hold as numbers (the wire gets null where the
output schema says number, and the SDK client refuses the whole answer, as for the canvas in
test_attack_canvas_numbers.py). Now such an answer is one the bridge cannot read:
`plugin_incompatible` (reason `bad_answer`), as any other malformed answer. Through the
dispatch chain, against the HTTPS stand-in.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.requests import Request
from starlette.responses import Response

from tests.tools.bridges.standin import KEY, NOTE_JSON, Obsidian
from tests.tools.bridges.test_bridge_tools import ENV, bridged

ANSWERS = {
    "nan": '{"path": "Index.md", "content": "x", "frontmatter": {}, "tags": [], '
    '"stat": {"ctime": NaN, "mtime": 1732784400000, "size": 1}}',
    "infinity": '{"path": "Index.md", "content": "x", "frontmatter": {}, "tags": [], '
    '"stat": {"ctime": 1732780800000, "mtime": Infinity, "size": 1}}',
    "1e400": '{"path": "Index.md", "content": "x", "frontmatter": {"n": 1e400}, "tags": [], '
    '"stat": {"ctime": 1732780800000, "mtime": 1732784400000, "size": 1}}',
}


class Odd(Obsidian):
    answer: str = ""

    async def get_active(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        return Response(self.answer, media_type=NOTE_JSON)


@pytest.mark.parametrize("name", sorted(ANSWERS))
async def test_an_answer_with_a_number_that_is_not_finite_is_a_bad_answer(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv(ENV, KEY)
    obsidian = Odd()
    obsidian.answer = ANSWERS[name]
    async with bridged(make_vault, tmp_path, obsidian) as (vg, _):
        refused = await vg.err("get_active_note", "plugin_incompatible")
        assert refused["details"]["reason"] == "bad_answer", refused
        obsidian.answer = ANSWERS[name].replace("NaN", "1").replace("Infinity", "2").replace("1e400", "3")
        assert (await vg.ok("get_active_note"))["path"] == "Index.md"
