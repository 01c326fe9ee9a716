"""A render never widens (issue 12 item 2): every agent file is checked by its harness's rules.

``Codec.render`` translates; this module decides what may be written. For each rendered
agent it asks the target harness (``Codec.decide``, by that harness's own rules and
defaults) about the calls the profile restricts (``semantics.check_probes``). When the
target would allow more than the profile (``allow`` where the profile asks or denies,
``ask`` where it denies), the agent is **refused**: its files are not written, an error
diagnostic ``render-widens`` names every such call, and the report lists the agent as
``refused``. Prompt text is not a restriction, so nothing a codec embeds as prose counts.
``--allow-widening`` (``RenderRequest.allow_widening``) writes the agent anyway and
reports each call that widened as ``widened``.
"""

from __future__ import annotations

import bisect
import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from typing import NamedTuple

import msgspec

from agent_roster.codecs.base import (
    Codec,
    Loss,
    LossOutcome,
    NativeAgent,
    Probe,
    ReadExisting,
    Rendering,
    RenderRequest,
)
from agent_roster.codecs.narrowing import (
    Narrowed,
    keys_widened_whole,
    narrow,
    narrow_widened_whole,
)
from agent_roster.codecs.native_md import remembering_written
from agent_roster.codecs.permissions import effective_rules, forget_rules, remembering_rules
from agent_roster.codecs.semantics import canonical_each, check_probes, probe_key, wider
from agent_roster.diagnostics import Diagnostic, make
from agent_roster.errors import RosterError
from agent_roster.model.profile import AgentProfile, PermissionAction

#: Widened calls named in a refusal's message; the report's losses list every one.
SHOWN = 3


class Widening(msgspec.Struct, frozen=True, array_like=True):
    """One call the target would decide more permissively than the profile, and the profile
    field whose rule decides it (``allowed_tools``, ``denied_tools``, ``permission``,
    ``permission_mode``)."""

    probe: str
    profile_says: PermissionAction
    target_says: PermissionAction
    field: str = "permission"
    #: The permission key the call is decided under (what narrowing may make whole).
    key: str = ""

    def text(self, title: str) -> str:
        return (
            f"{self.probe}: the profile says {self.profile_says}, {title} would {self.target_says}"
        )


class _Want(NamedTuple):
    """A check probe and the profile's answer for it (a rule of the profile decides it)."""

    probe: Probe
    action: PermissionAction
    source: str


#: The profile's answers of the render under way, by profile (see :func:`sharing_answers`).
_ANSWERS: ContextVar[dict[int, tuple[AgentProfile, str, frozenset[str], list[_Want]]] | None]
_ANSWERS = ContextVar("roster_render_answers", default=None)


@contextlib.contextmanager
def sharing_answers() -> Iterator[None]:
    """Within this block, the profile's side of the check (its probes and its answers) is
    worked out once per profile for every target rendered, not once per target, and so
    are its effective rules (``permissions.remembering_rules``)."""
    token = _ANSWERS.set({})
    try:
        with remembering_rules():
            yield
    finally:
        _ANSWERS.reset(token)


def forget_answers() -> None:
    """Empty the memos :func:`sharing_answers` keeps (the block stays open). A part of a
    split render has its own profiles, so once it is rendered for every target its answers
    are of no further use; freed then, while another process finishes its part, rather
    than all together after the last one."""
    shared = _ANSWERS.get()
    if shared is not None:
        shared.clear()
    forget_rules()


