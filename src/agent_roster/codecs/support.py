"""The support matrix: what each harness does with each canonical field (issue 16 item 5).

Every codec declares, per canonical field, what its render does with a value there
(:attr:`Codec.support`): ``kept`` (written natively and read back the same), ``translated``
(another native construct), ``embedded`` (prose in the prompt), ``dropped`` (not written,
reported) or ``refused`` (render stops for that profile or server, with an error). A field
may have several outcomes, by value (a deny rule on a whole tool is translated, one on an
argument embedded). ``tests/codecs/test_support_matrix.py`` renders probe profiles through
every codec and checks each declaration is exactly what the render reports, so the matrix
cannot drift from the code; ``roster compare`` prints it and ``docs/codecs/matrix.md`` is
it, generated (``roster compare --markdown``) and kept current by a test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum


class Support(StrEnum):
    """What a render does with a canonical field (README D3, plus ``kept``/``refused``)."""

    KEPT = "kept"
    TRANSLATED = "translated"
    EMBEDDED = "embedded"
    DROPPED = "dropped"
    REFUSED = "refused"


#: The canonical fields the matrix covers, in the order it lists them (``AgentProfile``
#: attributes, and ``prompt`` for the prompt text). ``id`` is every harness's identity and
#: ``extends`` is merged before render, so neither is here.
FIELDS: tuple[str, ...] = (
    "name",
    "description",
    "prompt",
    "model",
    "provider",
    "temperature",
    "top_p",
    "max_turns",
    "max_tokens_per_task",
    "permission_mode",
    "allowed_tools",
    "denied_tools",
    "permission",
    "mcp_servers",
    "mode",
    "color",
    "runtime",
    "agent_name",
    "tags",
    "install",
)

FieldSupport = Mapping[str, tuple[Support, ...]]


def declare(**outcomes: str) -> dict[str, tuple[Support, ...]]:
    """A codec's declaration from space-separated field lists per outcome
    (``declare(kept="name model", dropped="color")``); a field listed under several
    outcomes has them all. Every field of :data:`FIELDS` must be listed, and nothing else."""
    support: dict[str, list[Support]] = {}
    for outcome, fields in outcomes.items():
        for field in fields.split():
            support.setdefault(field, []).append(Support(outcome))
    unknown = sorted(set(support) - set(FIELDS))
    missing = [f for f in FIELDS if f not in support]
    if unknown or missing:
        raise ValueError(f"support declaration: unknown {unknown}, missing {missing}")
    order = list(Support)
    return {f: tuple(sorted(support[f], key=order.index)) for f in FIELDS}


Table = dict[str, dict[str, tuple[Support, ...]]]


def matrix(harnesses: Sequence[str] = ()) -> Table:
    """Field → harness → outcomes, for ``harnesses`` (every codec when empty), in the
    order given; an unknown harness is a usage error (``codecs.get_codec``)."""
    from agent_roster.codecs import codec_names, get_codec

    names = list(dict.fromkeys(harnesses)) or list(codec_names())
    declared = {name: get_codec(name).support for name in names}
    return {field: {name: declared[name][field] for name in names} for field in FIELDS}


def cell(outcomes: Sequence[Support]) -> str:
    return "/".join(outcome.value for outcome in outcomes)


def differs(row: Mapping[str, Sequence[Support]]) -> bool:
    """Whether the harnesses of ``row`` do not all do the same with the field."""
    return len({tuple(outcomes) for outcomes in row.values()}) > 1


def text_table(table: Table) -> str:
    """Aligned columns, one row per field; with several harnesses a row where they differ
    starts with ``*``."""
    names = list(next(iter(table.values()))) if table else []
    rows = [["", "field", *names]]
    for field, row in table.items():
        mark = "*" if len(names) > 1 and differs(row) else ""
        rows.append([mark, field, *(cell(row[name]) for name in names)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


def to_json(table: Table) -> dict[str, object]:
    names = list(next(iter(table.values()))) if table else []
    return {
        "harnesses": names,
        "outcomes": [s.value for s in Support],
        "fields": {
            field: {name: [o.value for o in outcomes] for name, outcomes in row.items()}
            for field, row in table.items()
        },
    }


MARKDOWN_HEAD = """\
# Support matrix

What each harness's render does with each canonical field, as every codec declares it
(`Codec.support`, `src/agent_roster/codecs/support.py`). `tests/codecs/test_support_matrix.py`
renders probe profiles through every codec and checks that each declaration is exactly what
the render reports, and that this page is current. Generated: do not edit; run
`roster compare --markdown > docs/codecs/matrix.md`. `roster compare H1 [H2 ...]` prints
the same for the harnesses you name (`--json` too).

* **kept**: written natively; import reads back the same value.
* **translated**: written as another native construct (a tool alias, a rule folded into an
  allowlist, a server moved to the shared MCP file); `render` says how.
* **embedded**: written as prose in the prompt (`## Roster constraints`). Never a tool or
  permission restriction: prompt text restricts nothing (issue 12 item 2).
* **dropped**: not written (the harness has no place for it); `render` reports it.
* **refused**: the render of that profile (or server) stops with an error naming why; for
  tools and permissions, because the harness would let the agent do more than the profile
  says (`render-widens`; `--allow-widening` writes it and reports what widened).

Several outcomes in a cell depend on the value (a deny on a whole tool is translated, one on
an argument refused). The per-harness pages (`docs/codecs/<harness>.md` §8) give the
details.

"""


def markdown(table: Table) -> str:
    """The matrix as ``docs/codecs/matrix.md``."""
    names = list(next(iter(table.values()))) if table else []
    lines = [
        "| field | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for field, row in table.items():
        lines.append(f"| `{field}` | " + " | ".join(cell(row[n]) for n in names) + " |")
    return MARKDOWN_HEAD + "\n".join(lines) + "\n"
