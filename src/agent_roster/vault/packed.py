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

The parse cache keeps less: the file's text is read again for every load anyway, so an
entry (:func:`strip`) keeps no text at all, only where the long body starts and ends in
it, and the profile with that body left empty; :func:`restore` puts the text back.
"""

from __future__ import annotations

import msgspec

from agent_roster.diagnostics import Diagnostic
from agent_roster.model.profile import AgentProfile
from agent_roster.vault.profile_parser import ParsedProfile, ProfileDocument

#: (profile, diagnostics, text or the text before the body, the body's section or WHOLE,
#: the text after the body).
Packed = tuple[AgentProfile, tuple[Diagnostic, ...], str, int, str]
#: (profile with its long body empty, diagnostics, the body's section or WHOLE, where the
#: body starts in the text, where it ends).
Stripped = tuple[AgentProfile, tuple[Diagnostic, ...], int, int, int]
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


def strip(parsed: ParsedProfile) -> Stripped:
    """``parsed`` (a clean parse) without any of its file's text: a document of pieces
    leaves its long body out of the profile and says where the body is in the text."""
    profile, found, before, section, _ = pack(parsed)
    if section == WHOLE:
        return profile, found, WHOLE, 0, 0
    start = len(before)
    end = start + len(profile.sections[section].body)
    return _with_body(profile, section, ""), found, section, start, end


def restore(path: str, text: str, stripped: Stripped) -> ParsedProfile:
    """The parse ``stripped`` came from, given its file's normalised ``text``."""
    profile, found, section, start, end = stripped
    if section == WHOLE:
        return ParsedProfile(profile, found, ProfileDocument(path, text))
    body = text[start:end]
    profile = _with_body(profile, section, body)
    return ParsedProfile(
        profile, found, ProfileDocument.around(path, text[:start], body, text[end:])
    )


def _with_body(profile: AgentProfile, index: int, body: str) -> AgentProfile:
    sections = list(profile.sections)
    sections[index] = msgspec.structs.replace(sections[index], body=body)
    return msgspec.structs.replace(profile, sections=tuple(sections))
