"""`python -m tests.e2e.held_stdio VAULT`: the stdio server, with the first long change held.

The same server as `vaultgate stdio VAULT`, built with a `Hold` at the first item of the first
long change's prepare phase that is never released: only a cancellation from the client ends
that call (see tests/e2e/test_progress_e2e.py). Later long changes run freely.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from service.app import VaultgateApp
from service.obs.logging import setup_logging
from service.settings import load_settings
from tests.long_changes import Hold


def main() -> None:
    settings = load_settings(Path(sys.argv[1]))
    setup_logging(settings.log)
    asyncio.run(VaultgateApp(settings, step_hook=Hold("prepare", 1)).run_stdio())


if __name__ == "__main__":
    main()
