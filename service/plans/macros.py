"""Saved plans (macros) per vault, in the state database (`plan_macros`).

A macro is a plan document whose `params` are its typed parameters; the tool layer validates it
when it is saved and again, with the given values, when it runs. Names are unique per vault;
saving an existing name replaces it (`replaced` tells).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from service.plans.model import Plan
from service.storage.db import Database


@dataclass(frozen=True, slots=True)
class Macro:
    name: str
    description: str
    plan: Plan
    created_by: str
    updated_at: float


class Macros:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def save(self, vault_id: str, name: str, description: str, plan: Plan, caller: str) -> bool:
        """Store (or replace) a macro; returns True when one of that name was replaced."""
        now = time.time()
        body = plan.model_dump_json(by_alias=True)
        async with self.db.transaction() as conn:
            cur = await conn.execute("SELECT 1 FROM plan_macros WHERE vault_id = ? AND name = ?", (vault_id, name))
            existed = await cur.fetchone() is not None
            await conn.execute(
                "INSERT INTO plan_macros(vault_id, name, description, plan, created_by, created_at, updated_at) "
                "VALUES (?,?,?,?,?,?,?) ON CONFLICT(vault_id, name) DO UPDATE SET description = excluded.description, "
                "plan = excluded.plan, created_by = excluded.created_by, updated_at = excluded.updated_at",
                (vault_id, name, description, body, caller, now, now),
            )
        return existed

    async def get(self, vault_id: str, name: str) -> Macro | None:
        row = await self.db.fetchone(
            "SELECT name, description, plan, created_by, updated_at FROM plan_macros WHERE vault_id = ? AND name = ?",
            (vault_id, name),
        )
        return _macro(row) if row is not None else None

    async def all(self, vault_id: str) -> list[Macro]:
        rows = await self.db.fetchall(
            "SELECT name, description, plan, created_by, updated_at FROM plan_macros WHERE vault_id = ? ORDER BY name",
            (vault_id,),
        )
        return [_macro(r) for r in rows]

    async def delete(self, vault_id: str, name: str) -> bool:
        async with self.db.transaction() as conn:
            cur = await conn.execute("DELETE FROM plan_macros WHERE vault_id = ? AND name = ?", (vault_id, name))
            return (cur.rowcount or 0) > 0


def _macro(row: Any) -> Macro:
    name, description, plan, created_by, updated_at = tuple(row)
    return Macro(str(name), str(description), Plan.model_validate(json.loads(plan)), str(created_by), float(updated_at))
