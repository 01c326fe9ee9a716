"""Package data for ``roster init``: ``vault/`` is the starter vault copied into a new folder."""
