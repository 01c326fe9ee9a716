"""What differs between OpenCode and its forks that read the same agent files.

Kilo Code CLI is an OpenCode fork: the same markdown agents (``{agent,agents}/**/*.md``
named by their path, ``{mode,modes}/*.md`` as primary agents), the same agent schema,
permission semantics, deep merge and ``mcp`` block. What differs is data (where the files
are, the config file names, the built-in agents, the keys the schema knows) and a few
rules (how a bad file is refused, and Kilo's refusal of variable references in project
files). A :class:`Flavor` holds all of it, so one reader and one renderer serve both
(``opencode/read.py``, ``opencode/render.py``); each difference was checked against the
real CLI (docs/codecs/opencode.md, docs/codecs/kilo.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from agent_roster.codecs.base import Roots, Scope


class ConfigFile(NamedTuple):
    """One JSON(C) config file a flavor reads, in its layer order. ``trusted`` is false for
    project files (Kilo refuses variable references in them)."""

    path: Path
    trusted: bool


class ConfigDir(NamedTuple):
    """One config directory: its agents and modes are read, and ``config_names`` (in that
    order; empty when the directory's config files were read as files already)."""

    path: Path
    trusted: bool
    config_names: tuple[str, ...]


class Layers(NamedTuple):
    """Where a flavor reads from, in its order: config files first, then directories."""

    files: tuple[ConfigFile, ...]
    dirs: tuple[ConfigDir, ...]


class Flavor(NamedTuple):
    """One harness that reads OpenCode-format agents."""

    #: Codec name: the key of ``harness.<codec>`` and ``native.<codec>`` in profiles.
    codec: str
    #: The harness's name in messages ("OpenCode", "Kilo").
    label: str
    #: Folder of agents and config render writes to, relative to the workspace (project)
    #: or home (user).
    base: Mapping[Scope, str]
    #: The config file render merges the ``mcp`` block into, and its JSONC twin (render
    #: uses the twin when only it exists).
    config_name: str
    config_alt: str
    #: The harness's own agents; a config entry with one of these names adjusts the
    #: built-in.
    builtin: frozenset[str]
    #: Keys the agent schema knows beyond OpenCode's (not moved into ``options``).
    extra_keys: frozenset[str]
    #: The agent key holding a display name (canonical ``name``), or "" when it has none.
    display_key: str
    #: Whether one invalid file refuses the whole configuration (OpenCode) or only that
    #: file is skipped, with an error in the log, while the rest loads (Kilo).
    whole_config: bool
    #: Whether a frontmatter YAML cannot parse (after the retry) loads as an agent whose
    #: prompt is the whole file (Kilo) instead of being skipped (OpenCode).
    unparsed_is_prompt: bool
    #: Whether ``{env:…}``/``{file:…}`` references in an untrusted (project) file make the
    #: harness skip it (Kilo; a reference in a server's headers skips only that server).
    refuse_project_refs: bool
    #: ``$schema`` written first into a config file render creates ("" for none): Kilo
    #: rewrites every config file it loads to add its own when it is missing.
    schema_url: str
    #: The layers, in order, for a workspace and home.
    layers: Callable[[Roots], Layers]


def _opencode_layers(roots: Roots) -> Layers:
    names = ("opencode.json", "opencode.jsonc")
    global_dir = roots.home / ".config" / "opencode"
    files = [ConfigFile(global_dir / name, True) for name in ("config.json", *names)]
    files += [ConfigFile(roots.workspace / name, True) for name in names]
    dirs = (
        ConfigDir(global_dir, True, ()),
        ConfigDir(roots.workspace / ".opencode", True, names),
        ConfigDir(roots.home / ".opencode", True, names),
    )
    return Layers(tuple(files), dirs)


OPENCODE = Flavor(
    codec="opencode",
    label="OpenCode",
    base={Scope.PROJECT: ".opencode", Scope.USER: ".config/opencode"},
    config_name="opencode.json",
    config_alt="opencode.jsonc",
    builtin=frozenset({"build", "plan", "general", "explore", "title", "summary", "compaction"}),
    extra_keys=frozenset(),
    display_key="",
    whole_config=True,
    unparsed_is_prompt=False,
    refuse_project_refs=False,
    schema_url="",
    layers=_opencode_layers,
)


def _kilo_layers(roots: Roots) -> Layers:
    """Kilo 7.7.9 (checked with ``kilo debug config``): the global files, then the
    project's root files (``kilo.*`` before the legacy ``opencode.*``, ``.json`` before
    ``.jsonc``), then the directories ``~/.config/kilo``, the project's ``.kilocode`` and
    ``.kilo`` and the home's ``~/.kilocode`` and ``~/.kilo``, each with its config files
    (``.jsonc`` before ``.json`` there). ``.opencode`` folders are not read."""
    global_dir = roots.home / ".config" / "kilo"
    global_names = ("config.json", "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc")
    root_names = ("kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc")
    dir_names = ("kilo.jsonc", "kilo.json", "opencode.jsonc", "opencode.json")
    files = [ConfigFile(global_dir / name, True) for name in global_names]
    files += [ConfigFile(roots.workspace / name, False) for name in root_names]
    dirs = (
        ConfigDir(global_dir, True, ()),
        ConfigDir(roots.workspace / ".kilocode", False, dir_names),
        ConfigDir(roots.workspace / ".kilo", False, dir_names),
        ConfigDir(roots.home / ".kilocode", True, dir_names),
        ConfigDir(roots.home / ".kilo", True, dir_names),
    )
    return Layers(tuple(files), dirs)


KILO = Flavor(
    codec="kilo",
    label="Kilo",
    base={Scope.PROJECT: ".kilo", Scope.USER: ".config/kilo"},
    config_name="kilo.json",
    config_alt="kilo.jsonc",
    builtin=frozenset(
        {
            "ask",
            "code",
            "compaction",
            "debug",
            "explore",
            "general",
            "orchestrator",
            "plan",
            "summary",
            "title",
        }
    ),
    extra_keys=frozenset({"displayName", "source", "requirements"}),
    display_key="displayName",
    whole_config=False,
    unparsed_is_prompt=True,
    refuse_project_refs=True,
    schema_url="https://app.kilo.ai/config.json",
    layers=_kilo_layers,
)

#: A variable reference Kilo substitutes (and refuses in project files): its own pattern.
REFERENCE = re.compile(r"\{(?:env|file):[^}]+\}")


def header_references(mcp: Any) -> list[tuple[str, str]]:
    """The servers of an ``mcp`` block whose headers hold a variable reference, each with
    the first one (Kilo skips them in project files: ``Skipped MCP "<name>"``)."""
    found: list[tuple[str, str]] = []
    for name, entry in mcp.items() if isinstance(mcp, dict) else ():
        headers = entry.get("headers") if isinstance(entry, dict) else None
        pairs = headers.items() if isinstance(headers, dict) else ()
        texts = [text for pair in pairs for text in pair if isinstance(text, str)]
        match = next((m for m in map(REFERENCE.search, texts) if m is not None), None)
        if match is not None:
            found.append((name, match[0]))
    return found
