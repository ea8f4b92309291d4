"""Where the real vaults used as ground truth live: `<repo>/../shared/data/vaults` (beside the
checkout), else `/work/shared/data/vaults`. Tests that need them skip when neither exists."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_CANDIDATES = (REPO.parent / "shared" / "data" / "vaults", Path("/work/shared/data/vaults"))
VAULTS = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])
