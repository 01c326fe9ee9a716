"""roster.toml in a long-running process (``roster up``, ``roster watch``): the last good
configuration stays in force.

Profiles follow one rule (seed 000 §3): a broken save keeps the last good version active
and is reported once; the fix is reported as a recovery. roster.toml follows the same rule
(issue 11 item 5). At start the file applies as far as it can be read (a bad value falls
back to the built-in default, and is reported); after that, a save with any error changes
nothing in force: the process reports the problems once per broken content and goes on
with the configuration it had.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from agent_roster.diagnostics import Diagnostic
from agent_roster.resolve.config import LoadedConfig, RosterConfig, load_config


class ConfigChange(NamedTuple):
    """What one reload of roster.toml did."""

    #: The file as read now, with every diagnostic.
    loaded: LoadedConfig
    #: The new configuration is in force (it read without errors and differs).
    applied: bool
    #: The file has errors now and did not have these before: a new failure to report.
    failed: bool
    #: The file had errors and reads cleanly now.
    recovered: bool


class LiveConfig:
    """The configuration in force, and the problems of roster.toml as last read."""

    def __init__(self, vault: str | os.PathLike[str]) -> None:
        self.vault = Path(vault)
        loaded = load_config(self.vault)
        #: The configuration in force.
        self.current: RosterConfig = loaded.config
        #: The diagnostics of the file as last read (the start's, or the last reload's).
        self.diagnostics: tuple[Diagnostic, ...] = loaded.diagnostics
        self._reported: tuple[Diagnostic, ...] | None = loaded.errors or None

    @property
    def broken(self) -> bool:
        """roster.toml has errors now (so the configuration in force is an older one, or
        the built-in defaults stand in for what could not be read)."""
        return any(d.is_error for d in self.diagnostics)

    def reload(self) -> ConfigChange:
        """Read roster.toml again; apply it only when it has no errors."""
        loaded = load_config(self.vault)
        self.diagnostics = loaded.diagnostics
        errors = loaded.errors
        if errors:
            failed = errors != self._reported
            self._reported = errors
            return ConfigChange(loaded, applied=False, failed=failed, recovered=False)
        recovered = self._reported is not None
        self._reported = None
        applied = loaded.config != self.current
        if applied:
            self.current = loaded.config
        return ConfigChange(loaded, applied=applied, failed=False, recovered=recovered)
