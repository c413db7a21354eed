"""Memory that warms in the background: a game that starts (or loads) at once, before its
embedding model is loaded, and plays the same as one that waited for it.

Every call a game makes into agent memory and world-fact memory (the listeners' events and
sightings, the contexts agents read, a loaded save's memory state) goes through the game's
``MemoryQueue``. By default the queue applies each call at once, so a game plays exactly as it
always did. A front end that wants its first frame and first turns now builds the game inside
``background_memory()``: the queue then starts loading the embedder in a thread and, until it is
loaded, keeps the calls in order instead of applying them; once it is loaded, they are applied in
that same order (``drain``) and later calls go straight through again. What the engine hands each
call (the event, what the agent sees at that moment) is fixed when the call is made, and nothing
the engine decides reads memory back, so the game's transcript and its saved state are the
same as if every turn had waited for the model: ``settle`` (which waits for the model and
applies the queue) runs before anything reads memory: a save, the journal, the trust an agent
in the player's seat weighs claims by, a context an agent reads. A context an agent only carries
(the autopilot is handed the player's and never reads it) is built in its turn in the queue too.

Games whose memory calls an LLM (the jury, MEMO's LLM paths) keep the old way: their calls are
logged as they happen, so they never wait in a queue.
"""

from __future__ import annotations

import contextvars
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_BACKGROUND: contextvars.ContextVar[Callable[[], Any] | None] = contextvars.ContextVar(
    "parley_background_memory", default=None
)


def _nothing() -> None:
    return None


@contextmanager
def background_memory(until: Callable[[], Any] | None = None) -> Iterator[None]:
    """Games composed inside this block warm their memory in the background. ``until``: also
    wait for it before memory counts as warm (tests hold the warm-up with it; the queue is used
    then even when this process has loaded the model already)."""
    token = _BACKGROUND.set(until or _nothing)
    try:
        yield
    finally:
        _BACKGROUND.reset(token)


def warm_up(embedder: Any) -> Callable[[], None] | None:
    """What to run in the background before the memory of a game composed now is warm, or None
    when it is warm already (the model is loaded, or it has none) or nobody asked for it."""
    until = _BACKGROUND.get()
    if until is None:
        return None
    from memory.embedder import MiniLMEmbedder, model_loaded

    load = embedder.warm if isinstance(embedder, MiniLMEmbedder) and not model_loaded() else None
    if load is None and until is _nothing:
        return None

    def run() -> None:
        if load is not None:
            load()
        until()

    return run


