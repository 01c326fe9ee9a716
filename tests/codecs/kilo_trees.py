"""Workspaces and homes that show Kilo's layering and refusals, shared by the codec tests
(what ``discover`` reports, tests/codecs/test_kilo.py) and the real-CLI acceptance
(what ``kilo debug config`` / ``kilo agent list`` load from the same files,
tests/codecs/test_kilo_cli.py)."""

from __future__ import annotations

import json


def agent(description: str, extra: str = "") -> str:
    return f"---\ndescription: {description}\n{extra}---\n\nPrompt of {description}.\n"


#: Every place Kilo reads agents from, one agent each, and one agent ``dup`` in five of
#: them setting a different field each, to show the merge order.
LAYERS_HOME = {
    ".config/kilo/agent/g1.md": agent("g1 global agent dir"),
    ".config/kilo/agents/g2.md": agent("g2 global agents dir"),
    ".config/kilo/kilo.json": json.dumps(
        {"agent": {"j1": {"description": "j1 global json", "mode": "subagent"}}}
    ),
    ".kilo/agent/h1.md": agent("h1 home dot-kilo"),
    ".kilocode/agent/h2.md": agent("h2 home dot-kilocode"),
    ".config/kilo/agent/dup.md": agent("dup from global", "temperature: 0.1\n"),
    ".kilo/agent/dup.md": agent("dup from home kilo", "color: '#ff0000'\n"),
    ".kilocode/agent/dup.md": agent("dup from home kilocode", "mode: subagent\n"),
}
LAYERS_WORKSPACE = {
    ".kilo/agent/p1.md": agent("p1 project kilo agent"),
    ".kilo/agents/p2.md": agent("p2 project kilo agents"),
    ".kilo/agents/sub/p3.md": agent("p3 nested"),
    ".kilocode/agent/p4.md": agent("p4 project kilocode"),
    ".opencode/agents/oc.md": agent("oc opencode dir"),
    ".kilo/mode/m1.md": agent("m1 mode dir"),
    "kilo.json": json.dumps(
        {
            "agent": {
                "j2": {"description": "j2 project root json"},
                "dup3": {"description": "dup3 json", "temperature": 0.3},
                "r1": {"description": "r1 kilo.json", "temperature": 0.1},
            }
        }
    ),
    "kilo.jsonc": json.dumps({"agent": {"r1": {"description": "r1 kilo.jsonc", "top_p": 0.2}}}),
    "opencode.json": json.dumps({"agent": {"j4": {"description": "j4 root opencode.json"}}}),
    ".kilo/kilo.jsonc": "// a comment\n"
    + json.dumps({"agent": {"j3": {"description": "j3 .kilo jsonc"}}}),
    ".kilocode/agent/dup.md": agent("dup from ws kilocode", "top_p: 0.5\n"),
    ".kilo/agent/dup.md": agent("dup from ws kilo", "steps: 3\n"),
    ".kilo/agent/dup3.md": agent("dup3 md"),
}
#: What Kilo 7.7.9 loads from them (``kilo debug config``): name → (description, the
#: other settings).
LAYERS_LOADED = {
    "g1": ("g1 global agent dir", {}),
    "g2": ("g2 global agents dir", {}),
    "j1": ("j1 global json", {"mode": "subagent"}),
    "h1": ("h1 home dot-kilo", {}),
    "h2": ("h2 home dot-kilocode", {}),
    "p1": ("p1 project kilo agent", {}),
    "p2": ("p2 project kilo agents", {}),
    "sub/p3": ("p3 nested", {}),
    "p4": ("p4 project kilocode", {}),
    "m1": ("m1 mode dir", {"mode": "primary"}),
    "j2": ("j2 project root json", {}),
    "j3": ("j3 .kilo jsonc", {}),
    "j4": ("j4 root opencode.json", {}),
    "r1": ("r1 kilo.jsonc", {"temperature": 0.1, "top_p": 0.2}),
    # Deep merge, later layer wins: ~/.config/kilo, the project's .kilocode and .kilo,
    # then ~/.kilocode and ~/.kilo.
    "dup": (
        "dup from home kilo",
        {"temperature": 0.1, "top_p": 0.5, "steps": 3, "mode": "subagent", "color": "#ff0000"},
    ),
    "dup3": ("dup3 md", {"temperature": 0.3}),  # markdown after the JSON files
}

#: Files Kilo skips alone (the rest loads), each with why.
REFUSED_WORKSPACE = {
    ".kilo/agents/ok.md": agent("ok loads"),
    ".kilo/agents/bad-type.md": agent("bad type", "temperature: hot\n"),
    ".kilo/agents/bad-mode.md": agent("bad mode", "mode: weird\n"),
    # A reference in the prompt skips a project agent; Kilo reads frontmatter as it is.
    ".kilo/agents/env-ref.md": "---\ndescription: env ref\n---\n\nUse {env:T} here.\n",
    ".kilo/agents/fm-ref.md": agent("frontmatter ref", "model: '{env:MODEL}'\n"),
    ".kilo/agents/unknown-key.md": agent("unknown key", "foo: bar\n"),
    ".kilo/agents/no-front.md": "Just a body, no frontmatter.\n",
    ".kilo/agents/bad-yaml.md": "---\ndescription: [unclosed\n---\nBody.\n",
    # A schema error in one agent skips the whole file: ok2 is not loaded either.
    ".kilo/kilo.jsonc": json.dumps(
        {"agent": {"bad": {"temperature": "x"}, "ok2": {"description": "same file as bad"}}}
    ),
    # A variable reference skips a project file; in headers only that server.
    "kilo.json": json.dumps(
        {
            "agent": {"ref": {"description": "file with a reference"}},
            "mcp": {"m1": {"type": "local", "command": ["x"], "environment": {"T": "{env:T}"}}},
        }
    ),
    ".kilocode/kilo.json": json.dumps(
        {
            "agent": {"hdr": {"description": "file with a header reference"}},
            "mcp": {
                "plain": {"type": "local", "command": ["nosuch-plain"]},
                "hdrsrv": {
                    "type": "remote",
                    "url": "http://127.0.0.1:9/mcp",
                    "headers": {"Authorization": "Bearer {env:T}"},
                },
            },
        }
    ),
    ".kilo/kilo.json": '{"agent": {"broken": {"description": "x"}},,}',
}
REFUSED_HOME = {
    # The user's own files may hold references: Kilo substitutes them.
    ".config/kilo/agents/uref.md": "---\ndescription: user ref\n---\n\nUse {env:T} here.\n",
}
#: What Kilo loads from them.
REFUSED_LOADED = frozenset({"ok", "fm-ref", "unknown-key", "no-front", "bad-yaml", "hdr", "uref"})
