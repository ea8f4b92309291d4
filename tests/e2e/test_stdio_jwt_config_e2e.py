"""`vaultgate stdio CONFIG` on the configuration an HTTP deployment uses (`auth.mode = "jwt"`,
a public host), started by a desktop client whose environment holds no secret, through the SDK's
stdio client: stdio serves no HTTP and its caller holds every scope, so it starts and answers
(it exited 1 with "auth.mode = 'jwt' needs auth.jwt_secret" and the client saw a closed pipe)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from mcp import Client, StdioServerParameters


async def test_stdio_on_a_jwt_config_starts_without_the_secret(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    config = tmp_path / "vaultgate.toml"
    config.write_text(
        f'[auth]\nmode = "jwt"\n\n[http]\nhost = "0.0.0.0"\n\n[[vaults]]\nid = "main"\npath = "{root}"\n',
        encoding="utf-8",
    )
    assert "VAULTGATE_AUTH__JWT_SECRET" not in os.environ
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(config)])
    async with Client(params) as client:
        read = await client.call_tool("read_note", {"path": "Home"})
    assert not read.is_error and read.structured_content is not None
    assert read.structured_content["path"] == "Home.md"
