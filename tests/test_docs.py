"""Documentation stays in step with the code (datasette's habit)."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from agent_roster.diagnostics import CODES

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_every_diagnostic_code_is_documented() -> None:
    text = (DOCS / "diagnostics.md").read_text().split("## Error codes")[0]
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", text, re.M))
    assert documented == set(CODES)


def test_every_error_code_is_documented_with_its_exit_code_and_status() -> None:
    from agent_roster.errors import SURFACE_CODES

    text = (DOCS / "diagnostics.md").read_text().split("## Error codes")[1]
    rows = re.findall(r"^\| `([a-z-]+)` \| (\d+) \| (\d+) \|", text, re.M)
    assert {code: (int(e), int(h)) for code, e, h in rows} == {
        code: (codes.exit_code, codes.http_status) for code, codes in SURFACE_CODES.items()
    }


def test_public_api_is_exactly_all() -> None:
    import agent_roster

    public = {
        name
        for name in dir(agent_roster)
        if not name.startswith("_") and not isinstance(getattr(agent_roster, name), ModuleType)
    }
    assert public == set(agent_roster.__all__) - {"__version__"}


def test_every_command_is_in_the_readme_with_its_summary() -> None:
    """The README's command-layer table lists every registry command, reads or writes
    as the catalog says, with the summary every surface shows."""
    from agent_roster.commands.registry import all_commands

    readme = (DOCS.parent / "README.md").read_text()
    rows = {
        name: (kind, summary)
        for name, kind, summary in re.findall(
            r"^\| `([a-z_]+)` \| `roster [^`]+` \| (reads|writes) \| (.+) \|$", readme, re.M
        )
    }
    assert rows == {
        c.name: ("writes" if c.spec.writes else "reads", c.summary) for c in all_commands()
    }
