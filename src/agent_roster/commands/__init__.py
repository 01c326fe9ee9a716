"""Commands: plain typed functions returning data. The CLI, and later the MCP server, the
HTTP API and the dashboard, are thin adapters over these functions."""
