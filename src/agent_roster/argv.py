"""Command lines roster builds: a value from a profile or the registry never becomes an
option (issue 11 item 2).

A profile's ``agent_name`` of ``--approve-all`` once reached acpx as that very flag, so a
plan-mode profile ran with every approval. Two rules close that for every argv roster builds:

* **at parse time** every value that lands in a command line (``agent_name``, ``model``,
  tool names, an MCP server's ``command``, package names) is checked with
  :func:`option_problem`; a value a program would read as an option is an
  ``argv-option-value`` error at its position, so ``roster validate`` names it;
* **at build time** :class:`Argv` places each value where it cannot be read as a new option:
  ``--opt=value`` for options of programs that accept that form (Claude Code, acpx, npm, pip
  and ``gh`` all do: commander, nopt, optparse and pflag split at the first ``=``), and
  positional values checked again (a value from an older database was never validated), or
  after ``--``. A value that fails is refused with :class:`ArgvValueError`, never passed on.

Launch specs (``resolve/launch.py``), ``roster install`` (``commands/install.py``,
``install/environment.py``) and gists (``share/gist.py``) build through :class:`Argv` and the
helpers below; ``sources/git.py`` checks its URL and ref the same way before they reach git.
A test (tests/resolve/test_argv_hostile.py) enumerates every argv with hostile values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent_roster.errors import UsageError

#: The diagnostic code of a value a program would read as an option.
CODE = "argv-option-value"

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SPACE = re.compile(r"\s")


def option_problem(value: str, *, text: bool = False) -> str | None:
    """Why ``value`` cannot be given to a program as a value (``None``: it can). It must
    not be empty, start with ``-`` (an option to any argv parser) or hold a control
    character (a NUL cannot be passed at all; a newline splits what a log shows). A
    ``text`` (a prompt, a description) is always glued to its option, so it may start with
    ``-`` and hold any character (a prompt is the user's, byte for byte; one holding a NUL
    is refused when a program is started with it, :func:`check_runnable`)."""
    if not value:
        return "is empty"
    if text:
        return None
    if value[0] == "-":
        return "starts with '-', so the program would read it as an option"
    if _CONTROL.search(value):
        return "contains a control character"
    return None


def word_problem(value: str) -> str | None:
    """:func:`option_problem`, and no whitespace: for a value a program splits into words
    (acpx runs an unknown agent name as a command line)."""
    problem = option_problem(value)
    if problem is None and _SPACE.search(value):
        return "contains whitespace, so it would be read as several words"
    return problem


def check_runnable(argv: Iterable[str]) -> None:
    """Refuse an argv no program can be started with (a NUL in any element), with a
    clear error instead of the OS's."""
    for part in argv:
        if "\x00" in part:
            raise ArgvValueError(
                "the command line holds a NUL character, which no program can be given",
                hint="remove it from the profile's prompt or settings",
            )


class ArgvValueError(UsageError):
    """A value refused for a command line: it would have been read as an option."""

    kind = "usage"


def _checked(value: str, what: str, program: str, *, word: bool = False, text: bool = False) -> str:
    problem = word_problem(value) if word else option_problem(value, text=text)
    if problem is not None:
        raise ArgvValueError(
            f"{what} {value!r} {problem}; roster does not pass it to {program}",
            hint="fix the value in the vault ('roster validate' shows where it is)",
        )
    return value


class Argv:
    """An argv under construction. Options are literals of roster's own code; every value
    comes in through a method that checks it and places it so it stays a value."""

    def __init__(self, program: str, *fixed: str) -> None:
        self.program = program
        self._parts: list[str] = [program, *fixed]
        self._ended = False

    def flag(self, name: str) -> Argv:
        """A flag roster itself chose (``--deny-all``)."""
        assert name.startswith("-") and not self._ended, name
        self._parts.append(name)
        return self

    def option(self, name: str, value: str, what: str, *, text: bool = False) -> Argv:
        """``--name=value``: the value is glued to its option, so nothing after it can be
        read as the option's value or as a new option. ``text``: free text (a prompt, a
        description), see :func:`option_problem`."""
        assert name.startswith("--") and not self._ended, name
        self._parts.append(f"{name}={_checked(value, what, self.program, text=text)}")
        return self

    def values(self, name: str, values: Iterable[str], what: str) -> Argv:
        """A variadic option (``--allowed-tools A B``): each value checked, since a parser
        reads values until the first one that looks like an option."""
        assert name.startswith("--") and not self._ended, name
        checked = [_checked(v, what, self.program) for v in values]
        self._parts += [name, *checked]
        return self

    def operand(self, value: str, what: str, *, word: bool = False) -> Argv:
        """A positional value before ``--`` (acpx's agent name)."""
        self._parts.append(_checked(value, what, self.program, word=word))
        return self

    def word(self, word: str) -> Argv:
        """A subcommand roster itself chose (``exec``, ``install``)."""
        assert not word.startswith("-"), word
        self._parts.append(word)
        return self

    def stdin(self) -> Argv:
        """``-``: the conventional operand for "read standard input"."""
        self._parts.append("-")
        return self

    def end_options(self) -> Argv:
        """``--``: everything after it is an operand (the prompt, package names)."""
        self._parts.append("--")
        self._ended = True
        return self

    def operands(self, values: Iterable[str], what: str) -> Argv:
        """Operands after ``--``, still checked: a package named ``-e`` is no package."""
        assert self._ended
        self._parts += [_checked(v, what, self.program) for v in values]
        return self

    def build(self) -> list[str]:
        return list(self._parts)


def npm_install(
    packages: Iterable[str], *, npm: str = "npm", global_install: bool = False
) -> list[str]:
    """``npm install`` for an Install manifest's ``npm`` list (validated names)."""
    argv = Argv(npm).word("install")
    if global_install:
        argv.flag("-g")
    argv.flag("--no-audit").flag("--no-fund")
    return argv.end_options().operands(packages, "npm package").build()


def npm_list_global(packages: Iterable[str], *, npm: str = "npm") -> list[str]:
    """``npm ls -g`` filtered to ``packages`` (which of them are installed)."""
    argv = Argv(npm).word("ls").flag("-g").option("--depth", "0", "depth").flag("--json")
    return argv.end_options().operands(packages, "npm package").build()


def pip_install(python: str, requirements: Iterable[str]) -> list[str]:
    """``python -m pip install`` for an Install manifest's ``pip`` list."""
    argv = Argv(python, "-m", "pip").word("install").flag("--disable-pip-version-check")
    return argv.end_options().operands(requirements, "pip requirement").build()


def gh_gist_create(filename: str, description: str, *, gh: str = "gh") -> list[str]:
    """``gh gist create`` of a public gist read from standard input."""
    argv = Argv(gh).word("gist").word("create").flag("--public")
    argv.option("--filename", filename, "gist file name")
    argv.option("--desc", description, "gist description", text=True)
    return argv.stdin().build()


def gh_gist_view(gist_id: str, *, gh: str = "gh") -> list[str]:
    """``gh gist view ID --raw``."""
    return Argv(gh).word("gist").word("view").operand(gist_id, "gist id").flag("--raw").build()
