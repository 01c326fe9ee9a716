"""The network surface never serves a file a symlink leads outside the vault (issue 11): the
refusal is the one error payload, with the diagnostic naming the link, and HTTP 403."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx

MARKER = "OUTSIDE-THE-VAULT"


def test_a_profile_behind_a_link_is_refused_over_http(served: str, vault: Path) -> None:
    outside = vault.parent / "outside"
    shutil.move(vault / "agent-types/coding", outside)
    profile = outside / "profile.md"
    profile.write_text(profile.read_text().replace("Coding Agent", MARKER))
    (vault / "agent-types/coding").symlink_to(outside, target_is_directory=True)
    response = httpx.post(f"{served}/api/get_profile", json={"id": "coding"})
    assert response.status_code == 403
    assert MARKER not in response.text
    error = response.json()["error"]
    assert error["code"] == "path-outside-vault"
    assert [(d["path"], d["code"]) for d in error["diagnostics"]] == [
        ("agent-types/coding", "path-outside-vault")
    ]
    before = profile.read_bytes()
    edit = httpx.post(
        f"{served}/api/edit_profile",
        json={"id": "coding", "base_hash": "0" * 32, "description": "changed by the API"},
    )
    assert edit.status_code == 403
    assert profile.read_bytes() == before
