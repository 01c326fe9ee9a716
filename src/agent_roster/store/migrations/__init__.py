"""Alembic migrations of the store; run them through :mod:`agent_roster.store.migrate`."""
