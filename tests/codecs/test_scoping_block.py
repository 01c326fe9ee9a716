"""The scoping block's table of which server keys hide which, found by bisection over the
sorted keys, equals the definition: every other key that starts with a key's prefix."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_roster.codecs.opencode.scoping import scoping_block, scoping_key

# Short names over few characters, so that prefixes of one another are common.
_servers = st.lists(st.text(alphabet="ab_-.c", min_size=1, max_size=4), max_size=30)


@settings(max_examples=300, deadline=None)
@given(servers=_servers)
def test_hides_is_every_other_key_a_key_covers(servers: list[str]) -> None:
    servers = list(dict.fromkeys(servers))
    block = scoping_block(tuple(servers))
    keys = {server: scoping_key(server) for server in servers}
    for server, key in keys.items():
        expected = sorted(o for o in keys.values() if o != key and o.startswith(key[:-1]))
        assert block.hides[server] == tuple(expected)
    hidden_by: dict[str, list[str]] = {}
    for server, key in keys.items():
        for other in keys.values():
            if other != key and other.startswith(key[:-1]):
                hidden_by.setdefault(other, []).append(server)
    assert {k: sorted(v) for k, v in block.hidden_by.items()} == {
        k: sorted(v) for k, v in hidden_by.items()
    }


def test_a_key_covering_others_hides_them_and_not_itself() -> None:
    block = scoping_block(("gh_y", "gh", "gh_x", "gh-x", "other"))
    assert block.hides["gh"] == ("gh_x_*", "gh_y_*")  # "gh-x_*" does not start with "gh_"
    assert block.hides["gh_x"] == ()
    assert block.hidden_by["gh_x_*"] == ("gh",)
    assert block.hides["other"] == ()
