"""Notifications: "an error notification is sent" (seed 000 §3), and so is the recovery.

Sync records a ``failure`` event once per broken content and a ``recovery`` when the file
is good again (never once per sync), so forwarding exactly those events notifies once per
problem. :class:`Notifier` subscribes to the sync bus and hands each such event to every
sink configured in roster.toml ``[notify]``:

* a **webhook** POSTs the event JSON, with a timeout, retries with exponential backoff, and a
  bounded queue (the oldest undelivered event is dropped when it is full, and counted);
* a **command** runs an argv (never a shell) with the event JSON on stdin, with a timeout.

Each sink delivers from its own thread, so a dead or hanging receiver never blocks a sync.
"""

from __future__ import annotations

import json
import logging
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import msgspec

from agent_roster.store.events import SyncEvent

log = logging.getLogger(__name__)

#: Event kinds that are notified.
NOTIFIED = frozenset({"failure", "recovery"})


class WebhookConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    url: str
    timeout: float = 5.0
    retries: int = 3
    backoff: float = 0.5
    queue: int = 1000


class CommandConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    argv: list[str]
    timeout: float = 10.0
    queue: int = 1000


class NotifyConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """roster.toml ``[notify]``: ``[[notify.webhook]]`` and ``[[notify.command]]`` tables."""

    webhook: list[WebhookConfig] = msgspec.field(default_factory=list)
    command: list[CommandConfig] = msgspec.field(default_factory=list)


def event_json(event: SyncEvent) -> dict[str, Any]:
    """The JSON form of an event, as every sink and the SSE stream send it."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    return data


class Sink(Protocol):
    def submit(self, payload: dict[str, Any]) -> None: ...

    def close(self, timeout: float = 5.0) -> None: ...


class _QueuedSink:
    """A bounded queue and one delivery thread; :meth:`deliver` does the work."""

    name = "sink"

    def __init__(self, size: int) -> None:
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(maxsize=max(1, size))
        self.dropped = 0
        self.delivered = 0
        self.failed = 0
        self._thread = threading.Thread(target=self._run, name=f"roster-{self.name}", daemon=True)
        self._thread.start()

    def submit(self, payload: dict[str, Any]) -> None:
        while True:
            try:
                self._queue.put_nowait(payload)
                return
            except queue.Full:
                try:  # keep the newest: drop the oldest undelivered event
                    self._queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def _run(self) -> None:
        while True:
            payload = self._queue.get()
            if payload is None:
                return
            try:
                ok = self.deliver(payload)
            except Exception:  # a sink must never take the daemon down
                log.exception("%s failed", self.name)
                ok = False
            if ok:
                self.delivered += 1
            else:
                self.failed += 1

    def deliver(self, payload: dict[str, Any]) -> bool:
        raise NotImplementedError

    def close(self, timeout: float = 5.0) -> None:
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(timeout)


class WebhookSink(_QueuedSink):
    name = "webhook"

    def __init__(self, config: WebhookConfig, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self._sleep = sleep
        super().__init__(config.queue)

    def deliver(self, payload: dict[str, Any]) -> bool:
        import httpx

        body = json.dumps(payload, ensure_ascii=False).encode()
        for attempt in range(self.config.retries + 1):
            try:
                response = httpx.post(
                    self.config.url,
                    content=body,
                    headers={"content-type": "application/json", "user-agent": "agent-roster"},
                    timeout=self.config.timeout,
                )
                if response.status_code < 500 and response.status_code != 429:
                    return response.is_success
            except httpx.HTTPError as exc:
                log.warning("webhook %s: %s", self.config.url, type(exc).__name__)
            if attempt < self.config.retries:
                self._sleep(self.config.backoff * 2**attempt)
        return False


class CommandSink(_QueuedSink):
    name = "command"

    def __init__(self, config: CommandConfig) -> None:
        if not config.argv:
            raise ValueError("a notify command needs an argv")
        self.config = config
        super().__init__(config.queue)

    def deliver(self, payload: dict[str, Any]) -> bool:
        try:
            done = subprocess.run(
                self.config.argv,
                input=json.dumps(payload, ensure_ascii=False).encode(),
                capture_output=True,
                timeout=self.config.timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.warning("notify command %s: %s", self.config.argv[0], type(exc).__name__)
            return False
        return done.returncode == 0


def build_sinks(config: NotifyConfig) -> list[Sink]:
    sinks: list[Sink] = [WebhookSink(w) for w in config.webhook]
    sinks.extend(CommandSink(c) for c in config.command)
    return sinks


def describe(event: SyncEvent) -> str:
    """One line for ``roster up``'s output."""
    where = event.path or event.entry_id
    if event.kind == "failure":
        first = event.diagnostics[0].format().splitlines()[0] if event.diagnostics else ""
        more = f" (+{len(event.diagnostics) - 1} more)" if len(event.diagnostics) > 1 else ""
        return f"sync failed  {where}: {first or event.message}{more}"
    if event.kind == "recovery":
        return f"recovered    {where}"
    return f"{event.kind:<12} {where}"


class Notifier:
    """Forwards failure and recovery events to the console line writer and every sink."""

    def __init__(
        self,
        sinks: Iterable[Sink] = (),
        *,
        echo: Callable[[str], None] | None = None,
        kinds: Sequence[str] = tuple(NOTIFIED),
    ) -> None:
        self.sinks = list(sinks)
        self.echo = echo
        self.kinds = frozenset(kinds)

    def __call__(self, event: SyncEvent) -> None:
        if event.kind not in self.kinds:
            return
        if self.echo is not None:
            self.echo(describe(event))
        payload = event_json(event)
        for sink in self.sinks:
            sink.submit(payload)

    def close(self, timeout: float = 5.0) -> None:
        for sink in self.sinks:
            sink.close(timeout)
