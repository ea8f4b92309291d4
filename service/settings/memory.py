"""[memory]: where agent memory lives in each vault, the capture inbox and their limits.

The memory folder holds one note per entity (`service.memory`); the inbox is the note quick
captures are listed in (`service.memory.captures`), inside the memory folder by default so the
path ACL of that folder covers it.
"""

from __future__ import annotations

from pydantic import Field

from service.settings.base import Section


class MemorySettings(Section):
    folder: str = Field(default="Memory", description="Vault folder of the memory notes (one note per entity).")
    inbox: str = Field(
        default="Memory/Inbox.md", description="Vault note that lists quick captures (capture), one item each."
    )
    max_capture_bytes: int = Field(
        default=64 * 1024,
        ge=256,
        le=1024 * 1024,
        description="Largest capture text (UTF-8 bytes); a longer one is refused and nothing is written.",
    )
    max_experience_bytes: int = Field(
        default=16 * 1024,
        ge=256,
        le=1024 * 1024,
        description="Largest text of one recorded experience (UTF-8 bytes).",
    )
    suggest_patterns: dict[str, list[str]] = Field(
        default_factory=lambda: {
            "financial": ["owe", "owed", "debt", "paid", "spent", "spend", "$", "€", "£"],
            "health": ["#mentalhealth", "#physicalhealth", "medication", "therapy", "diagnosis"],
            "commitments": ["promised", "deadline", "shopping list", "appointment", "due on"],
        },
        description="Kinds of facts rag_search suggests keeping in memory (memory_suggestion), each with the "
        "words or marks that show them; {} turns the suggestions off.",
    )
