"""The MCP surface beyond tools: resources, prompts, completion (SDK handlers)."""
