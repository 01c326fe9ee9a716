"""The ``roster`` command line: a thin adapter over :mod:`agent_roster.commands`."""

from agent_roster.cli.app import main

__all__ = ["main"]
