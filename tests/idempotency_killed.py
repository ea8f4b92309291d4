"""`python -m tests.idempotency_killed VAULT REL`: the real HTTP server (`vaultgate serve`'s
`run_http`) on VAULT that kills itself (SIGKILL) right after the atomic write of REL
(`tests.reliability.writes_killed.kill_after_writing`): a call with an `idempotency_key` that
writes REL has claimed its key and never completes it. Used by
tests/reliability/test_idempotency_killed.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from service import serve
from service.settings import load_settings
from tests.reliability.writes_killed import kill_after_writing

if __name__ == "__main__":
    kill_after_writing(sys.argv[2])
    root = Path(sys.argv[1])
    serve.run_http(load_settings(root, embeddings={"provider": "none"}, plane={"enabled": False}, http={"port": 0}))
