"""The support matrix (issue 16 item 5): every codec's declaration (``Codec.support``) is
exactly what its render does with probe profiles, ``docs/codecs/matrix.md`` is the
declarations as ``roster compare --markdown`` prints them, and ``roster compare`` shows
them as a table and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_roster.cli import main
from agent_roster.codecs import codec_names, get_codec
from agent_roster.codecs.base import Scope
from agent_roster.codecs.support import FIELDS, Support, markdown, matrix

from .helpers import REPO, field_value, render_and_discover
from .support_probes import BASE, PROBES, SERVERS, _replace, observed, outcomes

MATRIX_DOC = REPO / "docs" / "codecs" / "matrix.md"


@pytest.mark.parametrize("harness", codec_names())
def test_each_declaration_is_what_render_does(harness: str) -> None:
    """A field's declared outcomes are exactly what render does with it at either scope
    (a harness may read a value from a user file and refuse it in a project file: Kilo's
    variable references), and each scope does nothing undeclared."""
    codec = get_codec(harness)
    assert tuple(codec.support) == FIELDS
    project, user = observed(codec, Scope.PROJECT), observed(codec, Scope.USER)
    both = {f: tuple(s for s in Support if s in project[f] or s in user[f]) for f in FIELDS}
    assert both == dict(codec.support)


@pytest.mark.parametrize("harness", codec_names())
def test_a_kept_field_comes_back_from_the_harness_files(harness: str, tmp_path: Path) -> None:
    """``kept`` means import reads the value back: every probe whose only outcome is kept
    survives render → write → discover, on the fields the codec calls native."""
    codec = get_codec(harness)
    checked = 0
    for field, probes in PROBES.items():
        if field not in codec.native_fields:
            continue
        for index, values in enumerate(probes):
            if outcomes(codec, field, values) != {Support.KEPT}:
                continue
            profile = _replace(BASE, values)
            _, found = render_and_discover(
                codec, [profile], SERVERS, root=tmp_path / f"{field}-{index}"
            )
            (back,) = [p for p in found.profiles if p.id == profile.id]
            assert field_value(back, field) == field_value(profile, field), (field, values)
            checked += 1
    assert checked >= 2  # description and prompt at least


def test_the_published_matrix_is_current() -> None:
    assert MATRIX_DOC.read_text(encoding="utf-8") == markdown(matrix()), (
        "docs/codecs/matrix.md is out of date: roster compare --markdown > docs/codecs/matrix.md"
    )


def test_roster_compare(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "copilot", "claude"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["field", "copilot", "claude"]
    rows = {line[2:].split()[0]: line for line in lines[1:]}
    assert list(rows) == list(FIELDS)
    copilot, claude = get_codec("copilot").support, get_codec("claude").support
    for field, line in rows.items():
        cells = line[2:].split()
        assert cells[1:] == ["/".join(copilot[field]), "/".join(claude[field])]
        assert line.startswith("*") == (copilot[field] != claude[field])

    assert main(["compare", "gemini", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["harnesses"] == ["gemini"]
    assert data["outcomes"] == [s.value for s in Support]
    gemini = get_codec("gemini").support
    assert data["fields"] == {f: {"gemini": [o.value for o in gemini[f]]} for f in FIELDS}

    assert main(["compare", "--markdown"]) == 0
    assert capsys.readouterr().out == MATRIX_DOC.read_text(encoding="utf-8")

    assert main(["compare", "copilto"]) == 2
    assert "copilot" in capsys.readouterr().err
