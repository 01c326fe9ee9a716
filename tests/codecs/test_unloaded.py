"""Files in a harness's agent folders that the harness does not load are reported, each as
a ``harness-ignored`` warning saying why (issue 12 item 6, README D13): every harness passes
over some files without a word, and a user should not lose an agent that way. Hidden files
(editor and OS files) are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_roster.codecs import codec_names, get_codec

from .helpers import discover_in

# Each harness's user-level agent folder under the home folder (discover reads it without
# trust or a git root), and what in it is not loaded: a file with the wrong extension, and a
# subfolder where the harness does not look (where it does, the file in it is reported).
AGENT_FOLDERS = {
    "agh": ".agh/agents",
    "claude": ".claude/agents",
    "codex": ".codex/agents",
    "copilot": ".copilot/agents",
    "cursor": ".cursor/agents",
    "defect": ".config/defect/agents",
    "gemini": ".gemini/agents",
    "kilo": ".config/kilo/agents",
    "opencode": ".config/opencode/agents",
    "qwen": ".qwen/agents",
    "qoder": ".qoder/agents",
    "droid": ".factory/droids",
}
RECURSIVE = {"claude", "codex", "copilot", "kilo", "opencode", "qoder"}


def test_every_harness_is_covered() -> None:
    assert sorted(AGENT_FOLDERS) == sorted(codec_names())


@pytest.mark.parametrize("harness", sorted(AGENT_FOLDERS))
def test_files_the_harness_does_not_load_are_reported(harness: str, tmp_path: Path) -> None:
    folder = f"home/{AGENT_FOLDERS[harness]}"
    found = discover_in(
        get_codec(harness),
        tmp_path,
        {
            f"{folder}/notes.txt": "not an agent",
            f"{folder}/more/other.txt": "not an agent either",
            f"{folder}/.DS_Store": "hidden",
            f"{folder}/.hidden/x.txt": "hidden",
        },
    )
    assert found.profiles == () and not found.refused
    reported = sorted(
        Path(d.path).relative_to(tmp_path / folder).as_posix()
        for d in found.diagnostics
        if d.code == "harness-ignored" and not d.is_error
    )
    if harness in RECURSIVE:
        assert reported == ["more/other.txt", "notes.txt"]
    else:
        assert reported == ["more", "notes.txt"]
    assert all(d.code == "harness-ignored" for d in found.diagnostics)
