"""A profile's permission rules as OpenCode's frontmatter ``permission`` map, and back.

The canonical rules already have OpenCode semantics; what render must get right is the
*shape*: one JavaScript object, so a key appears once (its rules grouped), integer-like
keys and patterns are hoisted, and five keys take only an action. Render checks that the
map it writes gives every call the same decision as the effective rule list (README D9),
first as grouped, then with dead rules left out; otherwise the profile is refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from agent_roster.codecs.opencode.js import is_array_index
from agent_roster.codecs.opencode.schema import ACTION_ONLY
from agent_roster.codecs.opencode.scoping import (
    ScopingBlock,
    ScopingTail,
    own_keys,
    scoping_block,
    scoping_tail,
    strip_end,
)
from agent_roster.codecs.permissions import (
    RuleIndex,
    SourcedRule,
    effective_rules,
    key_kind,
    rules_from_config,
    rules_to_config,
    wildcard_match,
)
from agent_roster.codecs.tool_names import canonical_tools, split_ref, to_native
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

_PROBE_HOME = "/home/roster-probe"
#: OpenCode's first built-in rule for every agent (docs/codecs/permissions.md §1.3): what
#: no rule restricts is allowed. Import writes it as the agent's first rule (its default,
#: made explicit); render leaves a rule list's leading copy out, as OpenCode adds it itself
#: (its built-in asks, such as reading ``.env`` files, then stay: stricter, never wider).
OPENCODE_BASELINE = PermissionRule(permission="*", action=PermissionAction.ALLOW)
#: The same rule under a key no agent writes (``**`` matches every key as ``*`` does), for
#: an agent whose own ``*`` key has other patterns: a permission object holds a key once,
#: so the baseline under ``*`` would be grouped with them and move past other keys' rules.
SPARE_BASELINE = PermissionRule(permission="**", action=PermissionAction.ALLOW)
BASELINES = (OPENCODE_BASELINE, SPARE_BASELINE)


class RuleLoss(NamedTuple):
    field: str
    outcome: str  # "translated" | "embedded" | "dropped"
    detail: str


class RenderedRules(NamedTuple):
    """The ``permission`` map to write (``None``: none) as ``config`` followed by ``tail``
    (the trailing ``<server>_*: deny`` keys, shared by every agent of one render and so
    kept apart: see :class:`ScopingTail`), the rules OpenCode will read from it, prose
    constraints for rules it cannot hold, losses, and a refusal reason."""

    config: dict[str, Any] | None
    #: The rules OpenCode reads from ``config`` (the tail's not among them).
    head_rules: tuple[PermissionRule, ...]
    constraints: tuple[str, ...]
    losses: tuple[RuleLoss, ...]
    problem: str
    tail: ScopingTail | None = None

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        """Every rule OpenCode reads from the written map, the scoping denies included."""
        return self.head_rules if self.tail is None else (*self.head_rules, *self.tail.rules)


def _tool_losses(profile: AgentProfile, sourced: list[SourcedRule]) -> list[RuleLoss]:
    # Drop rules for canonical tools OpenCode has no key for (D8) and report lossy names.
    losses: list[RuleLoss] = []
    named = [s for s in sourced if s.source in ("allowed_tools", "denied_tools")]
    names = list(profile.allowed_tools) + list(profile.denied_tools)
    if profile.allowed_tools or profile.tools_exact:
        named = named[1:]  # the leading "*" deny
    for name, rule in zip(names, named, strict=True):
        ref = split_ref(name)
        if ref.server is not None or ref.tool not in canonical_tools():
            continue
        native = to_native("opencode", ref.tool)
        field = "allowed_tools" if rule.source == "allowed_tools" else "denied_tools"
        if native is None:
            sourced.remove(rule)
            losses.append(RuleLoss(field, "dropped", f"{name}: OpenCode has no such tool"))
        elif native.lossy:
            losses.append(RuleLoss(field, "translated", f"{name} → permission key {native.name!r}"))
    return losses


def live_rules(rules: Sequence[PermissionRule]) -> list[PermissionRule]:
    """``rules`` without those a later rule always overrides (they never decide): a later
    rule covers an earlier one when its key is ``*``, the same key, or (for an exact
    earlier key) a wildcard matching it, and its pattern is ``*`` or the same pattern.
    One pass from the end with the later rules indexed, not a pass per rule."""
    live: list[PermissionRule] = []
    later = _LaterRules()
    for rule in reversed(rules):
        if not later.covers(rule):
            live.append(rule)
        later.add(rule)
    live.reverse()
    return live


class _LaterRules:
    """The patterns of the rules seen so far (scanning from the end), by key kind. Keys
    are compared as OpenCode matches them: ``\\`` counts as ``/``."""

    def __init__(self) -> None:
        self.by_key: dict[str, set[str]] = {}
        self.by_exact: dict[str, set[str]] = {}
        self.by_prefix: dict[str, set[str]] = {}
        self.globs: list[PermissionRule] = []

    def add(self, rule: PermissionRule) -> None:
        key = rule.permission
        self.by_key.setdefault(key, set()).add(rule.pattern)
        if not _is_glob(key):
            self.by_exact.setdefault(key.replace("\\", "/"), set()).add(rule.pattern)
            return
        kind, value = key_kind(key)
        if kind == "prefix":
            self.by_prefix.setdefault(value, set()).add(rule.pattern)
        else:
            self.globs.append(rule)

    def covers(self, rule: PermissionRule) -> bool:
        wanted = {"*", rule.pattern}
        key = rule.permission
        if not wanted.isdisjoint(self.by_key.get("*", ())):
            return True
        if not wanted.isdisjoint(self.by_key.get(key, ())):
            return True
        if _is_glob(key):
            return False  # conservative: a glob key is only covered by "*" or itself
        norm = key.replace("\\", "/")
        if not wanted.isdisjoint(self.by_exact.get(norm, ())):
            return True
        for end in range(len(norm) + 1):
            patterns = self.by_prefix.get(norm[:end])
            if patterns and not wanted.isdisjoint(patterns):
                return True
        return any(
            later.pattern in wanted and wildcard_match(key, later.permission)
            for later in self.globs
        )


def writable(rules: Sequence[PermissionRule]) -> tuple[PermissionRule, ...] | None:
    """``rules`` as one permission object holds them (each key once), deciding every call
    as ``rules`` do: as they are, or without the rules later ones override; ``None`` when
    neither keeps every decision."""
    for attempt in _attempts(list(rules)):
        back = rules_from_config(rules_to_config(attempt))
        if first_difference(rules, back) is None:
            return back
    return None


def _attempts(kept: list[PermissionRule]) -> Iterator[list[PermissionRule]]:
    # The rules as they are, then without dead rules; the second only if the first fails
    # (dropping dead rules is quadratic in the number of rules).
    yield kept
    yield live_rules(kept)


def _is_glob(key: str) -> bool:
    return "*" in key or "?" in key


def _moved_keys(want: Sequence[PermissionRule], got: Sequence[PermissionRule]) -> set[str] | None:
    """Keys whose rules differ between the lists (order or content), or ``None`` when a
    glob key is among them. Grouping only moves rules of one key together; a rule of an
    exact key can only change decisions for calls of that same key, so probing those keys
    is enough unless a glob key (which matches other keys' calls) moved."""

    def by_key(rules: Sequence[PermissionRule]) -> dict[str, list[tuple[str, PermissionAction]]]:
        out: dict[str, list[tuple[str, PermissionAction]]] = {}
        for rule in rules:
            out.setdefault(rule.permission, []).append((rule.pattern, rule.action))
        return out

    def order(rules: Sequence[PermissionRule]) -> list[str]:
        return [r.permission for r in rules]

    a, b = by_key(want), by_key(got)
    moved = {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
    # A key whose rules were pulled together from several places moved past other keys.
    seen: set[str] = set()
    previous = None
    for key in order(want):
        if key != previous and key in seen:
            moved.add(key)
        seen.add(key)
        previous = key
    if any(_is_glob(k) for k in moved):
        return None
    return moved


def first_difference(
    want: Sequence[PermissionRule], got: Sequence[PermissionRule]
) -> tuple[str, str] | None:
    """A (permission, argument) probe both lists decide differently, or ``None``. Probes
    are every key written against every pattern written, as literal text (only the keys
    whose rules moved, when no glob key moved)."""
    if list(want) == list(got):
        return None
    moved = _moved_keys(want, got)
    keys = dict.fromkeys(r.permission for r in [*want, *got])
    patterns = dict.fromkeys(r.pattern for r in [*want, *got])
    if moved is not None:
        keys = dict.fromkeys(k for k in keys if k in moved)
        # Only rules that can match a moved key's calls can decide them: its own (keys
        # compare with "\\" as "/") and the wildcard keys.
        norm = {k.replace("\\", "/") for k in moved}
        want = [
            r for r in want if _is_glob(r.permission) or r.permission.replace("\\", "/") in norm
        ]
        got = [r for r in got if _is_glob(r.permission) or r.permission.replace("\\", "/") in norm]
    a, b = RuleIndex(want), RuleIndex(got)
    for key in keys:
        for pattern in patterns:
            if (
                a.decide(key, pattern, home=_PROBE_HOME)[0]
                != b.decide(key, pattern, home=_PROBE_HOME)[0]
            ):
                return key, pattern
    return None


def _moved_first(keys: list[str]) -> str:
    # The first integer-like key if JavaScript's order (such keys first, ascending) differs
    # from ``keys``, else "". Most maps have no such key: one cheap pass decides that.
    indexed = [k for k in keys if k[:1].isdigit() and is_array_index(k)]
    if not indexed:
        return ""
    others = [k for k in keys if not (k[:1].isdigit() and is_array_index(k))]
    return indexed[0] if sorted(indexed, key=int) + others != keys else ""


def _hoisted(config: dict[str, Any]) -> str:
    # The first key or pattern JavaScript would move to the front, or "".
    moved = _moved_first(list(config))
    if moved:
        return moved
    for key, value in config.items():
        if isinstance(value, dict):
            moved = _moved_first([str(p) for p in value])
            if moved:
                return f"{key}: {moved}"
    return ""


def render_rules(
    profile: AgentProfile, block_servers: Sequence[str] | ScopingBlock, *, embedded: str = ""
) -> RenderedRules:
    """The permission map for ``profile``: its effective rules (README D9), then a
    ``<server>_*: deny`` for every server in the ``mcp`` block it does not use (OpenCode
    shows every server to every agent; docs/codecs/opencode.md §6). A render passes the
    block it built once (:func:`scoping_block`) rather than its servers."""
    sourced = list(effective_rules(profile, embedded=embedded))
    effective = tuple(s.rule for s in sourced)
    losses = _tool_losses(profile, sourced)
    sources = {s.source for s in sourced}
    for field in ("permission_mode", "allowed_tools", "denied_tools"):
        if getattr(profile, field):
            folded = field in sources
            detail = (
                "folded into permission rules (D9)"
                if folded
                else "OpenCode's default; nothing written"
            )
            losses.append(RuleLoss(field, "translated", detail))
    if isinstance(block_servers, ScopingBlock):
        block = block_servers
    else:
        block = scoping_block(tuple(block_servers))
    scoping = scoping_tail(profile, block)
    if isinstance(scoping, str):
        return RenderedRules(None, (), (), tuple(losses), scoping)
    # Action-only keys cannot carry patterns: an allow is dropped (narrower), the rest
    # become prose (D4) because dropping them would widen what the agent may do.
    constraints: list[str] = []
    kept: list[PermissionRule] = []
    for source in sourced:
        rule = source.rule
        if rule.permission in ACTION_ONLY and rule.pattern != "*":
            # The key takes no patterns: an allow left out is narrower; an ask or a deny
            # left out would let more through, which the render check refuses (never
            # prose: a prompt restricts nothing).
            text = f"{rule.permission} {rule.pattern!r}: {rule.action.value}"
            if rule.action is PermissionAction.ALLOW:
                losses.append(RuleLoss("permission", "dropped", f"{text} (key takes no patterns)"))
            continue
        kept.append(rule)
    tail = scoping if scoping.size else None
    if not kept and tail is None:
        return RenderedRules(None, (), tuple(constraints), tuple(losses), "")
    # The scoping denies end the list with keys of their own. When no other rule uses one
    # of those keys, grouping leaves them last and in order, and the same suffix keeps two
    # equivalent lists equivalent, so only the head needs grouping and probing, and the
    # suffix is written as it is: a tenth of the rules of an agent in a vault with hundreds
    # of servers. Otherwise (rare) every rule goes through grouping.
    head = kept
    if tail is not None and not own_keys(kept, tail):
        head, tail = [*kept, *tail.rules], None
    written = len(head)
    # A rule for every call (``*`` with pattern ``*``) overrides all rules before it; they
    # are left out at once rather than probed (permission modes put one before the tools).
    universal = [i for i, rule in enumerate(head) if rule.permission == "*" == rule.pattern]
    if universal and universal[-1]:
        head = head[universal[-1] :]
    baseline = bool(head) and head[0] in BASELINES
    if baseline:
        head = head[1:]  # OpenCode's own first rule: not written
        written -= 1
        if not head and tail is None:
            return RenderedRules(None, (), tuple(constraints), tuple(losses), "")
    for attempt in _attempts(head):
        config = rules_to_config(attempt)
        hoisted = _hoisted(config)  # the suffix's keys end in "_*": never integer-like
        if hoisted:
            return RenderedRules(
                None,
                (),
                (),
                tuple(losses),
                f"integer-like permission key or pattern {hoisted!r} would be moved to the "
                "front by JavaScript, changing the rule order",
            )
        back_head = rules_from_config(config)
        if first_difference(head, back_head) is None:
            if len(attempt) != written:
                losses.append(
                    RuleLoss(
                        "permission",
                        "translated",
                        f"{written - len(attempt)} rule(s) overridden by later rules left out "
                        "so each key can be written once",
                    )
                )
            # What import reads back: the trailing whole-server denies stripped (a suffix
            # wholly, and the stripping may go on into the head), the rest its servers.
            # With a tail, its rules follow these (RenderedRules.rules) and are stripped
            # wholly.
            end, hidden = strip_end(back_head, block)
            if tail is None:
                moved = [s for s in block.servers if s in profile.mcp_servers] != [
                    s for s in block.servers if s not in hidden
                ]
            else:
                moved = any(s in hidden for s in profile.mcp_servers if s in block.position)
            stripped = back_head[:end]
            if baseline:
                stripped = (OPENCODE_BASELINE, *stripped)
            if stripped != effective and not any(x.field == "permission" for x in losses):
                losses.append(
                    RuleLoss(
                        "permission",
                        "translated",
                        "rules written as one OpenCode object, each key once (same decisions)",
                    )
                )
            if moved:
                losses.append(
                    RuleLoss(
                        "mcp_servers",
                        "translated",
                        "a whole-server deny ends the rules: read back as 'server not used'",
                    )
                )
            return RenderedRules(config, back_head, tuple(constraints), tuple(losses), "", tail)
    probe = first_difference(head, rules_from_config(rules_to_config(live_rules(head))))
    return RenderedRules(
        None,
        (),
        (),
        tuple(losses),
        "the rules cannot be written as one OpenCode permission object without changing a "
        f"decision (e.g. {probe[0]} {probe[1]!r}): a key's rules would have to appear at two "
        "positions"
        if probe
        else "the rules cannot be written as one permission object",
    )
