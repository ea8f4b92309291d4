"""The MCP surface beyond tools: resources, prompts, completion, tasks for plan runs (SDK handlers)."""
