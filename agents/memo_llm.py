"""MEMO's LLM paths: summaries, reflections, importance ratings and cross-game lessons, asked of
the game's LLM client (``agents.llm.LLMClient``).

``MemoLLM(client)`` gives the callables that ``memory`` takes as hooks:

* ``summarise(lines) -> str``: one sentence for a large cluster of old memories
  (``ContextOptimizer.summariser``); ``reflect(lines) -> str`` the same for a reflection
  (``Reflector.llm``). ``""`` means "no summary": the caller keeps its extractive one.
* ``rate(text) -> float`` in [0, 1] (``ImportanceRater.llm``, blended with the rule score).
  A reply that is not a rating raises; the rater then keeps its rule score.
* ``lessons(summary) -> list[str]``: advice for the next game (``memory.lessons``' ``summarise``
  hook); ``[]`` on any failure, the rule-based lessons stand alone.

Replies are untrusted: each is a JSON object checked against a schema; a summary that states a
number none of its memories states is refused and asked again once; a rating is clamped into
[0, 1]. Every request goes through the client, so it is retried, cached (``--llm-cache``) and
counted like any other, under the agent ``memo:<path>`` and the game's turn. Answers are also
kept for the game (a cluster summarised again next turn costs nothing).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agents.llm.errors import LLMError, LLMInvalidReply
from game.core import reply_schema as rs
from memory.values import values

MAX_SUMMARY = 300  # characters; a longer "summary" is not one
MAX_LINES_SENT = 40  # memories shown for one summary (the best first, as the callers order them)
MAX_LESSONS = 5
KEEP = 2048  # answers remembered per path

SUMMARY_SYSTEM = (
    "You compress an agent's memories in a turn-based text game. Write one short sentence "
    "(under 30 words) that says what the listed memories amount to. Keep names as written and "
    "never state a number the memories do not state. Reply with one JSON object: "
    '{"summary": "..."}.'
)
REFLECT_SYSTEM = (
    "You write an agent's reflection on its older memories in a turn-based text game: one "
    "short sentence (under 30 words) on what they show that is worth remembering. Keep names "
    "as written and never state a number the memories do not state. Reply with one JSON "
    'object: {"summary": "..."}.'
)
RATE_SYSTEM = (
    "You rate how much a memory matters to an agent in a turn-based text game, from 0 (trivial: "
    "walking, looking around) to 1 (crucial: agreements, prices, promises, a lie exposed, a goal "
    'reached). Reply with one JSON object: {"importance": <number from 0 to 1>}.'
)
LESSONS_SYSTEM = (
    "You turn a finished game into advice for the agent's next game. Reply with one JSON object: "
    f'{{"lessons": ["...", ...]}}, at most {MAX_LESSONS} short lessons, each one line as the '
    "request describes."
)


class Summary(BaseModel):
    model_config = ConfigDict(extra="ignore")
    summary: str


class Rating(BaseModel):
    model_config = ConfigDict(extra="ignore")
    importance: float = Field(allow_inf_nan=False)


class Lessons(BaseModel):
    model_config = ConfigDict(extra="ignore")
    lessons: list[str]


# the schemas sent: lengths and ranges a grammar-constrained model cannot overrun
SUMMARY_SCHEMA = rs.obj({"summary": rs.text(MAX_SUMMARY * 2 // 3)})
RATING_SCHEMA = rs.obj({"importance": rs.number(0.0, 1.0)})
LESSONS_SCHEMA = rs.obj({"lessons": rs.array(rs.text(160), MAX_LESSONS)})


def one_line(text: str) -> str:
    """A reply's text on one line, without wrapping quotes."""
    text = " ".join(text.split())
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    return text


def checked_summary(reply: Summary, lines: Sequence[str]) -> Summary:
    """``reply`` on one line, or ``ValueError`` (its message goes back to the model): empty, too
    long, or stating a value (a number, a ``key=value``) that none of ``lines`` states."""
    text = one_line(reply.summary)
    if not text:
        raise ValueError("the summary is empty")
    if len(text) > MAX_SUMMARY:
        raise ValueError(f"the summary has {len(text)} characters; write at most {MAX_SUMMARY}")
    known = {v for line in lines for v in values(line)}
    invented = [v for v in values(text) if v not in known]
    if invented:
        raise ValueError(
            f"the summary states {', '.join(map(repr, invented))}, which no memory states; "
            "keep every number exactly as the memories give it"
        )
    return Summary(summary=text)


