"""The base of every settings section: a strict pydantic model (unknown keys are errors)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")
