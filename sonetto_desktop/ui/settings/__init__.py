"""The settings dialog and its pages (model, memory, other apps over MCP, several devices)."""