def clamped(reply: Rating) -> Rating:
    return Rating(importance=min(1.0, max(0.0, reply.importance)))


class MemoLLM:
    """The LLM-backed MEMO callables over one client (see the module docstring). ``clock`` says
    the game's turn, for the client's per-turn accounting; ``temperature`` is for every request
    (low: a memory's rating should not wander)."""

    def __init__(self, client: Any, clock: Callable[[], int | None] = lambda: None, temperature: float = 0.0):
        self.client, self.clock = client, clock
        self.params = {"temperature": float(temperature)}
        self._lock = threading.Lock()
        self._kept: dict[str, OrderedDict[Any, Any]] = {}

    # --- the hooks -------------------------------------------------------------------
    def summarise(self, lines: Sequence[str]) -> str:
        """One sentence for a cluster of memories, or ``""`` (the caller keeps its own)."""
        return self._summary("summarise", SUMMARY_SYSTEM, lines)

    def reflect(self, lines: Sequence[str]) -> str:
        """A reflection's sentence for a cluster of older memories, or ``""``."""
        return self._summary("reflect", REFLECT_SYSTEM, lines)

    def rate(self, text: str) -> float:
        """The memory's importance in [0, 1]. Raises ``LLMError`` when there is no valid rating
        (``ImportanceRater`` then keeps its rule score)."""

        def ask() -> float:
            reply = self.client.structured(
                [{"role": "system", "content": RATE_SYSTEM}, {"role": "user", "content": f"Memory: {text}"}],
                Rating,
                schema=RATING_SCHEMA,
                agent="memo:importance",
                turn=self.clock(),
                validate=clamped,
                max_repairs=0,
                params=self.params,
            )
            return reply.importance

        rating = self._kept_or("importance", text, ask)
        if rating is None or not math.isfinite(rating):
            raise LLMInvalidReply("no importance rating for this memory", raw="", error="no rating")
        return rating

    def lessons(self, summary: str) -> list[str]:
        """Up to five lessons for the next game from ``memory.lessons.game_summary``; ``[]`` when
        the model gives none that can be used."""

        def ask() -> list[str]:
            reply = self.client.structured(
                [{"role": "system", "content": LESSONS_SYSTEM}, {"role": "user", "content": summary}],
                Lessons,
                schema=LESSONS_SCHEMA,
                agent="memo:insights",
                turn=self.clock(),
                max_repairs=1,
                params=self.params,
            )
            return [one_line(x) for x in reply.lessons if one_line(x)][:MAX_LESSONS]

        return list(self._kept_or("insights", summary, ask) or [])

    # --- plumbing ----------------------------------------------------------------------
    def _summary(self, path: str, system: str, lines: Sequence[str]) -> str:
        shown = [str(x) for x in lines][:MAX_LINES_SENT]
        if not shown:
            return ""

        def ask() -> str:
            body = "Memories (most important first):\n" + "\n".join(f"- {x}" for x in shown)
            reply = self.client.structured(
                [{"role": "system", "content": system}, {"role": "user", "content": body}],
                Summary,
                schema=SUMMARY_SCHEMA,
                agent=f"memo:{path}",
                turn=self.clock(),
                validate=lambda r: checked_summary(r, shown),
                max_repairs=1,
                params=self.params,
            )
            return reply.summary

        return self._kept_or(path, tuple(shown), ask) or ""

    def _kept_or(self, path: str, key: Any, ask: Callable[[], Any]) -> Any:
        """The answer kept for ``key``, else ``ask()``'s. An answer the model could not give validly
        is kept as None (asking again every turn would cost as much for the same refusal); an
        endpoint failure is not kept (the next call may find it back), and returns None too."""
        with self._lock:
            kept = self._kept.setdefault(path, OrderedDict())
            if key in kept:
                kept.move_to_end(key)
                return kept[key]
        try:
            answer = ask()
        except LLMInvalidReply:
            answer = None
        except LLMError:  # unreachable, refused: the game's outage handling says so
            return None
        with self._lock:
            kept[key] = answer
            while len(kept) > KEEP:
                kept.popitem(last=False)
        return answer
