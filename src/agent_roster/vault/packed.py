"""A cleanly parsed profile as plain data, and back.

Two places keep a parse outside the process that made it: a load's worker processes send
theirs over a pipe (``vault/parallel_load.py``), and the parse cache keeps them between runs
(``vault/parse_cache.py``). Both keep the same thing: the profile, its diagnostics, and the
file's text; for a document that holds a long prose body once (``ProfileDocument.pieces``)
the text before that body, the index of the section holding it and the text after it, so the
body is kept once, inside the profile (sending the text too made a load of a vault of 50 KB
prompts slower at receiving than at parsing). :func:`unpack` gives back the same
``ParsedProfile`` the parse gave: the same profile, diagnostics and document, the long body
the profile's own object again.
"""

from __future__ import annotations

from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile
from agent_roster.vault.profile_parser import ParsedProfile, ProfileDocument

#: (profile, diagnostics, text or the text before the body, the body's section or WHOLE,
#: the text after the body).
Packed = tuple[AgentProfile, tuple[Diagnostic, ...], str, int, str]
#: The section index of a document kept whole.
WHOLE = -1


def pack(parsed: ParsedProfile) -> Packed:
    """``parsed`` (a parse with a profile and a document) as plain data."""
    profile, found, document = parsed
    assert profile is not None and document is not None  # callers pack clean parses only
    pieces = document.pieces
    if pieces is not None:
        before, body, after = pieces
        for section, held in enumerate(profile.sections):
            if held.body is body:
                return profile, found, before, section, after
    return profile, found, document.text, WHOLE, ""


def unpack(path: str, packed: Packed) -> ParsedProfile:
    """The parse ``packed`` came from, for the file at ``path``."""
    profile, found, text, section, after = packed
    if section == WHOLE:
        document = ProfileDocument(path, text)
    else:
        document = ProfileDocument.around(path, text, profile.sections[section].body, after)
    return ParsedProfile(profile, found, document)
