"""A split render's parts' losses joined in profile order (codecs/guard.py): the same list
a stable sort of all of them gives, however the parts' losses are spread."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_roster.codecs import guard
from agent_roster.codecs.base import Loss, LossOutcome
from agent_roster.codecs.guard import in_profile_order, joined_in_profile_order

PROFILES = [f"p{index}" for index in range(12)]


def _loss(profile: str, serial: int) -> Loss:
    return Loss(profile=profile, field=f"f{serial}", outcome=LossOutcome.DROPPED, detail="")


@st.composite
def parts(draw: st.DrawFn) -> list[list[Loss]]:
    # Consecutive parts: each reports losses of its own profiles and, like the last part
    # with the shared files, of any profile or of none (""), each part in profile order.
    cuts = sorted(draw(st.lists(st.integers(0, len(PROFILES)), max_size=3)))
    bounds = list(zip([0, *cuts], [*cuts, len(PROFILES)], strict=True))
    serial = 0
    found = []
    for start, stop in bounds:
        own = PROFILES[start:stop] or [""]
        names = draw(st.lists(st.one_of(st.sampled_from(own), st.sampled_from([*PROFILES, ""]))))
        losses = []
        for name in names:
            losses.append(_loss(name, serial))
            serial += 1
        found.append(list(in_profile_order(losses, PROFILES)))
    return found


# Both ways of placing another part's losses: by binary search (a cost of 0 always takes
# it), and by sorting (a cost no render reaches always does).
BOTH_WAYS = pytest.mark.parametrize("cost", [0, 10**9])


@BOTH_WAYS
@given(found=parts())
def test_joined_parts_are_all_losses_sorted_stably(cost: int, found: list[list[Loss]]) -> None:
    guard_cost = guard.MERGE_COST
    guard.MERGE_COST = cost
    try:
        joined = joined_in_profile_order(found, PROFILES)
    finally:
        guard.MERGE_COST = guard_cost
    everything = [loss for part in found for loss in part]
    assert joined == list(in_profile_order(everything, PROFILES))


@BOTH_WAYS
def test_a_few_shared_losses_go_back_beside_their_profiles(
    cost: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "MERGE_COST", cost)
    first = [_loss("p0", 0), _loss("p1", 1), _loss("p1", 2), _loss("p3", 3)]
    last = [_loss("p1", 4), _loss("p6", 5), _loss("", 6)]
    joined = joined_in_profile_order([first, last], PROFILES)
    assert [loss.field for loss in joined] == ["f0", "f1", "f2", "f4", "f3", "f5", "f6"]
