"""Vault access: the only code that touches vault files (paths, atomic writes, change events)."""
