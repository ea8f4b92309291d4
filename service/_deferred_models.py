"""Pydantic builds a model's validator and serializer on first use, not when its class is defined.

Imported first by the command line (`service.__main__`), before any model class exists. The MCP
SDK defines several hundred protocol models (two protocol eras) of which a server uses a few
dozen; building them all at import was ~90 ms of every start. Behaviour is unchanged — only when
the work happens. (Tool models opt in themselves: see `service.tools.models`.)
"""

from __future__ import annotations

import pydantic

pydantic.BaseModel.model_config["defer_build"] = True