def _wants(profile: AgentProfile, request: RenderRequest) -> list[_Want]:
    # The probes the profile asks or denies by a rule; the runtime's default decides the
    # others, and a target can never allow more than a rule that allows.
    shared = _ANSWERS.get()
    if shared is not None:
        # Keyed by identity while the block holds the profile, so the key cannot be reused.
        kept = shared.get(id(profile))
        if (
            kept is not None
            and kept[0] is profile
            and kept[1] == request.embedded
            and kept[2] is request.embedded_commands
        ):
            return kept[3]
    found: list[_Want] = []
    rules = effective_rules(profile, embedded=request.embedded)
    if rules:  # a profile that restricts nothing means the harness's defaults
        probes = check_probes(profile, request.embedded)
        answers = canonical_each(
            profile,
            probes,
            embedded=request.embedded,
            commands=request.embedded_commands,
            rules=rules,
        )
        for probe, want in zip(probes, answers, strict=True):
            # Nothing is wider than allow: a call the profile allows needs no question to
            # the target (nearly half of a restricted profile's answers).
            if want.rule is not None and want.action is not PermissionAction.ALLOW:
                found.append(_Want(probe, want.action, want.rule.source))
    if shared is not None:
        shared[id(profile)] = (profile, request.embedded, request.embedded_commands, found)
    return found


def widenings(
    codec: Codec, profile: AgentProfile, agent: NativeAgent, request: RenderRequest
) -> list[Widening]:
    """Every check probe the target decides more permissively than the profile."""
    found = []
    for want in _wants(profile, request):
        got = codec.decide(agent, want.probe)
        if wider(got, want.action):
            key = probe_key(want.probe, request.embedded, request.embedded_commands)
            found.append(Widening(want.probe.describe(), want.action, got, want.source, key))
    return found


def render_guarded(codec: Codec, request: RenderRequest, existing: ReadExisting) -> Rendering:
    """:func:`_render_guarded`, the check reading each file the codec wrote from the
    frontmatter it was written from (``native_md.read_written``), not by parsing it back."""
    with remembering_written():
        return _render_guarded(codec, request, existing)


def _render_guarded(codec: Codec, request: RenderRequest, existing: ReadExisting) -> Rendering:
    """``codec.render``, with every agent the target would let do more than its profile
    refused (or, under ``allow_widening``, reported as widened). An agent that widens only
    because the target cannot decide a tool by argument is written with that tool decided
    whole and stricter instead (``narrowing.py``), and reported. A key the target always
    decides whole (:attr:`Codec.whole_keys`) is made whole before the first render, so the
    usual case needs no second one."""
    by_id = {p.id: p for p in request.profiles}
    first = {} if request.allow_widening else _made_whole(codec, request)
    rendering = codec.render(_narrowed(request, first), existing)
    found = _widened(codec, request, existing, rendering)
    if not found and not first:
        return _in_profile_order(rendering, by_id)
    if request.allow_widening:
        extra = [
            Loss(
                profile=pid,
                field=w.field,
                outcome=LossOutcome.WIDENED,
                detail=w.text(codec.title) + " (written under --allow-widening)",
            )
            for pid, widened in found.items()
            for w in widened
        ]
        # Before the rendering's own: a shared file's losses (reported by the last part of
        # a split render) must follow them there too.
        widened = msgspec.structs.replace(rendering, losses=(*extra, *rendering.losses))
        return _in_profile_order(widened, by_id)
    made = dict(first)
    retried = set()
    for pid in found:
        before = {n.key for n in first[pid][1]} if pid in first else set()
        narrowed, keys = narrow(
            by_id[pid],
            embedded=request.embedded,
            commands=request.embedded_commands,
            only=before | {w.key for w in found[pid]},
        )
        if keys and {n.key for n in keys} != before:
            made[pid] = (narrowed, keys)
            retried.add(pid)
    refused = found.keys() - retried  # no narrowing could help them
    again: dict[str, list[Widening]] = {}
    if retried:
        rendering = codec.render(_narrowed(request, made), existing)
        # Checked against the profiles as written: narrowed is stricter, never the measure.
        again = _widened(codec, request, existing, rendering, only=retried)
    narrowing = [
        Loss(
            profile=pid,
            field="permission",
            outcome=LossOutcome.TRANSLATED,
            detail=key.text(codec.title),
        )
        for pid, (_, keys) in made.items()
        if pid not in again and pid not in refused
        for key in keys
    ]
    # First among each profile's losses, which keeps them before a shared file's (reported
    # by the last part of a split render) in both kinds of render.
    rendering = msgspec.structs.replace(rendering, losses=(*narrowing, *rendering.losses))
    found = {
        pid: again.get(pid) or found[pid] for pid in found if pid not in retried or pid in again
    }
    if not found:
        return _in_profile_order(rendering, by_id)
    paths = _agent_paths(rendering)
    return _refuse(codec, existing, rendering, found, by_id, paths)


