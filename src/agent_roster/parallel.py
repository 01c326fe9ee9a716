"""Run a function over chunks of work in forked worker processes and in this one, and get
the results back in order (issue 3: a cold sync of 10,000 files may use every core).

Why not ``concurrent.futures.ProcessPoolExecutor``: nothing ends its workers when the parent
is killed with SIGKILL (the crash test does that), so they could linger holding the
parent's stdout open; and its parent only waits, which on a 2-core machine wastes half the
cores. Here:

* Workers are forked, so the work list, the vault bookkeeping and the imported parser are
  already there: only results cross a pipe, pickled once per chunk.
* Chunks are claimed through a pipe of tickets that the parent fills before forking and
  closes, so claims need no lock and run out with EOF. The parent claims chunks as well
  whenever the result it needs next is not ready, so it never idles while work remains, and
  with no worker it simply does everything itself.
* A worker dies with its parent (``PR_SET_PDEATHSIG``; a write to the closed pipe ends it
  too) and ignores SIGINT, which the parent handles by killing and reaping its workers. A
  worker that fails on a chunk reports that and the parent does the chunk itself, so every
  error surfaces in this process with its normal traceback.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import select
import signal
import struct
import sys
import time
from collections.abc import Callable, Generator, Sequence
from typing import Generic, NoReturn, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_TICKET = struct.Struct("!I")
#: A result frame: chunk index, then the payload's length (``-1``: the worker failed on it).
_HEADER = struct.Struct("!Iq")
_FAILED = -1
_PR_SET_PDEATHSIG = 1
_MAX_CHUNKS = 60_000 // _TICKET.size
#: Bytes a result pipe may hold, so a worker runs on while this process is busy elsewhere.
_PIPE_SIZE = 1 << 20


def available_workers() -> int:
    """Worker processes worth forking: one per usable CPU beyond this process's own. Zero
    where ``fork`` is not a safe way to start one (only Linux is assumed to be)."""
    if sys.platform != "linux":
        return 0
    return max(0, len(os.sched_getaffinity(0)) - 1)


def ordered_map(
    fn: Callable[[T], R],
    chunks: Sequence[T],
    workers: int,
    *,
    encode: Callable[[R], bytes] | None = None,
    decode: Callable[[bytearray], R] | None = None,
) -> Generator[R, None, None]:
    """``fn(chunk)`` for every chunk, in order, computed by up to ``workers`` forked
    processes and this one. ``fn`` and the chunks reach the workers by ``fork``; a
    worker's results come back pickled, or through ``encode``/``decode`` when given (both
    or neither: msgpack, say, for results pickle is slow on). Results computed in this
    process are returned as they are. Close the iterator (or exhaust it) to reap the
    workers."""
    # The tickets must fit the pipe (64 KiB) before any worker reads one.
    if workers < 1 or not 2 <= len(chunks) <= _MAX_CHUNKS:
        return (fn(chunk) for chunk in chunks)
    pool = _Pool(fn, chunks, min(workers, len(chunks) - 1))
    if encode is not None and decode is not None:
        pool.encode, pool.decode = encode, decode
    return pool.results()


def _pickled(result: object) -> bytes:
    return pickle.dumps(result, protocol=5)


class _Pool(Generic[T, R]):
    def __init__(self, fn: Callable[[T], R], chunks: Sequence[T], workers: int) -> None:
        self.fn = fn
        self.chunks = chunks
        self.workers = workers
        self.encode: Callable[[R], bytes] = _pickled
        self.decode: Callable[[bytearray], R] = pickle.loads  # written by our own fork
        self.tickets = -1
        self.pids: list[int] = []
        #: Result pipes still open, each with the frame being read from it.
        self.pipes: dict[int, _Inbox] = {}
        self.done: dict[int, bytearray | None] = {}
        #: Chunks done here while a worker had them; the worker's copy is dropped.
        self.redone: set[int] = set()
        #: About how long one chunk takes here (None until one has been done).
        self.pace: float | None = None

    def results(self) -> Generator[R, None, None]:
        mine: dict[int, R] = {}
        try:
            self._start()
            for index in range(len(self.chunks)):
                yield self._next(index, mine)
        finally:
            self._stop()

    # -- the parent ----------------------------------------------------------------------------
    def _start(self) -> None:
        read_end, write_end = os.pipe()
        self.tickets = read_end
        with os.fdopen(write_end, "wb") as out:  # a few bytes per chunk: fits the pipe
            out.write(b"".join(_TICKET.pack(i) for i in range(len(self.chunks))))
        parent = os.getpid()
        for _ in range(self.workers):
            results, sink = os.pipe()
            _widen(sink)
            try:
                pid = os.fork()
            except OSError:  # no memory or process slots left: fewer workers, same results
                os.close(results)
                os.close(sink)
                break
            if pid == 0:
                os.close(results)
                self._work(parent, sink, list(self.pipes))
            os.close(sink)
            os.set_blocking(results, False)
            self.pipes[results] = _Inbox()
            self.pids.append(pid)

    def _next(self, index: int, mine: dict[int, R]) -> R:
        while True:
            if index in mine:
                return mine.pop(index)
            self._receive(0.0)
            if index in self.done:
                payload = self.done.pop(index)
                if payload is None:  # the worker failed on it: doing it here raises properly
                    return self._run(index)
                return self.decode(payload)
            claimed = self._claim()
            if claimed is not None:  # rather than wait, do the next unclaimed chunk here
                mine[claimed] = self._run(claimed)
            elif not self.pipes or not self._receive(None if self.pace is None else 2 * self.pace):
                # A worker has it, but every worker has gone, or it is well past the time a
                # chunk takes (on a busy machine a worker can wait long for a CPU): do it
                # here, and drop the worker's copy if it still comes.
                self.redone.add(index)
                return self._run(index)

    def _run(self, index: int) -> R:
        """``fn`` on one chunk here, keeping :attr:`pace` (about how long a chunk takes)."""
        started = time.perf_counter()
        result = self.fn(self.chunks[index])
        took = time.perf_counter() - started
        self.pace = took if self.pace is None else (self.pace + took) / 2
        return result

    def _claim(self) -> int | None:
        ticket = os.read(self.tickets, _TICKET.size)
        return _TICKET.unpack(ticket)[0] if len(ticket) == _TICKET.size else None

    def _receive(self, timeout: float | None) -> bool:
        """Take in whatever the workers have sent, waiting up to ``timeout`` seconds (None:
        for as long as it takes) for something to come; False if nothing came. Read between
        chunks rather than by a thread: a reader thread contends for the GIL with the
        parsing and writing this process does meanwhile."""
        if not self.pipes:
            return False
        readable, _, _ = select.select(list(self.pipes), [], [], timeout)
        for fd in readable:
            inbox = self.pipes[fd]
            while True:
                try:
                    more = inbox.read(fd)
                except BlockingIOError:
                    break
                if not more:  # the worker is gone
                    del self.pipes[fd]
                    os.close(fd)
                    break
            for index, payload in inbox.finished:
                if index in self.redone:
                    self.redone.discard(index)
                else:
                    self.done[index] = payload
            inbox.finished.clear()
        return bool(readable)

    def _stop(self) -> None:
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError):  # it may have finished
                os.kill(pid, signal.SIGKILL)
        for pid in self.pids:
            os.waitpid(pid, 0)
        for fd in self.pipes:
            os.close(fd)
        if self.tickets >= 0:
            os.close(self.tickets)
        self.pids.clear()
        self.pipes.clear()
        self.tickets = -1

    # -- a worker ------------------------------------------------------------------------------
    def _work(self, parent: int, sink: int, inherited: list[int]) -> NoReturn:
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            _die_with(parent)
            for fd in inherited:
                os.close(fd)
            # Keep the collector off the objects inherited from the parent: touching them
            # would copy their pages into this process.
            gc.freeze()
            with os.fdopen(sink, "wb") as out:
                while (index := self._claim()) is not None:
                    try:
                        payload = self.encode(self.fn(self.chunks[index]))
                    except Exception:
                        out.write(_HEADER.pack(index, _FAILED))
                    else:
                        out.write(_HEADER.pack(index, len(payload)))
                        out.write(payload)
                    out.flush()
            code = 0
        finally:
            os._exit(code)  # no atexit handlers, no flushing of the parent's buffers


class _Inbox:
    """The frame being read from one worker's pipe: its header, then its payload, each read
    straight into a buffer of its exact size. A large load's results are hundreds of MB (a
    vault of long prompts); reading them into one growing buffer and slicing each frame out
    copied every byte three more times, into freshly allocated memory each time, which made
    this process, not the parsing, what a parallel load waited for."""

    __slots__ = ("filled", "finished", "header", "index", "payload")

    def __init__(self) -> None:
        self.header = bytearray(_HEADER.size)
        self.payload: bytearray | None = None
        self.index = -1
        self.filled = 0
        #: Frames read completely, as (chunk index, payload or None: the worker failed).
        self.finished: list[tuple[int, bytearray | None]] = []

    def read(self, fd: int) -> bool:
        """One read from ``fd`` (non-blocking: ``BlockingIOError`` when it has nothing);
        False at end of file."""
        target = self.header if self.payload is None else self.payload
        got = os.readv(fd, [memoryview(target)[self.filled :]])
        if not got:
            return False
        self.filled += got
        if self.filled < len(target):
            return True
        self.filled = 0
        if self.payload is None:
            index, size = _HEADER.unpack(self.header)
            if size <= 0:  # nothing follows: a failure, or an empty payload
                self.finished.append((index, None if size == _FAILED else bytearray()))
            else:
                self.index, self.payload = index, bytearray(size)
        else:
            self.finished.append((self.index, self.payload))
            self.payload = None
        return True


def _die_with(parent: int) -> None:
    """Have the kernel kill this process when its parent dies (Linux)."""
    import ctypes  # only workers need it

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _widen(fd: int) -> None:
    """Grow a pipe's buffer towards :data:`_PIPE_SIZE` (Linux; capped by
    ``/proc/sys/fs/pipe-max-size``). Without it a worker stalls after 64 KiB of results."""
    import fcntl  # POSIX only, and only workers' pipes need it

    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
