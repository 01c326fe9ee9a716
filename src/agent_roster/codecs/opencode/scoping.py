"""The scoping denies of a rendered OpenCode agent: ``<server>_*: deny`` for every server of
the render's ``mcp`` block the agent does not use, ending its ``permission`` map.

OpenCode gives every agent every configured MCP server; these denies take away the ones a
profile does not name (docs/codecs/opencode.md). A block is what every agent of one
render shares about them; an agent's :class:`ScopingTail` says which servers it keeps.
Import strips them again (:func:`strip_scoping`).
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple, TypeVar

from agent_roster.codecs.permissions import key_kind
from agent_roster.codecs.tool_names import opencode_mcp_key
from agent_roster.model.profile import AgentProfile, PermissionAction, PermissionRule

T = TypeVar("T")


def scoping_key(server: str) -> str:
    """The permission key that covers every tool of ``server`` (``<server>_*``)."""
    return opencode_mcp_key(server, "*")


@dataclasses.dataclass(frozen=True, eq=False)  # compared (and cached on) by identity
class ScopingBlock:
    """What every agent of one render shares about the ``mcp`` block: each server's
    scoping key, position and deny rule, which keys hide which, and the key → server map
    import uses. Built once per block, not once per agent: with hundreds of servers, an
    agent's work must grow with the servers *it* uses, not with the block."""

    servers: tuple[str, ...]
    keys: dict[str, str]  # server -> scoping key
    position: dict[str, int]  # server -> index in ``servers``
    rules: tuple[PermissionRule, ...]  # the scoping deny of each server, block order
    hides: dict[str, tuple[str, ...]]  # server -> other servers' keys its key also covers
    hidden_by: dict[str, tuple[str, ...]]  # key -> servers whose key also covers it
    servers_by_key: dict[str, str]
    #: No two servers share a scoping key (names differing only in characters OpenCode
    #: replaces by ``_``); only then is every unused server's deny a key of its own.
    distinct: bool
    #: Each scoping key without its "*" (what a called key must start with), with the
    #: positions of the servers that have it; ``None`` when a key is not such a plain
    #: prefix key (a server name with a wildcard or "\\"), which only the map read
    #: whole decides.
    prefixes: dict[str, tuple[int, ...]] | None
    #: The lengths of those prefixes, ascending.
    prefix_ends: tuple[int, ...]


@lru_cache(maxsize=16)  # one block per render; a daemon renders few distinct blocks
def scoping_block(servers: tuple[str, ...]) -> ScopingBlock:
    keys = {server: scoping_key(server) for server in servers}
    rules = tuple(
        PermissionRule(permission=keys[server], action=PermissionAction.DENY) for server in servers
    )
    # The keys starting with a prefix are one run of the sorted keys: found by bisection,
    # not by testing every key against every other (a million tests for 1,000 servers).
    ordered = sorted(keys.values())
    hides = {server: _starting_with(ordered, key[:-1], key) for server, key in keys.items()}
    hidden_by: dict[str, list[str]] = {}
    for server, covered in hides.items():
        for key in covered:
            hidden_by.setdefault(key, []).append(server)
    prefixes = _prefixes([keys[server] for server in servers])
    return ScopingBlock(
        servers=servers,
        keys=keys,
        position={server: i for i, server in enumerate(servers)},
        rules=rules,
        hides=hides,
        hidden_by={key: tuple(found) for key, found in hidden_by.items()},
        servers_by_key={key: server for server, key in keys.items()},
        distinct=len(set(keys.values())) == len(keys),
        prefixes=prefixes,
        prefix_ends=tuple(sorted({len(prefix) for prefix in prefixes or ()})),
    )


def _starting_with(ordered: list[str], prefix: str, key: str) -> tuple[str, ...]:
    # The keys of sorted ``ordered`` (repeats kept) that start with ``prefix``, but ``key``.
    found = []
    for other in itertools.islice(ordered, bisect.bisect_left(ordered, prefix), None):
        if not other.startswith(prefix):
            break
        if other != key:
            found.append(other)
    return tuple(found)


def _prefixes(keys: Sequence[str]) -> dict[str, tuple[int, ...]] | None:
    found: dict[str, list[int]] = {}
    for position, key in enumerate(keys):
        if "\\" in key or "\n" in key or key_kind(key) != ("prefix", key[:-1]):
            return None
        found.setdefault(key[:-1], []).append(position)
    return {prefix: tuple(positions) for prefix, positions in found.items()}


