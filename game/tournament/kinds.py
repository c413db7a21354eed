"""Tournament kinds: what is played (negotiation, adventure, council, debate), as plug-ins.

A kind is an object with the ``TournamentKind`` members below; ``KINDS`` maps each registered
kind's name to it, and a config's ``kind = "..."`` picks one (``kind_for``). Everything that differs
between kinds lives in the kind: which competitors and scenarios it accepts, how a scenario
source becomes scenarios, who sits where in a game, how one match is played to a result row,
which games are rated together, what it adds to the per-competitor metrics and which sections
it adds to the report. The config reader, the planner (``game.tournament.matches``), the player
(``game.tournament.play``), the runner, the statistics and the report ask the kind and never name
one.

A kind may also have ``game_factors(cfg)``: its games per scenario as (count, singular, plural)
factors whose product is what ``seatings`` yields for any scenario (negotiation: ordered pairings
and openers). With it a tournament's match count is known from the config before any scenario is
made; without it the planner counts each scenario's seatings.

The built-in kinds are in ``kind_negotiation``, ``kind_adventure``, ``kind_council`` and
``kind_debate``. ``register(kind)`` adds another; backends that run matches in other processes
(``processes``, ``ray``) find it only when the module that registers it is imported there too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from game.core.errors import InputError, Problem, did_you_mean
from game.tournament.kind_adventure import ADVENTURE
from game.tournament.kind_base import MatchContext
from game.tournament.kind_council import COUNCIL
from game.tournament.kind_debate import DEBATE
from game.tournament.kind_negotiation import NEGOTIATION
from game.tournament.model import Competitor, Match, Scenario, TournamentConfig
from game.tournament.report_items import Report, ReportInput


class TournamentKind(Protocol):
    """What differs between tournament kinds."""

    name: str
    """The config's ``kind`` and the rows' ``kind``."""
    quick_matches: bool
    """A match without an LLM takes milliseconds: the runner sends many to a batch (else one each)."""
    one_match_games: bool
    """Each match is a rated game of its own (its group is its id); else a rated game is every
    competitor's match on one scenario instance (group ``scenario|seed|rep``)."""
    unscored_games: bool
    """A game may score nobody (its seats' points null): it is not rated (``unscored_note``)."""
    metrics: tuple[tuple[str, str], ...]
    """(key, label) of per-competitor metrics ``observe`` adds that ``stats.METRICS`` does not list;
    tables show them after those."""

    def config_problems(self, cfg: TournamentConfig, file: str) -> list[Problem]:
        """What in the config does not fit this kind, each problem naming its competitor or scenario."""
        ...

    def scenarios(self, cfg: TournamentConfig, source: Scenario, base: Path, where: str) -> dict[str, dict[str, Any]]:
        """One ``[[scenarios]]`` entry (``where``, paths relative to ``base``) as scenario id -> a plain,
        JSON-able scenario the kind plays (``scenarios.json`` keeps it, less its ``world`` path). Match
        ids hash its ``scene`` or ``task`` when it has one, else its id, ``scene_id`` and ``content`` (a
        digest of what it is made from), so an edited scenario gives new ids."""
        ...

    def effective(self, c: Competitor) -> dict[str, Any] | None:
        """What the competitor's config resolves to here (defaults, an LLM's endpoint), part of its
        match ids: a changed default gives new ids, so ``--resume`` never mixes the two. None: nothing."""
        ...

    def seatings(
        self, cfg: TournamentConfig, sid: str, scenario: dict[str, Any]
    ) -> Iterator[tuple[dict[str, str], str | None]]:
        """The games of one scenario instance: who holds which seat (role -> competitor name, in
        role order) and who opens (a role, or None), in a fixed order."""
        ...

    def play(self, m: Match, ctx: MatchContext) -> dict[str, Any]:
        """Play one match: the row fields after the match's own (status, agreement, outcome, rounds,
        seats, welfare, the distances, llm_calls, llm_tokens, llm_seconds, cost; ``game.tournament.rows``).
        An LLM seat carries its own figures too (``game.tournament.llm_usage.seat_usage``)."""
        ...

    def observe(self, row: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, float]:
        """What this kind observes of one competitor in one match (``seats``: its seats of the row),
        beyond what every row gives (``stats.observations``); metric key -> value."""
        ...

    def unscored_note(self, n: int) -> str:
        """The summary's note on ``n`` games that scored nobody."""
        ...

    def report(self, rep: Report, data: ReportInput) -> None:
        """Add this kind's sections (and notes) to the report."""
        ...


KINDS: dict[str, TournamentKind] = {}


def register(kind: TournamentKind) -> TournamentKind:
    """Make ``kind`` available to configs as ``kind = "<its name>"``; returns it."""
    if not kind.name or not isinstance(kind.name, str):
        raise ValueError("a tournament kind needs a name")
    if KINDS.get(kind.name, kind) is not kind:
        raise ValueError(f"tournament kind {kind.name!r} is already registered")
    KINDS[kind.name] = kind
    return kind


def kind_for(name: Any, where: str | None = None) -> TournamentKind:
    """The registered kind called ``name``; an ``InputError`` (at ``where``) naming the known ones."""
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        shown = repr(name) if len(repr(name)) <= 60 else repr(name)[:57] + "..."
        raise InputError(
            (f"{where}: " if where else "") + f"unknown tournament kind {shown}; kinds: " + ", ".join(KINDS),
            hint=did_you_mean(name, KINDS),
        )
    return kind


for _kind in (NEGOTIATION, ADVENTURE, COUNCIL, DEBATE):
    register(_kind)
