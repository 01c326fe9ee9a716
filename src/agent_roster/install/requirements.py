"""Install manifest entries as what ``npm`` and ``pip`` will be given, checked first.

A pip entry is a PEP 508 requirement parsed with ``packaging`` (extras, version specifiers
and environment markers: ``requests[socks]>=2; python_version>"3.8"``). An npm entry is a
registry package name, optionally scoped, optionally with a version or range. A command is
a program name looked up on PATH. Anything that could be read as an option never parses;
a requirement naming a URL or a local path is refused unless roster.toml ``[install]``
allows it (:class:`~agent_roster.install.policy.InstallPolicy`).
"""

from __future__ import annotations

from typing import Literal

import msgspec
from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from agent_roster.install.policy import InstallPolicy
from agent_roster.vault.profile_lists import COMMAND, NPM_NAME

Manager = Literal["npm", "pip", "command"]


class Package(msgspec.Struct, frozen=True, kw_only=True):
    """One manifest entry: as written (``spec``, what the installer gets), its name (what
    is looked up: a distribution, an npm package or a program), and for pip its version
    specifier and marker."""

    manager: Manager
    spec: str
    name: str
    specifier: str = ""
    marker: str = ""
    url: str = ""


class Refused(msgspec.Struct, frozen=True, kw_only=True):
    """An entry that will not be given to an installer, and why."""

    manager: Manager
    spec: str
    reason: str


def parse_pip(spec: str, policy: InstallPolicy) -> Package | Refused:
    text = spec.strip()
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        reason = str(exc).splitlines()[0] if str(exc) else "not a PEP 508 requirement"
        return Refused(manager="pip", spec=spec, reason=f"not a valid requirement: {reason}")
    if text.startswith("-"):  # packaging never parses these; kept as a second lock
        return Refused(manager="pip", spec=spec, reason="an option, not a requirement")
    url = requirement.url or ""
    if url:
        is_path = url.startswith("file:")
        if is_path and not policy.allow_paths:
            return Refused(
                manager="pip",
                spec=spec,
                reason="a local path; set allow_paths = true in roster.toml [install] to allow",
            )
        if not is_path and not policy.allow_urls:
            return Refused(
                manager="pip",
                spec=spec,
                reason="a URL; set allow_urls = true in roster.toml [install] to allow",
            )
    return Package(
        manager="pip",
        spec=text,
        name=canonicalize_name(requirement.name),
        specifier=str(requirement.specifier),
        marker=str(requirement.marker) if requirement.marker else "",
        url=url,
    )


def parse_npm(spec: str) -> Package | Refused:
    text = spec.strip()
    if not NPM_NAME.match(text):
        return Refused(
            manager="npm",
            spec=spec,
            reason="not a registry package name (paths, URLs and options are not installed)",
        )
    scoped = text.startswith("@")
    name, _, version = text[1:].partition("@") if scoped else text.partition("@")
    return Package(
        manager="npm", spec=text, name=("@" + name) if scoped else name, specifier=version
    )


def parse_command(spec: str) -> Package | Refused:
    text = spec.strip()
    if not COMMAND.match(text):
        return Refused(manager="command", spec=spec, reason="not a program name")
    return Package(manager="command", spec=text, name=text)


def marker_applies(package: Package, environment: dict[str, str]) -> bool:
    """Whether a pip entry's marker holds in the target environment (no marker: yes)."""
    if not package.marker:
        return True
    return Marker(package.marker).evaluate(environment)
