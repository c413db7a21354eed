"""Steps whose outcome comes from outside the game (an LLM call) made replayable.

``recorded(decide, kind, who, compute)`` runs ``compute()`` through a decision log such as
``game.engine.loop.Engine.decide``: in play its outcome is written to the transcript as a ``decision``
record; in a replay the recorded outcome is returned and ``compute`` is never run, so no LLM is
needed. A failure is an outcome too: it is recorded as ``{"error": {"type": ..., "message": ...}}``
and raised again in the replay as a ``RecordedFailure`` with the original exception's class
name and message, so code that reports ``f"{type(e).__name__}: {e}"`` says the same thing.

The outcome must be JSON data (it goes into the transcript). This module imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Decide = Callable[[str, str, Callable[[], tuple[Any, str | None]]], Any]


class RecordedFailure(Exception):
    """A recorded step's failure, raised again in a replay (subclasses carry the original name)."""


def failure(kind: str, message: str) -> RecordedFailure:
    """An exception named ``kind`` (a ``RecordedFailure``) with ``message``."""
    name = kind if isinstance(kind, str) and kind.isidentifier() else "RecordedFailure"
    cls = RecordedFailure if name == "RecordedFailure" else type(name, (RecordedFailure,), {})
    return cls(message)


def is_failure(value: Any) -> bool:
    """True for a recorded failure: ``{"error": {"type": str, "message": str}}``."""
    if not (isinstance(value, dict) and set(value) == {"error"}):
        return False
    err = value["error"]
    return isinstance(err, dict) and isinstance(err.get("type"), str) and isinstance(err.get("message"), str)


def recorded(decide: Decide, kind: str, who: str, compute: Callable[[], Any]) -> Any:
    """``compute()``'s outcome, recorded through ``decide`` (a replay returns the recorded one).
    An exception from ``compute`` is recorded, then raised (the original one in play; in a
    replay a ``RecordedFailure`` of the same name and message)."""
    raised: list[BaseException] = []

    def run() -> tuple[Any, None]:
        try:
            return compute(), None
        except Exception as e:
            raised.append(e)
            return {"error": {"type": type(e).__name__, "message": str(e)}}, None

    value = decide(kind, who, run)
    if raised:
        raise raised[0]
    if is_failure(value):
        raise failure(value["error"]["type"], value["error"]["message"])
    return value