class MemoryQueue:
    """The one way a game's calls reach its memory (see the module docstring)."""

    def __init__(self) -> None:
        self._calls: deque[tuple[Callable[..., Any], tuple[Any, ...], Any]] = deque()
        self._lock = threading.RLock()  # held while a call is applied or queued
        self._warm = threading.Event()
        self._warm.set()  # nothing to load: calls go straight through
        self._error: BaseException | None = None
        self._ready: list[Callable[[], None]] = []
        self._load: Callable[[], Any] | None = None  # the warm-up, until ``start`` runs it
        self.deferred = 0  # calls that waited in the queue (for the benchmarks and the status)
        self.background = False  # whether this game's memory warms in the background at all
        self._turn: list[Any] | None = None  # ``mark``: [calls queued before the turn, capture, captured]

    # --- warming ------------------------------------------------------------------------
    def warm_in_background(self, load: Callable[[], Any]) -> None:
        """From now on calls wait in the queue until ``load`` (loading the embedder) has run in a
        daemon thread, which ``start`` starts: a front end starts it once its first frame is up
        and the game is built, so the load never competes with them (anything that must read
        memory first starts it too). A load that fails is raised by the next ``settle``."""
        self._warm.clear()
        self._load = load
        self.background = True

    def start(self) -> None:
        """Start loading the model in the background (once; nothing when there is nothing to load)."""
        with self._lock:
            load, self._load = self._load, None
        if load is None:
            return

        def run() -> None:
            try:
                load()
            except BaseException as e:  # noqa: BLE001 - raised where the game next needs memory
                self._error = e
            self._warm.set()
            for callback in list(self._ready):
                callback()

        threading.Thread(target=run, name="parley-memory-warmup", daemon=True).start()

    @property
    def warming(self) -> bool:
        """The model is still loading (calls are being queued)."""
        return not self._warm.is_set()

    @property
    def pending(self) -> int:
        return len(self._calls)

    def on_ready(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` (from the loading thread) once the model is loaded; at once if it is."""
        with self._lock:
            if self.warming:
                self._ready.append(callback)
                return
        callback()

    # --- calls ----------------------------------------------------------------------------
    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Apply ``fn(*args)`` now (queued calls first), or queue it while the model loads."""
        with self._lock:
            if self.warming:
                self._calls.append((fn, args, None))
                self.deferred += 1
                return None
            self._drain()
            return fn(*args)

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., None]:
        """``fn`` as a listener that goes through the queue."""

        def through(*args: Any) -> None:
            self.call(fn, *args)

        return through

    def drain(self) -> int:
        """Apply the queued calls, in order, if the model is loaded (never waits). Returns how many."""
        with self._lock:
            if self.warming:
                return 0
            return self._drain()

    def _drain(self) -> int:
        if self._error is not None:
            error, self._error = self._error, None
            self._calls.clear()
            raise error
        n = 0
        while self._calls:
            self._reached(n)
            fn, args, box = self._calls.popleft()
            value = fn(*args)
            if box is not None:
                box.value, box.done = value, True
            n += 1
        self._reached(n)
        return n

    # --- a turn that may fail (``game.play.meta``) ---------------------------------------------
    def mark(self, capture: Callable[[], Any]) -> list[Any]:
        """Before a turn played while the model loads: where the queue stands. Memory is then what
        the calls applied so far made it, plus the calls queued; if those are applied during the
        turn (the model came), ``capture()`` takes memory's state right after the last of them."""
        with self._lock:
            self._turn = [len(self._calls), capture, None]
            return self._turn

    def unmark(self) -> None:
        """The turn ended well: no capture is wanted any more."""
        self._turn = None

    def cut(self, mark: list[Any]) -> Any:
        """A turn marked by ``mark`` failed: drop the calls it queued. Returns what ``capture``
        took when the calls before it were applied during the turn (memory's state to put back),
        else None (memory was not touched)."""
        with self._lock:
            self._turn = None
            if mark[2] is not None:
                self._calls.clear()  # once applied, nothing from before the turn waits here any more
                return mark[2]
            while len(self._calls) > mark[0]:
                self._calls.pop()
            return None

    def _reached(self, applied: int) -> None:
        turn = self._turn
        if turn is not None and applied == turn[0]:
            turn[2], self._turn = turn[1](), None

    def settle(self) -> None:
        """Wait for the model, then apply every queued call: memory is as if no turn had waited."""
        self.start()
        self._warm.wait()
        self.drain()

    # --- what reads memory ------------------------------------------------------------------
    def context(self, build: Callable[..., Any], *args: Any) -> Any:
        """A context for an agent's turn: built now when warm, else built in its place in the
        queue (``LaterContext``; reading it waits for the model)."""
        with self._lock:
            if not self.warming:
                self._drain()
                return build(*args)
            later = LaterContext(self)
            self._calls.append((build, args, later))
            self.deferred += 1
            return later

    def settled(self, obj: Any) -> Any:
        """``obj`` (Σ-Mem, read by a seat) such that reading it first settles the queue."""
        return Settled(obj, self) if obj is not None and self.background else obj


class LaterContext:
    """A memory context built in its turn in the queue; reading it settles the queue first."""

    def __init__(self, queue: MemoryQueue) -> None:
        self._queue, self.value, self.done = queue, None, False

    def get(self) -> Any:
        if not self.done:
            self._queue.settle()
        return self.value

    def __getattr__(self, name: str) -> Any:
        if name in ("_queue", "value", "done"):
            raise AttributeError(name)
        return getattr(self.get(), name)

    def __len__(self) -> int:
        return len(self.get())

    def __bool__(self) -> bool:
        return self.get() is not None


class Settled:
    """An object read through a ``MemoryQueue``: every attribute read settles the queue first."""

    def __init__(self, obj: Any, queue: MemoryQueue) -> None:
        self._obj, self._queue = obj, queue

    def __getattr__(self, name: str) -> Any:
        if name in ("_obj", "_queue"):
            raise AttributeError(name)
        self._queue.settle()
        return getattr(self._obj, name)


class ContextProvider:
    """The engine's context provider over ``GameMemory`` through a ``MemoryQueue``: its
    ``prepare_round`` batch and each context are applied in their turn in the queue."""

    def __init__(self, memory: Any, queue: MemoryQueue) -> None:
        self.memory, self.queue = memory, queue

    def prepare_round(self, requests: Any) -> None:
        self.queue.call(self.memory.prepare_round, list(requests))

    def __call__(self, agent: str, obs: Any) -> Any:
        return self.queue.context(self.memory.context, agent, obs)
