"""MEMO as a library: memory and per-turn contexts for any agent loop, no world needed.

``Memo`` wraps the same bank, optimizer and reflection that a game uses
(``memory.runtime.GameMemory``), without the engine and the world spec::

    from memory.memo import Memo
    memo = Memo(embedder="hash")
    memo.add("Mara says the spyglass is 90 gold.", speaker="mara", kind="offer", turn=1)
    memo.add("Mara whispers she would take 70.", speaker="mara", scope="private:bob", kind="claim", turn=2)
    ctx = memo.context("bob", turn=3, budget=200, focus="what would the seller accept?")
    print(ctx.text())
    memo.explain("bob", 3)   # every candidate, its scores and its fate

Scopes are ``shared`` (everyone), ``facts`` (ground truth) and
``private:<agent>`` (that agent only); an agent's context reads shared memory,
facts and its own private memory. Events are added in turn order. ``budget``
and ``focus`` apply to one ``context`` call; the config is never changed by them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from game.core.errors import InputError, did_you_mean
from memory.bank import MemoryBank
from memory.config import MemoConfig
from memory.importance import ImportanceRater
from memory.optimizer import Context, ContextOptimizer
from memory.records import FACTS, KINDS, SHARED, MemoryRecord
from memory.reflection import Reflector

__all__ = ["Context", "Memo", "MemoConfig"]
MIN_BUDGET = 16  # the smallest budget MemoConfig accepts


def check_scope(scope: str) -> str:
    """``shared``, ``facts`` or ``private:<agent>``; anything else is an InputError."""
    if scope in (SHARED, FACTS) or (
        isinstance(scope, str) and scope.startswith("private:") and scope.split(":", 1)[1].strip()
    ):
        return scope
    hint = did_you_mean(scope, (SHARED, FACTS, "private:"))
    raise InputError(
        f"unknown memory scope {scope!r}",
        hint=(hint + " " if hint else "") + "use 'shared', 'facts' or 'private:<agent>'",
    )


def check_kind(kind: str) -> str:
    if kind in KINDS:
        return kind
    hint = did_you_mean(kind, KINDS)
    choices = "choose one of: " + ", ".join(KINDS)
    raise InputError(f"unknown memory kind {kind!r}", hint=f"{hint} ({choices})" if hint else choices)


class Memo:
    """Memory for agents of your own loop: ``add`` events, build a ``context`` per agent and turn,
    ``explain`` it.

    ``embedder``: "minilm" (the default), "hash" (word overlap only, fast) or an embedder
    object; ``store``: "flat", "chroma" or a store object; ``config``: a :class:`MemoConfig`
    (the default budget, weights and thresholds). ``key_terms`` are words that make a
    memory more important (what the agents' goals are about); ``summariser`` an optional
    callable for large clusters and reflections; ``reflect=False`` turns off consolidation
    of private memories into the long-term tier."""

    def __init__(
        self,
        embedder: Any = "minilm",
        store: Any = "flat",
        config: MemoConfig | None = None,
        *,
        key_terms: Iterable[str] = (),
        summariser: Callable[[list[str]], str] | None = None,
        reflect: bool = True,
        store_options: dict | None = None,
    ):
        from memory.embedder import get_embedder
        from memory.store import make_store

        self.config = config or MemoConfig()
        emb = get_embedder(embedder) if isinstance(embedder, str) else embedder
        st = make_store(store, **(store_options or {})) if isinstance(store, str) else store
        self.bank = MemoryBank(emb, st, rater=ImportanceRater(key_terms))
        self.optimizer = ContextOptimizer(self.bank, self.config, summariser=summariser)
        self.reflector = Reflector(self.bank, self.config.reflection, llm=summariser) if reflect else None
        self._turn = 0

    def add(
        self,
        text: str,
        *,
        turn: int,
        speaker: str | None = None,
        scope: str = SHARED,
        kind: str = "observation",
        topic: str | None = None,
        importance: float | None = None,
        anchor: bool = False,
        triple: tuple[str, str, str] | None = None,
    ) -> MemoryRecord:
        """Remember ``text`` at ``turn`` (turns never go back). ``importance`` in [0, 1] overrides the
        rule-based rating; ``anchor=True`` keeps it in every context of its readers; ``triple``
        (subject, relation, object) on a claim or fact lets rival claims be found."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("a memory needs some text")
        if not isinstance(turn, int) or turn < self._turn:
            raise InputError(
                f"turn {turn!r} is before turn {self._turn}",
                hint="add events in turn order (recent history is read back from the newest)",
            )
        if importance is not None and not 0.0 <= importance <= 1.0:
            raise InputError(f"importance {importance!r} is outside [0, 1]")
        scope, kind = check_scope(scope), check_kind(kind)
        rec = self.bank.add(
            scope,
            kind,
            text,
            turn,
            speaker=speaker,
            topic=topic,
            importance=importance,
            anchor=anchor,
            triple=tuple(triple) if triple else None,
        )  # type: ignore[arg-type]
        self._turn = turn
        if self.reflector is not None and scope.startswith("private:"):
            agent = scope.split(":", 1)[1]
            self.reflector.note(agent, rec.importance)
            self.reflector.maybe_consolidate(agent, turn)
        return rec

    def context(
        self,
        agent: str,
        turn: int,
        *,
        budget: int | None = None,
        focus: str | None = None,
        query: str = "",
        anchors: Sequence[str] = (),
        priors: Sequence[str] = (),
        touch: bool = True,
        history: bool = False,
    ) -> Context:
        """What ``agent`` should see at ``turn``, within ``budget`` tokens (the config's when not given).

        ``focus`` is the decision at hand (a question, an offer to answer) and ``query`` the
        situation (what the agent sees, its goals); either or both drive retrieval. ``anchors``
        are lines shown first whatever the budget, ``priors`` lessons shown while they fit.
        ``touch=False`` records no access (a look that does not count as recalling); ``history=True``
        also shows memories a newer statement superseded, marked "(superseded at turn N)"."""
        if not isinstance(agent, str) or not agent.strip():
            raise InputError("context needs an agent name")
        if budget is not None and (not isinstance(budget, int) or budget < MIN_BUDGET):
            raise InputError(f"budget {budget!r} is too small", hint=f"give at least {MIN_BUDGET} tokens")
        return self.optimizer.build(
            agent,
            turn,
            query,
            focus=focus,
            priors=priors,
            extra_anchors=anchors,
            touch=touch,
            budget=budget,
            history=history,
        )

    def explain(self, agent: str, turn: int) -> list[dict[str, Any]]:
        """Every candidate of ``agent``'s context at ``turn``: its scores and fate (selected, masked
        and why, merged or summarised into what, dropped by the budget)."""
        return self.optimizer.explain(agent, turn)

    def __len__(self) -> int:
        return len(self.bank)
