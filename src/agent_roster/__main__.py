"""``python -m agent_roster`` runs the roster CLI."""

from agent_roster.cli import run

if __name__ == "__main__":
    run()
