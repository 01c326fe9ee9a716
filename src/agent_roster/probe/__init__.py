"""Probing registry MCP servers and the tool catalog kept from it (issue 15 items 6, 7)."""
