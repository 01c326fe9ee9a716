"""The daemon's surfaces over the command registry: the embedded MCP server (stdio and
streamable HTTP) and the HTTP API; ``roster up`` runs them with the watcher."""
