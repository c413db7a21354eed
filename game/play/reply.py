"""What a game answers to one submission, as data any front end can draw (line console, TUI,
text adapters, tournaments): ``Reply``; and the player's journal (``Journal``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from game.core.types import PLAYER, Action, Event, TurnResult

ReplyKind = Literal["turn", "clarify", "unknown", "meta", "over"]


@dataclass(frozen=True)
class JournalEntry:
    text: str
    sources: tuple[str, ...] = ()  # display names of who said it


@dataclass(frozen=True)
class Journal:
    """What the player was told, what is disputed, what proved true or false, whom to trust."""

    sections: tuple[tuple[str, tuple[JournalEntry, ...]], ...] = ()  # (title, entries), non-empty only
    trust: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = ()  # (NPC name, ((topic, score), ...))

    @property
    def empty(self) -> bool:
        return not self.sections and not self.trust

    def text(self) -> str:
        """The journal as lines of text (escaped for a terminal by the caller)."""
        if self.empty:
            return "Your journal is empty: nobody has told you anything worth writing down."
        lines: list[str] = []
        for title, entries in self.sections:
            lines.append(title + ":")
            lines += [f"  - {e.text}" + (f"  ({', '.join(e.sources)})" if e.sources else "") for e in entries]
        if self.trust:
            lines.append("Whom to trust, by what was verified:")
            for who, row in self.trust:
                lines.append(
                    f"  - {who}: "
                    + ", ".join(
                        f"{t.replace('_', ' ')} {'reliable' if s > 0 else 'caught lying'} ({s:+.2f})" for t, s in row
                    )
                )
        return "\n".join(lines)


@dataclass(frozen=True)
class Reply:
    """The answer to one submission.

    ``kind``: ``turn`` (a move was played: ``result``, ``events`` and ``lines``), ``clarify``
    (``question``, with the ids it offers in ``options``), ``unknown`` (``message``), ``meta``
    (``meta`` is help, journal, save, load or quit, with ``arg`` as typed; help and journal carry
    their content; save, load and quit are for the front end to carry out; or undo, again, oops or
    transcript, which the game carried out: ``lines`` say what happened, see ``game.play.meta``), ``over`` (the game
    had already ended). ``lines`` is always what the viewer should be shown, in order.
    """

    kind: ReplyKind
    said: str = ""  # the command (or agent reply) this answers
    typed: bool = False  # ``said`` was typed by a person (``Game.submit``)
    command: str = ""  # the move played, as a command line
    lines: tuple[str, ...] = ()
    action: Action | None = None  # the move played (a turn)
    fallback: str | None = None  # why the seat's reply gave no usable command
    result: TurnResult | None = None
    events: tuple[Event, ...] = ()  # the turn's events the viewer perceived
    question: str | None = None
    options: tuple[str, ...] = ()
    message: str | None = None
    meta: str | None = None
    arg: str | None = None
    journal: Journal | None = None
    score: int = 0
    score_change: int = 0
    quests_done: tuple[str, ...] = ()  # quests completed by this turn
    done: bool = False
    won: bool = False
    turn: int = 0
    llm: dict[str, Any] = field(default_factory=dict)  # LLM calls and tokens spent in this turn
    outage: Exception | None = None  # the LLM endpoint failed during this turn

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def seen_events(result: TurnResult, viewer: str = PLAYER) -> tuple[Event, ...]:
    return tuple(ev for ev in result.events if viewer in ev.perceivers)
