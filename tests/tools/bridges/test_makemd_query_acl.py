"""makemd_query for a caller whose path rules deny a folder, through the whole dispatch chain
against the stand-in for the Local REST API with the companion's routes (tests/tools/bridges/
standin.py; here its query route also keeps routes.ts's bound on `limit`, 1 to 1000). Spaces the
caller may not read are left out before the answer is cut to `limit`: they take no place, and
`truncated` says only whether spaces it may see were left out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too


@dataclass
class Counted(Obsidian):
    """The stand-in, keeping the `limit` of each query and refusing one routes.ts refuses."""

    limits: list[int] = field(default_factory=list)

    async def companion_route(self, request: Request) -> Response:
        if request.url.path.endswith("/makemd/query/"):
            limit = (await request.json()).get("limit", 100)
            self.limits.append(limit)
            if not isinstance(limit, int) or not 1 <= limit <= 1000:
                message = "limit must be an integer from 1 to 1000"
                return JSONResponse({"message": message, "errorCode": 40000, "error": "bad_request"}, status_code=400)
        return await super().companion_route(request)


def folder(path: str) -> dict[str, str]:
    return {"path": path, "name": path.rsplit("/", 1)[-1], "type": "folder"}


async def test_a_space_the_caller_may_not_read_takes_no_place_in_the_limit(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Counted(spaces=[folder("Private"), folder("Projects")])  # by path, as routes.ts sorts them
    async with bridged(make_vault, tmp_path, obsidian) as (vg, _):
        out = await vg.ok("makemd_query", type="folder", limit=1)
        assert [s["path"] for s in out["items"]] == ["Projects"] and out["truncated"] is False


async def test_truncated_tells_of_readable_spaces_only(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    spaces = [folder("Private"), folder("Private/Deep"), folder("Projects"), folder("Zeta")]
    async with bridged(make_vault, tmp_path / "one", Counted(spaces=spaces[:3])) as (vg, _):
        alone = await vg.ok("makemd_query", type="folder", limit=1)
        assert [s["path"] for s in alone["items"]] == ["Projects"] and alone["truncated"] is False
    async with bridged(make_vault, tmp_path / "after", Counted(spaces=[folder("Notes"), *spaces[:2]])) as (vg, _):
        first = await vg.ok("makemd_query", type="folder", limit=1)  # only denied spaces follow it
        assert [s["path"] for s in first["items"]] == ["Notes"] and first["truncated"] is False
    async with bridged(make_vault, tmp_path / "two", Counted(spaces=spaces)) as (vg, _):
        cut = await vg.ok("makemd_query", type="folder", limit=1)
        assert [s["path"] for s in cut["items"]] == ["Projects"] and cut["truncated"] is True


async def test_past_the_companions_most_the_readable_match_is_still_found(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    hidden = [folder(f"Private/{i:04d}") for i in range(1500)]  # more denied matches than one answer holds
    obsidian = Counted(spaces=[folder("Private"), *hidden, folder("Projects")])
    async with bridged(make_vault, tmp_path, obsidian) as (vg, _):
        out = await vg.ok("makemd_query", type="folder", limit=1)
        assert [s["path"] for s in out["items"]] == ["Projects"] and out["truncated"] is False
        assert max(obsidian.limits) == 1000  # never more than the companion answers at once
        many = await vg.ok("makemd_query", type="folder", limit=1000)
        assert [s["path"] for s in many["items"]] == ["Projects"] and many["truncated"] is False
