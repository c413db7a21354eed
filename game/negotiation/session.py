"""The alternating-offers protocol with a deadline, as a small state machine.

Two parties take turns; ``first`` opens (the scene's ``first``, else its first
party). A *round* is one move by each party; ``round`` counts from 1 and the
talks may last ``deadline`` rounds. Moves:

* ``offer``     -- a complete offer over every issue; it replaces (and so rejects)
  any standing offer from the other side;
* ``accept``    -- take the opponent's standing offer: status ``agreement``;
* ``reject``    -- refuse the standing offer without countering; the turn passes;
* ``walk_away`` -- end the talks: status ``walked_away``.

When the last move of round ``deadline`` leaves the talks open (an unanswered
offer or a rejection), status becomes ``no_agreement``. Illegal moves raise
:class:`NegotiationError` and leave the session unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from game.core.errors import ActionError, SaveError, did_you_mean

if TYPE_CHECKING:
    from game.negotiation.metrics import NegotiationAnalysis, OutcomeMetrics
    from game.negotiation.spec import NegotiationScene
    from game.negotiation.utility import UtilityFunction

Terms = tuple[tuple[str, str], ...]
STATUSES = ("open", "agreement", "no_agreement", "walked_away")
MOVES = ("offer", "accept", "reject", "walk_away")
STATE_VERSION = 1


class NegotiationError(ActionError):
    """A move the negotiation rules do not allow."""


@dataclass(frozen=True, slots=True)
class Record:
    """One move in the history."""

    round: int
    party: str
    kind: str
    terms: Terms | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"round": self.round, "party": self.party, "kind": self.kind}
        if self.terms is not None:
            d["terms"] = dict(self.terms)
        return d


def _quote(xs) -> str:
    return ", ".join(repr(x) for x in xs)


class Negotiation:
    """State of one negotiation between the two parties of a scene."""

    def __init__(
        self,
        scene: NegotiationScene,
        *,
        first: str | None = None,
        utilities: Mapping[str, UtilityFunction] | None = None,
        analysis: NegotiationAnalysis | None = None,
    ):
        self.scene = scene
        self.parties: tuple[str, str] = tuple(p.id for p in scene.parties)  # type: ignore[assignment]
        if len(self.parties) != 2 or self.parties[0] == self.parties[1]:
            raise NegotiationError(f"a negotiation needs two different parties, got {self.parties!r}")
        self.issues: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in scene.issues.items()}
        self._value_sets = {k: frozenset(v) for k, v in self.issues.items()}
        self._checked: dict[int, Terms] = {}  # id -> every tuple is_checked found valid (kept alive)
        self.deadline: int = scene.deadline
        opener = first if first is not None else (scene.first or self.parties[0])
        if opener not in self.parties:
            raise NegotiationError(
                f"unknown opening party {opener!r}; parties are {_quote(self.parties)}",
                hint=did_you_mean(opener, self.parties),
            )
        self.first: str = opener
        self._order = (opener, self.opponent(opener))
        if utilities is None and analysis is not None:
            utilities = analysis.utilities
        self._utilities = dict(utilities) if utilities is not None else None
        self._analysis: NegotiationAnalysis | None = analysis
        self._reset()

    def _reset(self) -> None:
        self._moves = 0
        self._status = "open"
        self._standing: tuple[str, Terms] | None = None
        self._agreement: Terms | None = None
        self._walked: str | None = None
        self._history: list[Record] = []
        self._frozen: tuple[Record, ...] | None = ()  # the history as a tuple, until the next move

    # --- reading ------------------------------------------------------------------

    @property
    def status(self) -> str:
        return self._status

    @property
    def is_open(self) -> bool:
        return self._status == "open"

    @property
    def turn(self) -> str | None:
        """The party to move, or None once closed."""
        return self._order[self._moves % 2] if self._status == "open" else None

    @property
    def round(self) -> int:
        """The current round, 1..deadline (the last one played once closed)."""
        return min(self._moves // 2 + 1, self.deadline)

    @property
    def time(self) -> float:
        """Progress ``round / deadline`` in (0, 1]; 1 in the final round."""
        return self.round / self.deadline

    @property
    def moves_made(self) -> int:
        return self._moves

    @property
    def standing_offer(self) -> dict[str, str] | None:
        """The offer on the table, if any."""
        return dict(self._standing[1]) if self._standing else None

    @property
    def standing(self) -> tuple[str, Terms] | None:
        """Who made the offer on the table and its terms as ``((issue, value), ...)`` in issue
        order, if there is one (no copy: both are immutable)."""
        return self._standing

    @property
    def standing_party(self) -> str | None:
        """Who made the standing offer."""
        return self._standing[0] if self._standing else None

    @property
    def agreement(self) -> dict[str, str] | None:
        return dict(self._agreement) if self._agreement is not None else None

    @property
    def walked_away_by(self) -> str | None:
        return self._walked

    @property
    def history(self) -> tuple[Record, ...]:
        h = self._frozen
        if h is None:
            h = self._frozen = tuple(self._history)
        return h

    def opponent(self, party: str) -> str:
        a, b = self.parties
        if party == a:
            return b
        if party == b:
            return a
        raise self._unknown_party(party)

    def legal_moves(self, party: str) -> tuple[str, ...]:
        """The move kinds ``party`` may make now (empty when it is not their turn)."""
        if party != self.turn:
            return ()
        if self._standing is not None:
            return MOVES
        return ("offer", "walk_away")

    # --- moves --------------------------------------------------------------------

    def offer(self, party: str, terms: Mapping[str, str]) -> Record:
        """Make a complete offer (a counter-offer if one is standing)."""
        if self._status != "open" or self._order[self._moves % 2] != party:
            self._check_turn(party, "offer")  # raises
        t = terms if self._checked.get(id(terms)) is terms else self.check_terms(terms)  # type: ignore[assignment]
        self._standing = (party, t)
        return self._record(party, "offer", t)

    def accept(self, party: str) -> Record:
        """Accept the opponent's standing offer: the talks end in agreement."""
        self._check_turn(party, "accept")
        if self._standing is None or self._standing[0] == party:
            raise NegotiationError("there is no offer to accept", hint=self._instead())
        t = self._standing[1]
        self._agreement = t
        self._status = "agreement"
        return self._record(party, "accept", t)

    def reject(self, party: str) -> Record:
        """Refuse the standing offer without countering; the turn passes."""
        self._check_turn(party, "reject")
        if self._standing is None or self._standing[0] == party:
            raise NegotiationError("there is no offer to reject", hint=self._instead())
        self._standing = None
        return self._record(party, "reject", None)

    def _instead(self) -> str:
        """What to do when there is no offer to answer: make one (an example naming every issue)."""
        example = " ".join(f"{issue}={values[0]}" for issue, values in self.issues.items() if values)
        return f"make an offer yourself (e.g. offer {example}), or walk away"

    def walk_away(self, party: str) -> Record:
        """Leave the table: the talks end without agreement."""
        self._check_turn(party, "walk away")
        self._status = "walked_away"
        self._walked = party
        return self._record(party, "walk_away", None)

    def play(self, party: str, kind: str, terms: Mapping[str, str] | None = None) -> Record:
        """Dispatch a move by name (``offer`` needs ``terms``)."""
        if kind == "offer":
            if terms is None:
                raise NegotiationError("an offer needs terms", hint=f"name a value for {_quote(self.issues)}")
            return self.offer(party, terms)
        if kind == "accept":
            return self.accept(party)
        if kind == "reject":
            return self.reject(party)
        if kind == "walk_away":
            return self.walk_away(party)
        raise NegotiationError(f"unknown move {kind!r}; moves are {_quote(MOVES)}", hint=did_you_mean(kind, MOVES))

    def is_checked(self, terms: Any) -> bool:
        """Whether ``terms`` is already what :meth:`check_terms` returns for a valid offer: a
        tuple of ``(issue, value)`` tuples naming every issue once, in issue order, each with one
        of its values (a ``str``). ``check_terms`` then returns it as it is."""
        if self._checked.get(id(terms)) is terms:
            return True
        if type(terms) is not tuple or len(terms) != len(self._value_sets):
            return False
        for pair, (name, ok) in zip(terms, self._value_sets.items()):
            if type(pair) is not tuple or len(pair) != 2:
                return False
            i, v = pair
            if type(i) is not str or i != name or type(v) is not str or v not in ok:
                return False
        self._checked[id(terms)] = terms
        return True

    def check_terms(self, terms: Mapping[str, str]) -> Terms:
        """Validate a complete offer; return it as ``((issue, value), ...)`` in issue order."""
        if type(terms) is tuple and (self._checked.get(id(terms)) is terms or self.is_checked(terms)):
            return terms  # type: ignore[return-value]  # checked: already in that form
        if type(terms) is dict and len(terms) == len(self.issues):
            # the common case first: a plain dict naming every issue once, each with one of its values
            t = tuple([(i, terms.get(i)) for i in self.issues])
            sets = self._value_sets
            for i, v in t:
                if type(v) is not str or v not in sets[i]:
                    break  # not a valid offer after all: the checks below say why
            else:
                return t  # type: ignore[return-value]  # every value is a str: checked above
        if not isinstance(terms, Mapping):
            try:
                terms = dict(terms)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise NegotiationError(f"an offer must map issues to values, got {terms!r}") from None
        for issue, value in terms.items():
            if issue not in self.issues:
                raise NegotiationError(
                    f"unknown issue {issue!r}; issues are {_quote(self.issues)}", hint=did_you_mean(issue, self.issues)
                )
            if not isinstance(value, str) or value not in self._value_sets[issue]:
                vals = self.issues[issue]
                raise NegotiationError(
                    f"{value!r} is not a value of issue {issue!r}; choose one of {_quote(vals)}",
                    hint=did_you_mean(str(value), vals),
                )
        if len(terms) != len(self.issues):
            missing = [i for i in self.issues if i not in terms]
            raise NegotiationError(
                f"incomplete offer: no value for {_quote(missing)}; an offer names every issue ({_quote(self.issues)})",
                hint=f"{missing[0]} is one of {_quote(self.issues[missing[0]])}",
            )
        return tuple((i, terms[i]) for i in self.issues)

    def _unknown_party(self, party: str) -> NegotiationError:
        return NegotiationError(
            f"{party!r} is not a party to this negotiation; parties are {_quote(self.parties)}",
            hint=did_you_mean(party, self.parties),
        )

    def _check_turn(self, party: str, what: str) -> None:
        if self._status != "open":
            raise NegotiationError(f"cannot {what}: the negotiation is over ({self._status})")
        if party not in self.parties:
            raise self._unknown_party(party)
        turn = self._order[self._moves % 2]  # self.turn: the talks are open
        if party != turn:
            raise NegotiationError(
                f"cannot {what}: it is the turn of {turn!r}, not {party!r}", hint=f"wait for {turn!r} to move"
            )

    def _record(self, party: str, kind: str, terms: Terms | None) -> Record:
        rec = Record(min(self._moves // 2 + 1, self.deadline), party, kind, terms)  # self.round
        self._history.append(rec)
        self._frozen = None
        self._moves += 1
        if self._status == "open" and self._moves >= 2 * self.deadline:
            self._status = "no_agreement"
        return rec

    # --- results ------------------------------------------------------------------

    @property
    def utilities(self) -> dict[str, UtilityFunction]:
        """Each party's utility function (built from the scene on first use)."""
        if self._utilities is None:
            from game.negotiation.utility import utilities_for

            self._utilities = utilities_for(self.scene)
        return self._utilities

    @property
    def analysis(self) -> NegotiationAnalysis:
        """Frontier, Nash and KS points of this scene (computed once)."""
        if self._analysis is None:
            from game.negotiation.metrics import NegotiationAnalysis

            self._analysis = NegotiationAnalysis(self.utilities)
        return self._analysis

    def outcome_metrics(self) -> OutcomeMetrics:
        """Metrics of the agreement, or of disagreement; only once closed."""
        if self._status == "open":
            raise NegotiationError("the negotiation is still open", hint="metrics exist once it closes")
        return self.analysis.evaluate(self.agreement)

    # --- save / load --------------------------------------------------------------

    def get_state(self) -> dict[str, Any]:
        """A plain JSON-able snapshot; :meth:`set_state` restores it exactly."""
        return {
            "version": STATE_VERSION,
            "parties": list(self.parties),
            "first": self.first,
            "deadline": self.deadline,
            "status": self._status,
            "round": self.round,
            "moves": self._moves,
            "turn": self.turn,
            "standing": None
            if self._standing is None
            else {"party": self._standing[0], "terms": dict(self._standing[1])},
            "agreement": self.agreement,
            "walked_away_by": self._walked,
            "history": [r.to_dict() for r in self._history],
        }

    def set_state(self, state: Mapping[str, Any]) -> None:
        """Restore a :meth:`get_state` snapshot by replaying its history.

        Raises :class:`~game.core.errors.SaveError` (session unchanged) if the
        snapshot is malformed, belongs to another scene, or is inconsistent.
        """
        try:
            if state.get("version") != STATE_VERSION:
                raise SaveError(f"negotiation state version {state.get('version')!r}, expected {STATE_VERSION}")
            if list(state.get("parties", ())) != list(self.parties):
                raise SaveError(
                    f"negotiation state is for parties {state.get('parties')!r}, this scene has {list(self.parties)!r}"
                )
            if state.get("deadline", self.deadline) != self.deadline:
                raise SaveError(
                    f"negotiation state has deadline {state.get('deadline')!r}, this scene has {self.deadline}"
                )
            replay = Negotiation(
                self.scene, first=state.get("first", self.first), utilities=self._utilities, analysis=self._analysis
            )
            for i, rec in enumerate(state.get("history", ())):
                try:
                    replay.play(rec["party"], rec["kind"], rec.get("terms"))
                except NegotiationError as e:
                    raise SaveError(f"negotiation history move {i}: {e.message}") from None
                if rec.get("round", replay._history[-1].round) != replay._history[-1].round:
                    raise SaveError(
                        f"negotiation history move {i}: round {rec.get('round')!r} "
                        f"should be {replay._history[-1].round}"
                    )
            got = replay.get_state()
            for key in ("status", "moves", "round", "turn", "standing", "agreement", "walked_away_by"):
                if key in state and state[key] != got[key]:
                    raise SaveError(f"negotiation state {key}={state[key]!r} does not match its history ({got[key]!r})")
        except NegotiationError as e:
            raise SaveError(f"bad negotiation state: {e.message}") from None
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise SaveError(f"malformed negotiation state: {e!r}") from None
        self.first, self._order = replay.first, replay._order
        self._moves, self._status = replay._moves, replay._status
        self._standing, self._agreement = replay._standing, replay._agreement
        self._walked, self._history, self._frozen = replay._walked, replay._history, None

    def copy(self) -> Negotiation:
        """An independent session in the same position (cheap: for look-ahead)."""
        other = object.__new__(Negotiation)
        other.__dict__.update(self.__dict__)
        other._history = list(self._history)
        return other

    @classmethod
    def from_state(
        cls,
        scene: NegotiationScene,
        state: Mapping[str, Any],
        *,
        utilities: Mapping[str, UtilityFunction] | None = None,
    ) -> Negotiation:
        """A session of ``scene`` restored from ``state``."""
        s = cls(scene, utilities=utilities)
        s.set_state(state)
        return s

    def __repr__(self) -> str:
        return (
            f"Negotiation({self.parties[0]!r} vs {self.parties[1]!r}, {self._status}, "
            f"round {self.round}/{self.deadline}, turn={self.turn!r})"
        )
