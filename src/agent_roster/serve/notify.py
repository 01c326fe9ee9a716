"""Notifications: "an error notification is sent" (seed 000 §3), and so is the recovery.

Sync records a ``failure`` event once per broken content and a ``recovery`` when the file
is good again (never once per sync), so forwarding exactly those events notifies once per
problem. :class:`Notifier` subscribes to the sync bus and hands each such event to every
sink configured in roster.toml ``[notify]``:

* a **webhook** POSTs the event JSON, with a timeout, retries with exponential backoff, and a
  bounded queue (the oldest undelivered event is dropped when it is full, and counted);
* a **command** runs an argv (never a shell) with the event JSON on stdin, with a timeout.

The tables are read by :mod:`agent_roster.resolve.notify_config` with the rest of
roster.toml.

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

from agent_roster.redact import redact_data, redact_text
from agent_roster.resolve.notify_config import CommandConfig, NotifyConfig, WebhookConfig
from agent_roster.store.events import SyncEvent

log = logging.getLogger(__name__)

#: Event kinds that are notified.
NOTIFIED = frozenset({"failure", "recovery"})


def event_json(event: SyncEvent) -> dict[str, Any]:
    """The JSON form of an event, as every sink and the SSE stream send it, its secrets
    masked (a failure's diagnostics may quote the broken file)."""
    data: dict[str, Any] = redact_data(msgspec.to_builtins(event))
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
    """One line for ``roster up``'s output, its secrets masked."""
    where = event.path or event.entry_id
    if event.kind == "failure":
        errors = [d for d in event.diagnostics if d.is_error] or list(event.diagnostics)
        if not errors:
            return redact_text(f"sync failed  {where}: {event.message}")
        # The diagnostic's own "path:line:col: severity[code] message" says where.
        first = errors[0].format().splitlines()[0]
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        shown = first if first.startswith(f"{where}:") else f"{where}: {first}"
        return redact_text(f"sync failed  {shown}{more}")
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

    def replace(self, sinks: Iterable[Sink]) -> None:
        """New sinks from now on (roster.toml changed); the old ones finish what they are
        delivering on their own threads, so this never waits on a receiver."""
        previous, self.sinks = self.sinks, list(sinks)
        for sink in previous:
            sink.close(timeout=0)

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
