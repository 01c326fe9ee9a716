"""Commands: plain typed functions returning data. The CLI, the embedded MCP server and the
HTTP API are thin adapters over these functions."""
