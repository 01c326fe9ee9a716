"""In-process publish/subscribe for sync events (``roster up``'s notifier and its
``/events`` streams listen)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from agent_roster.store.events import SyncEvent

log = logging.getLogger(__name__)

Subscriber = Callable[[SyncEvent], None]


class EventBus:
    """Delivers each published event to every subscriber, in subscription order. A failing
    subscriber is logged and does not stop delivery to the others."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Register ``callback``; returns a function that unsubscribes it."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: SyncEvent) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(event)
            except Exception:
                log.exception("sync event subscriber %r failed", callback)