def _made_whole(
    codec: Codec, request: RenderRequest
) -> dict[str, tuple[AgentProfile, tuple[Narrowed, ...]]]:
    """The profiles of this part that decide tools of one of the target's whole keys
    differently (``Edit`` allowed, ``Write`` not, both OpenCode's ``edit``), each made
    whole on those keys, and what was made whole: exactly the keys the check would find
    widened after a render (``narrowing.keys_widened_whole``), narrowed as the check's
    retry would narrow them, so the outcome is the same with one render fewer."""
    if not codec.whole_keys:
        return {}
    made = {}
    for profile in request.owned():
        split = keys_widened_whole(
            profile, codec.whole_keys, request.embedded, request.embedded_commands
        )
        if split:
            narrowed, keys = narrow_widened_whole(
                profile, split, embedded=request.embedded, commands=request.embedded_commands
            )
            if keys:
                made[profile.id] = (narrowed, keys)
    return made


def _narrowed(
    request: RenderRequest, made: dict[str, tuple[AgentProfile, tuple[Narrowed, ...]]]
) -> RenderRequest:
    """``request`` with the profiles in ``made`` replaced by their narrowed versions."""
    if not made:
        return request
    profiles = tuple(made[p.id][0] if p.id in made else p for p in request.profiles)
    return msgspec.structs.replace(request, profiles=profiles)


def _agent_paths(rendering: Rendering) -> dict[str, list[str]]:
    paths: dict[str, list[str]] = {}
    for native in rendering.files:
        if native.profile and not native.merged:
            paths.setdefault(native.profile, []).append(native.path)
    return paths


def _in_profile_order(rendering: Rendering, by_id: dict[str, AgentProfile]) -> Rendering:
    """``rendering`` with each profile's losses together, in profile order (a loss of no
    profile last), whatever the codec reported first: the agent's, the shared files' or
    the check's. Stable, so a split render's parts, joined and put in the same order
    (``commands/harness.py``), give the whole render's list."""
    return msgspec.structs.replace(rendering, losses=in_profile_order(rendering.losses, by_id))


def in_profile_order(losses: Iterable[Loss], profiles: Iterable[str]) -> tuple[Loss, ...]:
    """``losses`` stably sorted by the position of their profile among ``profiles``."""
    return tuple(sorted(losses, key=_position_among(profiles)))


def _position_among(profiles: Iterable[str]) -> Callable[[Loss], int]:
    """A loss's sort key: its profile's position among ``profiles``, after them all when
    it has none there."""
    order = {pid: index for index, pid in enumerate(profiles)}
    last = len(order)

    def position(loss: Loss) -> int:
        return order.get(loss.profile, last)

    return position


#: About how many positions placing one loss by binary search looks up, against one per
#: loss for a sort of everything.
MERGE_COST = 20


def joined_in_profile_order(runs: Sequence[Sequence[Loss]], profiles: Iterable[str]) -> list[Loss]:
    """The losses of consecutive parts of a split render, each part's already in profile
    order, in the order :func:`in_profile_order` gives all of them at once. A part's
    losses are its own profiles', after the earlier parts', except a few of the shared
    files' (reported by the last part for profiles anywhere): only those are put in place,
    by binary search, so most losses never have their position looked up (a large render
    reports 100,000 a target)."""
    position = _position_among(profiles)
    joined: list[Loss] = []
    for run in runs:
        if not run:
            continue
        end = position(joined[-1]) if joined else -1
        # The run's losses placed before the end of what is joined (the sort is stable:
        # one of the same profile as the last joined goes after it, where it already is).
        early = bisect.bisect_left(run, end, key=position)
        if not early:
            joined.extend(run)
        elif early * MERGE_COST > len(joined) + len(run):  # a sort looks up fewer positions
            joined = sorted([*joined, *run], key=position)
        else:
            merged: list[Loss] = []
            at = 0
            for loss in run[:early]:
                place = bisect.bisect_right(joined, position(loss), lo=at, key=position)
                merged.extend(joined[at:place])
                merged.append(loss)
                at = place
            merged.extend(joined[at:])
            merged.extend(run[early:])
            joined = merged
    return joined


