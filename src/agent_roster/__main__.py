"""``python -m agent_roster`` runs the roster CLI."""

import sys

from agent_roster.cli import main

if __name__ == "__main__":
    sys.exit(main())
