"""The HTTP tier: routes beside /mcp (health, readiness), host/origin guard, bearer auth."""