def _widened(
    codec: Codec,
    request: RenderRequest,
    existing: ReadExisting,
    rendering: Rendering,
    only: Iterable[str] | None = None,
) -> dict[str, list[Widening]]:
    """Each owned agent of ``rendering`` (or just those in ``only``) the target would let do
    more than its profile in ``request``, with the calls that widen."""
    produced = {f.path: f.content for f in (*rendering.context, *rendering.files)}
    on_disk: dict[str, str | None] = {}

    def read(path: str) -> str | None:
        text = produced.get(path)
        if text is not None:
            return text
        # Every probe of every agent asks for the shared config files: read each once.
        if path not in on_disk:
            on_disk[path] = _readable(existing, path)
        return on_disk[path]

    paths = _agent_paths(rendering)
    wanted = None if only is None else set(only)
    found: dict[str, list[Widening]] = {}
    for profile in request.owned():
        if wanted is not None and profile.id not in wanted:
            continue
        own = paths.get(profile.id)
        if not own:
            continue
        agent = NativeAgent(profile.id, tuple(own), read, request.scope, {})
        widened = widenings(codec, profile, agent, request)
        if widened:
            found[profile.id] = widened
    return found


def _refuse(
    codec: Codec,
    existing: ReadExisting,
    rendering: Rendering,
    found: dict[str, list[Widening]],
    by_id: dict[str, AgentProfile],
    paths: dict[str, list[str]],
) -> Rendering:
    # A file every agent shares (an MCP config) is kept as rendered: the servers a refused
    # agent names stay configured, granted to no agent that restricts them (a split render
    # cannot know another part's refusals, and must equal the whole render).
    files = rendering.files
    files = tuple(f for f in files if f.profile not in found)
    losses = [loss for loss in rendering.losses if loss.profile not in found]
    diagnostics: list[Diagnostic] = list(rendering.diagnostics)
    for pid, widened in found.items():
        losses.extend(
            Loss(
                profile=pid,
                field=w.field,
                outcome=LossOutcome.REFUSED,
                detail=w.text(codec.title),
            )
            for w in widened
        )
        stale = [p for p in paths.get(pid, ()) if _readable(existing, p) is not None]
        diagnostics.append(refusal(codec, by_id[pid], widened, stale))
    return Rendering(
        files=files, losses=in_profile_order(losses, by_id), diagnostics=tuple(diagnostics)
    )


def _readable(existing: ReadExisting, path: str) -> str | None:
    # A file the harness cannot read as text holds no settings for it; the codec already
    # reported it (native_io.existing_text).
    try:
        return existing(path)
    except RosterError:
        return None


def refusal(
    codec: Codec,
    profile: AgentProfile,
    widened: Sequence[Widening],
    stale: Sequence[str] = (),
) -> Diagnostic:
    """The ``render-widens`` error for ``profile``, naming every call that would widen
    (and the files of the agent already in the output folder, which are left as they are
    and may allow those calls)."""
    calls = "; ".join(w.text(codec.title) for w in widened[:SHOWN])
    if len(widened) > SHOWN:
        calls += f"; and {len(widened) - SHOWN} more (--json lists every one)"
    message = (
        f"agent '{profile.id}' is not written for {codec.title}: {codec.title} cannot hold "
        f"its restrictions ({calls})"
    )
    if stale:
        message += f"; {', '.join(stale)} already there is left as it is"
    return make(
        "render-widens",
        message,
        path=profile.source or profile.id,
        hint=f"docs/codecs/{codec.name}.md §5 says what {codec.title} can restrict; change "
        "the profile, or render with --allow-widening to write it anyway",
    )


__all__ = [
    "Probe",
    "Widening",
    "in_profile_order",
    "joined_in_profile_order",
    "refusal",
    "render_guarded",
    "sharing_answers",
    "widenings",
]
