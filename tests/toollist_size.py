"""How much of a client's context a `tools/list` costs: one definition for the benchmark
(tests/bench/bench_toollist.py) and the budget test (tests/contract/test_toollist_budget.py).

- `model_bytes`: what a client hands its model — each tool's `name`, `description` and
  `inputSchema` as compact JSON (`separators=(",", ":")`, UTF-8), summed over the tools;
- `wire_bytes`: the whole result as sent (titles, output schemas, annotations, `_meta`).

Tokens are estimated as bytes / 4, rounded up: the usual rule of thumb for English text and
JSON with the tokenizers of the common model families, and rerunnable without a tokenizer.
"""

from __future__ import annotations

import json
import math
from typing import Any

# The default mode's budget for `model_bytes` (issue 13: ~8k tokens).
DEFAULT_MODE_BUDGET_BYTES = 32 * 1024


def compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def model_view(tool: dict[str, Any]) -> dict[str, Any]:
    """The part of a listed tool (as JSON, camelCase keys) a client hands its model."""
    return {"name": tool["name"], "description": tool.get("description"), "inputSchema": tool["inputSchema"]}


def estimate_tokens(n_bytes: int) -> int:
    return math.ceil(n_bytes / 4)


def measure(tools: list[dict[str, Any]]) -> dict[str, Any]:
    model = sum(compact(model_view(t)) for t in tools)
    wire = compact({"tools": tools})
    return {
        "tools": len(tools),
        "model_bytes": model,
        "model_tokens_est": estimate_tokens(model),
        "wire_bytes": wire,
        "wire_tokens_est": estimate_tokens(wire),
    }
