"""Small performance helpers shared by the bulk read paths."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


@contextmanager
def paused_gc() -> Iterator[None]:
    """Suspend the cyclic garbage collector for a bulk load.

    Parsing a vault allocates hundreds of thousands of small, acyclic objects that all stay
    alive; the collector would traverse them again and again (about a tenth of a 10,000
    profile load) and find nothing to free. Reference counting still frees everything as
    usual.

    On exit the survivors are moved straight to the oldest generation (``freeze`` then
    ``unfreeze`` splices the generation lists without visiting any object). Otherwise the
    first allocation after re-enabling would run a youngest-generation collection over every
    one of them (about 10 µs per profile), and a middle-generation one later, only to
    promote them there anyway. Nothing escapes collection: the next full collection examines
    them as usual. Skipped when the process has frozen objects of its own, since ``unfreeze``
    would release those too; objects already frozen when this module was first imported are
    taken to be the interpreter's own (CPython 3.12 starts with a few hundred deep-frozen
    tuples in the permanent generation, issue 13), and releasing them is harmless."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() in (0, _FROZEN_AT_START):
                gc.freeze()
                gc.unfreeze()
            gc.enable()


#: The permanent generation's size before any roster code ran: 0 on most versions, the
#: interpreter's own objects on CPython 3.12.
_FROZEN_AT_START = gc.get_freeze_count()


_held: ContextVar[list[object] | None] = ContextVar("held", default=None)


@contextmanager
def holding() -> Iterator[list[object]]:
    """Collect what the commands run inside hand over (:func:`hand_over`) instead of
    freeing. For a caller that ends the process right after (the ``roster`` executable,
    ``cli/app.py``), where freeing a large render's loaded vault object by object (40 ms
    for 10,000 profiles) is time spent for nothing; anywhere else (a daemon, the tests)
    nothing is held."""
    held: list[object] = []
    token = _held.set(held)
    try:
        yield held
    finally:
        _held.reset(token)


def hand_over(*objects: object) -> None:
    """Objects a command is done with: kept by the enclosing :func:`holding`, if any."""
    held = _held.get()
    if held is not None:
        held.extend(objects)