class ScopingTail(NamedTuple):
    """The ``<server>_*: deny`` rules ending one agent's map: every server of the block
    except those at ``skip`` (ascending positions), in block order."""

    block: ScopingBlock
    skip: tuple[int, ...]

    def runs(self) -> list[tuple[int, int]]:
        """The runs of block positions between the skipped ones, as ``(start, stop)``:
        k + 1 at most for an agent using k servers, however many exist."""
        out: list[tuple[int, int]] = []
        start = 0
        for position in self.skip:
            if position > start:
                out.append((start, position))
            start = position + 1
        if start < len(self.block.servers):
            out.append((start, len(self.block.servers)))
        return out

    def pieces(self, items: Sequence[T]) -> list[Sequence[T]]:
        """``items`` (one per block server, block order) cut into :meth:`runs`."""
        return [items[start:stop] for start, stop in self.runs()]

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        if not self.skip:
            return self.block.rules
        return tuple(itertools.chain.from_iterable(self.pieces(self.block.rules)))

    @property
    def servers(self) -> tuple[str, ...]:
        return tuple(itertools.chain.from_iterable(self.pieces(self.block.servers)))

    def entries(self) -> dict[str, str]:
        """These denies as the map entries they are written as, in order."""
        return dict.fromkeys((rule.permission for rule in self.rules), "deny")

    @property
    def size(self) -> int:
        return len(self.block.servers) - len(self.skip)

    def denies(self, key: str) -> bool:
        """Whether one of these denies matches a call of permission key ``key`` (the block's
        keys all plain prefix keys: ``block.prefixes`` is set). They end the agent's map,
        so one that matches decides the call: a lookup per prefix length of the block,
        where reading the map whole would mean every server's key."""
        prefixes = self.block.prefixes
        assert prefixes is not None
        for end in self.block.prefix_ends:
            if end > len(key):
                break
            positions = prefixes.get(key[:end])
            if positions is not None and any(p not in self.skip for p in positions):
                return True
        return False


def scoping_tail(profile: AgentProfile, block: ScopingBlock) -> ScopingTail | str:
    """The scoping denies ``profile`` needs, or why they cannot be written: a deny whose
    key also covers a server the agent uses would hide that server too."""
    used_servers = profile.mcp_servers
    skip = tuple(sorted(block.position[s] for s in set(used_servers) if s in block.position))
    tail = ScopingTail(block, skip)
    if not used_servers:
        return tail
    used = {scoping_key(s) for s in used_servers}
    # Only a server whose key covers a used key can clash: look those up from the used
    # keys instead of testing every server of the block.
    candidates = {s for u in used for s in block.hidden_by.get(u, ())}
    if any(u not in block.servers_by_key for u in used):  # used, but outside the block
        candidates.update(
            server
            for server, key in block.keys.items()
            if any(u != key and u.startswith(key[:-1]) for u in used)
        )
    for server in sorted(candidates - set(used_servers), key=block.position.__getitem__):
        key = block.keys[server]
        hidden = block.hides[server]
        clash = [u for u in hidden if u in used] if hidden else []
        if not clash and any(u not in block.servers_by_key for u in used):
            clash = sorted(u for u in used if u != key and u.startswith(key[:-1]))
        if clash:
            return f"hiding server {server!r} with {key!r} would also hide {clash[0]!r}"
    return tail


def own_keys(head: Sequence[PermissionRule], tail: ScopingTail) -> bool:
    """Whether each scoping deny in ``tail`` has a key no other rule uses."""
    if not tail.block.distinct:
        return False
    skipped = {tail.block.servers[i] for i in tail.skip}
    for rule in head:
        server = tail.block.servers_by_key.get(rule.permission)
        if server is not None and server not in skipped:
            return False
    return True


def strip_end(rules: Sequence[PermissionRule], block: ScopingBlock) -> tuple[int, set[str]]:
    # Where the trailing whole-server denies start, and the servers they hide.
    keys = block.servers_by_key
    hidden: set[str] = set()
    end = len(rules)
    while end > 0:
        rule = rules[end - 1]
        server = keys.get(rule.permission)
        if server is None or rule.pattern != "*" or rule.action is not PermissionAction.DENY:
            break
        hidden.add(server)
        end -= 1
    return end, hidden


def strip_scoping(
    rules: Sequence[PermissionRule], servers: Sequence[str]
) -> tuple[tuple[PermissionRule, ...], tuple[str, ...]]:
    """Import: the trailing ``<server>_*: deny`` rules render adds, removed; returns the
    remaining rules and the servers the agent keeps (block order)."""
    end, hidden = strip_end(rules, scoping_block(tuple(servers)))
    return tuple(rules[:end]), tuple(s for s in servers if s not in hidden)
