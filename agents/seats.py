"""Player seats by name: who plays the player's side of a game.

``human`` (nobody: a front end submits what a person types), ``autopilot`` (the heuristic
player, ``agents.autopilot``), ``llm`` (the game's LLM endpoint, ``agents.llm.player``),
``script:FILE`` (one command per line of a text file, then ``quit``), or ``module:function``: any
importable ``str -> str`` callable, which reads what a text player is shown and answers with a
command. A seat gets what a player may use (its observation, with the parser's scope and the
names, and its memory context), never the engine.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from game.core.errors import InputError, did_you_mean
from game.core.files import read_bytes
from game.core.text import decode, shown

SEATS = ("human", "autopilot", "llm", "script:FILE", "module:function")


class ScriptSeat:
    """Plays the commands of a script file, one line at a time, read as a person's typing (a
    ``game.core.protocols.TypedSeat``: ``Game.play_turn`` submits each line); ``notes`` collects what a
    run should tell its user (skipped lines, quit); ``position`` is (line number, text) of the
    line last given."""

    def __init__(self, numbered: list[tuple[int, str]], path: str = "script"):
        self.numbered, self.path, self.i = list(numbered), path, 0
        self.notes: list[str] = []
        self._listener: Callable[[str], None] | None = None

    @classmethod
    def from_file(cls, path: str) -> ScriptSeat:
        """One command per line; blank lines and ``#`` comments are skipped (a ``say`` line keeps
        its ``#``). Bytes that are not UTF-8 become U+FFFD, with a note."""
        raw = read_bytes(path, "script")
        notes = []
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as e:
            line = raw[: e.start].count(b"\n") + 1
            notes.append(f"warning: {shown(path)}:{line}: not UTF-8 text; invalid bytes were replaced with \ufffd")
        numbered = []
        for n, line in enumerate(decode(raw).splitlines(), 1):
            line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("say") else line.strip()
            if line:
                numbered.append((n, line))
        seat = cls(numbered, path)
        seat.notes += notes
        return seat

    def note(self, text: str) -> None:
        self.notes.append(text)
        if self._listener is not None:
            self._listener(text)

    def listen(self, listener: Callable[[str], None]) -> None:
        """Pass every note (those so far, then each new one) to ``listener`` as it is made."""
        self._listener = listener
        for text in self.notes:
            listener(text)

    def next_command(self) -> str | None:
        if self.finished:
            return None
        self.i += 1
        return self.numbered[self.i - 1][1]

    @property
    def position(self) -> tuple[int, str]:
        return self.numbered[self.i - 1] if self.i else (0, "")

    @property
    def finished(self) -> bool:
        return self.i >= len(self.numbered)


def callable_from(path: str) -> Callable[[str], str]:
    """The callable named ``module:function`` (dots allowed on both sides)."""
    module, _, attr = path.partition(":")
    if not module or not attr:
        raise InputError(f"player seat {path!r}: expected module:function", hint=f"seats: {', '.join(SEATS)}")
    try:
        obj: Any = importlib.import_module(module)
    except ImportError as e:
        raise InputError(
            f"player seat {path!r}: cannot import {module!r} ({e})",
            hint="the module must be importable from here (check PYTHONPATH)",
        ) from None
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - the module's own code failed (even sys.exit): say so
        raise InputError(
            f"player seat {path!r}: importing {module!r} failed: {type(e).__name__}: {e}",
            hint="fix the module; nothing was played",
        ) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"player seat {path!r}: {module!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError(f"player seat {path!r}: {attr!r} is not callable")
    return obj


def make_seat(kind: str, seed: int = 0, *, llm: Any = None, trust: Any = None) -> Any:
    """The seat named ``kind`` (None for ``human``); an unknown name is an InputError. ``seed``: the
    game's; ``llm``: the game's LLM client (the ``llm`` seat needs one); ``trust``: the game's Σ-Mem
    (the autopilot weighs what it hears by it), None when trust is off."""
    if kind == "human":
        return None
    if kind == "autopilot":
        from agents.autopilot import make_autopilot

        return make_autopilot(seed, trust=trust)
    if kind == "llm":
        if llm is None:
            raise InputError("the llm seat needs an LLM endpoint", hint="pass --llm URL (and --model NAME)")
        from agents.llm.player import LLMPlayer

        return LLMPlayer(llm)
    if kind.startswith("script:"):
        return ScriptSeat.from_file(kind[len("script:") :])
    if ":" in kind:
        from agents.text_seat import ParleyPlayer

        return ParleyPlayer(callable_from(kind))
    raise InputError(
        f"unknown player seat {kind!r}",
        hint=did_you_mean(kind, ["human", "autopilot", "llm"]) or f"seats: {', '.join(SEATS)}",
    )
