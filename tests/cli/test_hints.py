"""Every ``roster ...`` command a hint (or any other message) in src/ names exists, takes the
options it is given, and, where the hint says it lists something, lists it (issue 13 item
6: hints pointed at ``roster validate`` "to list" profiles, which lists none).

The strings are read from the source with ``ast`` (f-strings with their placeholders as
``X``); docstrings are left out, they describe rather than instruct. Each command is looked
up in the real click tree.
"""

from __future__ import annotations

import ast
import re
import shlex
import shutil
from pathlib import Path

import click
import pytest

from agent_roster.cli import main
from agent_roster.cli.app import _register, cli

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "agent_roster"
EXAMPLES = REPO / "examples" / "vault"

#: A command in a message: quoted ('roster x', `roster x`) or after "run: " / "it: ".
_QUOTED = re.compile(r"['`]roster ([^'`]+)['`]|(?:run|it): roster ([^;\n]+)")
_GLOBAL_OPTIONS = {"--vault", "--db"}


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                parts.append("X")
        return "".join(parts)
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _commands() -> list[tuple[str, str, str]]:
    """(where, the whole string, the command after ``roster``) for every command named."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if id(node) in skip or (isinstance(node, ast.Constant) and _in_fstring(node, tree)):
                continue
            text = _text(node)
            if text is None:
                continue
            for match in _QUOTED.finditer(text):
                command = (match.group(1) or match.group(2)).strip()
                where = f"{path.relative_to(REPO)}:{node.lineno}"
                found.append((where, text, command))
    return found


def _in_fstring(node: ast.Constant, tree: ast.AST) -> bool:
    parents = getattr(tree, "_fstring_parts", None)
    if parents is None:
        parents = {
            id(value)
            for joined in ast.walk(tree)
            if isinstance(joined, ast.JoinedStr)
            for value in joined.values
        }
        tree._fstring_parts = parents  # type: ignore[attr-defined]
    return id(node) in parents


COMMANDS = _commands()


def _resolve(command: str) -> tuple[click.Command, list[str]]:
    """The click command a hint names, and the rest of its words."""
    _register()
    words = shlex.split(command.replace("(", " ").replace(")", " ").replace("...", " "))
    while words and words[0] in _GLOBAL_OPTIONS:
        words = words[2:]
    assert words, f"no command in {command!r}"
    found: click.Command | None = cli.commands.get(words[0])
    assert found is not None, f"roster has no command {words[0]!r} ({command!r})"
    rest = words[1:]
    while isinstance(found, click.Group):
        assert rest, f"{command!r} names the group {found.name!r} without a command"
        sub = found.commands.get(rest[0])
        assert sub is not None, f"roster {found.name} has no command {rest[0]!r} ({command!r})"
        found, rest = sub, rest[1:]
    return found, rest


def test_messages_name_commands() -> None:
    # The extraction itself works: the known hints are found.
    assert any(cmd.startswith("profile list") for _, _, cmd in COMMANDS)
    assert any(cmd.startswith("mcp add") for _, _, cmd in COMMANDS)
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize(("where", "text", "command"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_every_named_command_exists_with_its_options(where: str, text: str, command: str) -> None:
    found, rest = _resolve(command)
    options = {opt for param in found.params for opt in getattr(param, "opts", ())}
    for word in rest:
        if word.startswith("--"):
            assert word.split("=")[0] in options, (
                f"{where}: 'roster {command}' passes {word}, which "
                f"{found.name} does not take ({sorted(options)})"
            )


# A hint promises a list when it says so outside the command it names ("roster mcp list"
# names a command; "list them with ..." promises one).
LISTING = [(w, t, c) for w, t, c in COMMANDS if re.search(r"\blist\b", t.replace(c, ""))]


@pytest.mark.parametrize(("where", "text", "command"), LISTING, ids=[c[0] for c in LISTING])
def test_a_hint_that_promises_a_list_lists(
    where: str, text: str, command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Run the command on a copy of the example vault (its project for a placeholder):
    every profile id there must be in what it prints."""
    vault = shutil.copytree(EXAMPLES, tmp_path / "vault")
    words = shlex.split(command.replace("X", "webshop"))
    code = main(["--vault", str(vault), *words])
    out = capsys.readouterr().out
    assert code == 0, f"{where}: 'roster {command}' failed"
    ids = [p.parent.name for p in (EXAMPLES / "agent-types").glob("*/profile.md")]
    missing = [pid for pid in ids if pid not in out]
    assert not missing, f"{where}: {text!r} promises a list, but 'roster {command}' omits {missing}"
