"""``Codec.decide`` for harnesses whose agent files hold whole-tool lists (Qoder, Droid).

Their codecs read an agent file back into a profile exactly as the harness honours it
(``codecs/toolset.py``, tests/codecs/test_never_widen_toolsets.py), so the harness's
decision for a call is that profile's canonical one, with the harness's own default where
no rule speaks. Where the harness may run a tool without asking (Droid's autonomy levels)
``ask`` is read as ``allow``: the render check must assume the most the harness may do.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from agent_roster.codecs.base import NativeAgent, Probe
from agent_roster.codecs.permissions import SourcedRule, unremembered_rules
from agent_roster.codecs.semantics import ALLOW, ASK, DENY, agent_text, canonical
from agent_roster.model.profile import AgentProfile, PermissionAction

ReadText = Callable[[str, str], AgentProfile | None]


def decide(
    agent: NativeAgent,
    probe: Probe,
    read_text: ReadText,
    *,
    default: PermissionAction,
    asks: bool,
) -> PermissionAction:
    """The harness's decision for ``probe`` made by ``agent`` (module docstring):
    ``default`` where no rule of the agent speaks; ``asks``: whether it can ask at all."""
    text = agent_text(agent)
    if text is None:
        return DENY
    read = _read(read_text, text, agent.paths[0] if agent.paths else "")
    if read is None:
        return DENY
    profile, rules = read
    found = canonical(profile, probe, rules=rules)
    action = default if found.rule is None else found.action
    return ALLOW if action is ASK and not asks else action


# A render check asks each agent its probes one after another: a few agents' readings are
# enough. Their rules are worked out here rather than through effective_rules' memo, which
# would keep every profile read back, with its whole prompt, until the render ends (on a
# vault of 50 KB prompts, half a gigabyte).
@lru_cache(maxsize=64)
def _read(
    read_text: ReadText, text: str, path: str
) -> tuple[AgentProfile, tuple[SourcedRule, ...]] | None:
    profile = read_text(text, path)
    return None if profile is None else (profile, unremembered_rules(profile))
