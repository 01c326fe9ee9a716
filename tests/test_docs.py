"""Documentation stays in step with the code (datasette's habit)."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from agent_roster.diagnostics import CODES

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_every_diagnostic_code_is_documented() -> None:
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", (DOCS / "diagnostics.md").read_text(), re.M))
    assert documented == set(CODES)


def test_public_api_is_exactly_all() -> None:
    import agent_roster

    public = {
        name
        for name in dir(agent_roster)
        if not name.startswith("_") and not isinstance(getattr(agent_roster, name), ModuleType)
    }
    assert public == set(agent_roster.__all__) - {"__version__"}
