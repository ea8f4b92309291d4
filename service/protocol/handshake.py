"""What a client's `initialize` declares that decides where its calls run: the `elicitation`
capability. A tool that may ask for confirmation is asked through the SDK's session when the
client can be asked, so the fast paths (`service.protocol.fast_path`) leave such calls to the
SDK for that client. Standard library only: the stdio front reads `initialize` before the SDK
is imported.
"""

from __future__ import annotations

from typing import Any


def declares_elicitation(params: Any) -> bool:
    """Whether `initialize` params declare the `elicitation` capability, as the SDK's session
    reads it (present and not null; the confirmation layer asks only such a client)."""
    caps = params.get("capabilities") if isinstance(params, dict) else None
    return isinstance(caps, dict) and caps.get("elicitation") is not None
