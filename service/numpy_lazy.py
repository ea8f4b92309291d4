"""numpy, imported at its first use: a server that never computes with vectors (embeddings off,
no memory search by meaning, no graph analytics called) never maps numpy's libraries, and its
start does not pay for them (tests/e2e/test_stdio_startup.py checks the mapped libraries).

Modules that use numpy in their function bodies write
`if TYPE_CHECKING: import numpy as np` / `else: from service.numpy_lazy import np`: type checkers
see numpy itself, the running code this proxy, which hands out numpy's attributes once numpy is
imported (the first attribute asked for imports it).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _Lazy:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)


np: Any = _Lazy("numpy")
