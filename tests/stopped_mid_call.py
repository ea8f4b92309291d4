"""`python -m tests.stopped_mid_call VAULT URL FINGERPRINT [STDIO]`: the real server
(`vaultgate serve`'s `run_http`, or with STDIO `vaultgate stdio`'s runner) on VAULT, whose bridge
reaches the Obsidian stand-in at URL (tests/tools/bridges/standin.py), with a 60 s bridge
timeout: a bridge call to a stand-in that holds its answer stays in flight until the test stops
the process (SIGTERM, or for stdio the end of stdin) — tests/e2e/test_stopped_mid_call_e2e.py.
`VG_E2E_EOF_GRACE_S` (stdio): the end-of-stdin grace, when set.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from service import serve
from service.settings import Settings, load_settings

# A shorter end-of-stdin grace (`sdk_pumps.EOF_GRACE_S`, 10 s) for a case that waits it out with a
# call that cannot finish: that the call is answered and the process ends is under test, not when.
EOF_GRACE_ENV = "VG_E2E_EOF_GRACE_S"


def settings(root: Path, url: str, fingerprint: str) -> Settings:
    bridge = {"url": url, "api_key_env": "VG_E2E_OBSIDIAN_KEY", "cert_fingerprint": fingerprint}
    bridge = {**bridge, "probe_at_start": False, "timeout_s": 60, "safe_commands": ["graph:open"]}
    vault = {"id": "main", "path": str(root), "bridge": bridge}
    return load_settings(
        root,
        vaults=[vault],
        embeddings={"provider": "none"},
        plane={"enabled": False},
        http={"port": 0, "graceful_shutdown_seconds": 3},
        index={"watch": False},
    )


def stdio(chosen: Settings) -> int:
    """`vaultgate stdio`'s start (`service.__main__`): the stdio front, then the app."""
    from service.app import VaultgateApp
    from service.protocol.shipped_tools_list import list_settings
    from service.protocol.stdio_front import StdioFront, startup_key
    from service.serve_stdio import run_stdio

    grace = os.environ.get(EOF_GRACE_ENV)
    if grace is not None:  # (both modules' copies: the fast path's and the SDK's pumps)
        from service.protocol import fast_calls, sdk_pumps

        fast_calls.EOF_GRACE_S = sdk_pumps.EOF_GRACE_S = float(grace)
    front = StdioFront(chosen.cache_dir(), startup_key(sys.argv[1:], dict(os.environ)))
    front.start()
    front.wait_first_answers(timeout=0.5)
    front.check_settings(chosen.model_dump_json())
    front.settings_loaded(list_settings(chosen))
    return run_stdio(VaultgateApp(chosen, owns_process=True), front)


if __name__ == "__main__":
    chosen = settings(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
    if len(sys.argv) > 4:
        sys.exit(stdio(chosen))
    serve.run_http(chosen)
