"""The ``roster`` command line: a thin adapter over :mod:`agent_roster.commands`."""

from agent_roster.cli.app import main, run

__all__ = ["main", "run"]
