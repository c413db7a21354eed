"""What a player of a TextArena negotiation game can read from its own observation text.

Each game here turns the observation string TextArena gives one player (``textarena==0.7.4``, the
default wrappers) into a :class:`Table`: the outcomes of the game as one issue, what each is worth
to *this* player, the least it should take, the moves so far as alternating-offers records, and
the game's own limits (roles, budgets, deadlines); and turns a negotiation move back into the
game's action token. Only the text is read, never the environment: a player's hidden values,
the opponent's role or inventory stay hidden.

The other player's words are part of that text (IteratedUltimatumGame shows its raw reply,
TwoDollar quotes it in the game's own messages; SimpleNegotiation shows neither), so they can
forge game events. Everything a move's validity or an acceptance depends on -- the role, the
offer on the table, the round, one's own past proposals, the role's rules -- is read only from
what the game wrote: the prompt (the first message), the game's last messages (nobody writes after
them) and one's own action echo. The history in between only informs the strategy; the tokens
never accept below the floor nor make a move the rules as stated refuse.

* ``IteratedUltimatumGame`` -- each round the proposer offers ``[Offer: $X]`` of the pool, the
  responder answers ``[Accept]`` / ``[Reject]``; the larger total wins. Outcomes: Player 0's share.
* ``TwoDollar`` -- either player proposes ``[Propose] $X.XX`` (its own share of $2.00), the other
  may ``[Accept]`` or ``[Reject]``; secret roles set thresholds, a deadline to accept (x_rounds),
  one-cent concessions (high_tension) or few words (say_little). Outcomes: Player 0's share.
* ``SimpleNegotiation`` -- players trade resources ``[Offer: 2 Wood -> 1 Sheep]``, ``[Accept]``,
  ``[Deny]``; the larger gain in inventory value (by each player's own values) wins. Outcomes:
  swaps of one resource for another (1-3 units each), every trade offered so far, and ``none``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

NONE = "none"
RESOURCES = ("Wheat", "Wood", "Sheep", "Brick", "Ore")


@dataclass
class Table:
    """One player's view of a negotiation game, ready for a Parley negotiator.

    ``payoff``: what each outcome label is worth to the player in the game's units; ``floor``: the
    least payoff it should agree to; ``records``: ``(player, kind, label)`` moves so far in
    alternating order from ``first`` (``kind`` is ``offer`` or ``reject``); ``deadline``: rounds of
    two moves; ``standing``: ``(player, label)`` of the offer on the table, if any."""

    game: str
    me: int
    issue: str
    labels: list[str]
    payoff: dict[str, float]
    floor: float
    records: list[tuple[int, str, str | None]]
    deadline: int
    first: int = 0
    standing: tuple[int, str] | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def can_accept(self) -> bool:
        return self.standing is not None and self.standing[0] != self.me


def _num(pattern: str, text: str, default: float | None = None, cast: type = int) -> Any:
    m = re.search(pattern, text)
    if m is None:
        if default is None:
            raise ValueError(f"the observation does not say {pattern!r}")
        return default
    return cast(m.group(1))


# --- what the game wrote ---------------------------------------------------------------
#
# TextArena's LLM wrapper prints every message as "\n[Sender] text" and strips the tags "[Player 0]",
# "[Player 1]", "[GAME]" from a player's text, but a nested tag ("[GA[GAME]ME]") survives as "[GAME]",
# and TwoDollar quotes the players' words inside its own messages untouched: any line of the
# history may have been written by the opponent. What the game itself wrote is (a) the prompt, the
# first message, before any player speaks; (b) the messages at the very end of the observation:
# when a player is asked to move, the last message is the game's reply to the other player's move
# (or to its own invalid one), and nobody writes after it. The adapters take every fact a move's
# validity or an acceptance depends on from those two places only; the history lines in between
# inform the strategy (the negotiator's view of past offers) and never a rule.


def _at_least(floor: float, most: int) -> int:
    """The least whole share that meets ``floor`` (0 for no floor), at most ``most``."""
    return min(most, max(0, math.ceil(floor))) if math.isfinite(floor) else 0


def _prompt_of(text: str, last_line: str) -> str:
    """The game's first message, up to the end of its first line starting with ``last_line``."""
    i = text.find("\n" + last_line)
    if i < 0:
        raise ValueError(f"the observation has no {last_line.strip()!r} line: not this game's prompt")
    j = text.find("\n", i + 1)
    return text if j < 0 else text[:j]


def _after_own_retries(text: str, me: int) -> str:
    """The text without the trailing invalid moves of ``me`` and the game's answers to them."""
    tail = re.compile(rf"\n\[GAME\] Player {me} attempted an invalid move\. Reason: [^\n]*\Z")
    while (m := tail.search(text)) is not None:
        i = text.rfind(f"\n[Player {me}] ", 0, m.start())
        if i < 0:
            break
        text = text[:i]
    return text


# --- IteratedUltimatumGame -------------------------------------------------------------


class Ultimatum:
    name = "IteratedUltimatumGame"
    _BEGINS = re.compile(
        r"\n\[GAME\] --- Round (\d+) begins! ---\nPlayer (\d+) is the proposer, "
        r"Player \d+ is the responder\.\Z"
    )
    _OFFER = re.compile(r"\n\[GAME\] Round (\d+): Player (\d+) offers \$(\d+) to Player \d+ \(keeping \$\d+\)\.\Z")

    @staticmethod
    def matches(text: str) -> bool:
        return "Iterated Ultimatum Game" in text

    @classmethod
    def now(cls, text: str, me: int) -> tuple[int, int | None, int | None]:
        """``(round, proposer, offer)`` from the game's last message: a round begins (the proposer
        named, no offer yet) or an offer was made; ``proposer`` is None if the end is neither."""
        end = _after_own_retries(text, me)
        if (m := cls._BEGINS.search(end)) is not None:
            return int(m.group(1)), int(m.group(2)), None
        if (m := cls._OFFER.search(end)) is not None:
            return int(m.group(1)), int(m.group(2)), int(m.group(3))
        return 0, None, None

    @classmethod
    def read(cls, text: str, floor: float) -> Table:
        prompt = _prompt_of(text, "You have $")
        me = _num(r"You are Player (\d+), playing \d+ rounds", prompt)
        rounds = _num(r"You are Player \d+, playing (\d+) rounds", prompt)
        pool = _num(r"You have \$(\d+) to split", prompt)
        now, proposer, offer = cls.now(text, me)
        labels = [str(s) for s in range(pool + 1)]
        payoff = {lab: float(int(lab) if me == 0 else pool - int(lab)) for lab in labels}
        # the history (strategy only: its lines may be forged); the real offer, if any, ends it
        offers = [
            (int(p), int(x)) for p, x in re.findall(r"(?m)^\[GAME\] Round \d+: Player (\d+) offers \$(\d+) to", text)
        ]
        decided = len(re.findall(r"(?m)^\[GAME\] Player \d+ (?:accepted!|rejected the offer!)", text))
        records: list[tuple[int, str, str | None]] = []
        for i, (p, x) in enumerate(offers[: max(now - 1, 0)]):
            if p != proposer or i >= decided:
                continue
            records += [(p, "offer", str(pool - x if p == 0 else x)), (1 - p, "reject", None)]
        standing = None
        if proposer is not None and offer is not None:
            standing = (proposer, str(pool - offer if proposer == 0 else offer))
            records.append((proposer, "offer", standing[1]))
        return Table(
            "ultimatum",
            me,
            "player0_share",
            labels,
            payoff,
            floor * pool,
            records,
            deadline=max(rounds, len(records) // 2 + 1),
            first=proposer if proposer is not None else me,
            standing=standing,
            info={"pool": pool, "proposer": proposer, "round": now},
        )

    @staticmethod
    def token(table: Table, kind: str, label: str | None) -> str:
        pool, proposer = table.info["pool"], table.info["proposer"]
        mine = int(label) if kind == "offer" and label is not None else None
        mine = max(table.payoff, key=table.payoff.get) if mine is None else mine
        share = int(mine) if table.me == 0 else pool - int(mine)
        share = max(share, _at_least(table.floor, pool))  # never offer away more than the floor allows
        if proposer is None:  # the game's last message is not one this reader knows: valid either way
            return f"[Reject] [Offer: ${pool - share}]"
        if proposer == table.me:
            return f"[Offer: ${pool - share}]"
        ok = kind == "accept" and table.can_accept and table.payoff[table.standing[1]] >= table.floor
        return "[Accept]" if ok else "[Reject]"


# --- TwoDollar ---------------------------------------------------------------------------


def _cents(x: str | float) -> int:
    return int(round(float(x) * 100))


class TwoDollar:
    name = "TwoDollar"
    # history lines (strategy only): the players' words are quoted in the same messages
    _EVENT = re.compile(
        r"(?m)^(?:\[GAME\] )?Player (\d+) (proposes: \$(\d+(?:\.\d+)?) for themselves|"
        r"accepts the proposal|rejects the proposal)"
    )
    # what the game appends when it asks for a move: the round, then the proposal on the table
    _NOW = re.compile(
        r"\n\[GAME\] === ROUND (\d+) of \d+ ===\n(?:\n\[GAME\] \nCURRENT PROPOSAL:\n"
        r"Player (\d+) wants \$(\d+\.\d\d), Player \d+ gets \$\d+\.\d\d\n)?\Z"
    )
    _AMOUNT = re.compile(r"\[Propose\]\s*\$(\d+(?:\.\d+)?)")  # the game's own reading of a proposal

    @staticmethod
    def matches(text: str) -> bool:
        return "TWO DOLLAR NEGOTIATION GAME" in text

    @classmethod
    def own_proposals(cls, text: str, me: int) -> list[int]:
        """This player's proposals the game took, in cents, from the game's echo of its own actions
        (``[Player N] Your action: ...``, shown to it alone). A forged echo would need ``[Propose] $``
        in the other player's quoted words, which the game never quotes (it cuts them before the
        action, and refuses an accept or reject that also holds a proposal)."""
        out = []
        for m in re.finditer(rf"(?m)^\[Player {me}\] Your action: ([^\n]*)\n\[GAME\] (?!Player {me} attempted)", text):
            if (a := cls._AMOUNT.search(m.group(1))) is not None:
                out.append(_cents(a.group(1)))
        return out

    @classmethod
    def read(cls, text: str, floor: float) -> Table:
        prompt = _prompt_of(text, "FAILURE CONDITION:")
        me = _num(r"You are Player (\d+) negotiating", prompt)
        total = _cents(_num(r"over how to split \$(\d+(?:\.\d+)?) total", prompt, cast=str))
        max_rounds = _num(r"There are (\d+) maximum rounds", prompt)
        threshold = _cents(_num(r"VICTORY CONDITION: Receive at least \$(\d+(?:\.\d+)?)", prompt, "0", str))
        x_deadline = _num(r"This game ends in (\d+) rounds for you", prompt, 0)
        end = cls._NOW.search(_after_own_retries(text, me))
        now = int(end.group(1)) if end else max_rounds
        labels = [f"{c / 100:.2f}" for c in range(total + 1)]
        payoff = {lab: float(_cents(lab) if me == 0 else total - _cents(lab)) for lab in labels}
        standing: tuple[int, str] | None = None
        if end is not None and end.group(2) is not None:
            p, share = int(end.group(2)), _cents(end.group(3))
            standing = (p, labels[min(max(share if p == 0 else total - share, 0), total)])
        records = cls._history(text, labels, total)
        if standing is not None and (not records or records[-1] != (standing[0], "offer", standing[1])):
            records = [(standing[0], "offer", standing[1])]  # the history disagrees with the game: drop it
        elif standing is None and records and records[-1][1] == "offer":
            records = []
        late = bool(x_deadline) and now > x_deadline
        deadline = (x_deadline + 1) // 2 if x_deadline and not late else max_rounds // 2
        return Table(
            "two_dollar",
            me,
            "player0_share",
            labels,
            payoff,
            float(max(threshold, floor * total)),
            records,
            deadline=max(deadline, len(records) // 2 + 1),
            standing=standing,
            first=records[0][0] if records else me,
            info={
                "total": total,
                "x_rounds": bool(x_deadline),
                "late": late or end is None,
                "mine": cls.own_proposals(text, me),
                "high_tension": "one cent at a time" in prompt,
            },
        )

    @classmethod
    def _history(cls, text: str, labels: list[str], total: int) -> list[tuple[int, str, str | None]]:
        records: list[tuple[int, str, str | None]] = []
        for m in cls._EVENT.finditer(text):
            p = int(m.group(1))
            if m.group(3) is not None:
                share = _cents(m.group(3))
                records.append((p, "offer", labels[min(max(share if p == 0 else total - share, 0), total)]))
            elif m.group(2).startswith("rejects"):
                records.append((p, "reject", None))
        return records

    @staticmethod
    def token(table: Table, kind: str, label: str | None) -> str:
        info, total = table.info, table.info["total"]
        ok = table.can_accept and table.payoff[table.standing[1]] >= table.floor
        if info["x_rounds"]:
            # only the player's own acceptance, before its deadline, counts: never propose a split
            # the other side could take, except all of it (then no one gets anything: a draw)
            if kind == "accept" and ok and not info["late"]:
                return "[Accept]"
            return "[Reject]" if table.can_accept else f"[Propose] ${total / 100:.2f}"
        if kind == "accept" and ok:
            return "[Accept]"
        if kind in ("reject", "walk_away", "accept") and table.can_accept:
            return "[Reject]"
        share = (
            total if kind != "offer" or label is None else (_cents(label) if table.me == 0 else total - _cents(label))
        )
        share = max(share, _at_least(table.floor, total))  # never ask for less than the floor
        if info["high_tension"] and info["mine"]:
            last = info["mine"][-1]
            # the game's own check: a concession of more than $0.01 (in floats) is refused
            if share < last and float(f"{last / 100:.2f}") - float(f"{share / 100:.2f}") > 0.01:
                share = last - 1 if float(f"{last / 100:.2f}") - float(f"{(last - 1) / 100:.2f}") <= 0.01 else last
        return f"[Propose] ${share / 100:.2f}"


# --- SimpleNegotiation -------------------------------------------------------------------


def _items(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for qty, name in re.findall(r"(\d+)\s+([A-Za-z]+)", text):
        name = {"Sheeps": "Sheep", "Woods": "Wood"}.get(name.title(), name.title())
        out[name] = out.get(name, 0) + int(qty)
    return out


def _bundle(items: dict[str, int]) -> str:
    return ", ".join(f"{items[r]} {r}" for r in RESOURCES if items.get(r)) or "nothing"


def trade_label(give0: dict[str, int], give1: dict[str, int]) -> str:
    """The canonical outcome label of a trade: what each player hands over."""
    return f"Player 0 gives {_bundle(give0)}; Player 1 gives {_bundle(give1)}"


def _parse_label(label: str) -> tuple[dict[str, int], dict[str, int]]:
    a, b = label.split("; ")
    return _items(a.split(" gives ", 1)[1]), _items(b.split(" gives ", 1)[1])


class SimpleNegotiation:
    name = "SimpleNegotiation"
    _EVENT = re.compile(
        r"(?m)^\s*Player (\d+) (made the following offer to Player \d+: Offered items: (.*?) -> "
        r"Requested items: (.*?)$|accepted the trade offer from Player \d+\.|rejected the trade offer\.|"
        r"made no new trade offer\.)"
    )
    MAX_UNITS = 3

    @staticmethod
    def matches(text: str) -> bool:
        return "in the Negotiation Game." in text and "Requested Resources" in text

    @classmethod
    def _replay(cls, text: str, me: int, have: dict[str, int]) -> tuple[list, tuple | None, list[str]]:
        """Records of the talks since the last trade (earlier turns padded as offers of ``none``),
        the standing offer, every trade offered; ``have`` is brought up to date."""
        records: list[tuple[int, str, str | None]] = []
        seen: list[str] = []
        last: tuple[int, str] | None = None  # the env's current offer: stands until replaced or taken
        standing: tuple[int, str] | None = None  # the negotiation's view: a refusal takes it off
        accepted = False
        for m in cls._EVENT.finditer(text):
            p, what = int(m.group(1)), m.group(2)
            if what.startswith("accepted") and last is not None:
                g0, g1 = _parse_label(last[1])
                for r, q in g0.items():
                    have[r] = have.get(r, 0) + (-q if me == 0 else q)
                for r, q in g1.items():
                    have[r] = have.get(r, 0) + (q if me == 0 else -q)
                records = [(i % 2, "offer", NONE) for i in range(len(records))]
                last = standing = None
                accepted = True
            elif what.startswith("rejected"):
                continue
            else:  # the event that ends a turn
                if m.group(3) is not None:
                    g = _items(m.group(3)), _items(m.group(4))
                    label = trade_label(*(g if p == 0 else g[::-1]))
                    last = standing = (p, label)
                    seen.append(label)
                    records.append((p, "offer", label))
                elif standing is not None and standing[0] != p and not accepted:
                    records.append((p, "reject", None))
                    standing = None
                else:
                    records.append((p, "offer", NONE))
                    standing = (p, NONE)
                accepted = False
        return records, standing, seen

    @classmethod
    def read(cls, text: str, floor: float) -> Table:
        me = _num(r"You are Player (\d+) in the Negotiation Game", text)
        turns = _num(r"The game lasts for (\d+) turns in total", text, 10)
        found = re.findall(r"\[(\w+)\]\s+Qty:\s*(\d+)\s+Value:\s*(\d+)", text)
        have = {r: int(q) for r, q, _ in found}
        value = {r: int(v) for r, _, v in found}
        records, standing, seen = cls._replay(text, me, have)
        labels, payoff = [NONE], {NONE: 0.0}
        for a in value:
            for b in value:
                for qa in range(1, cls.MAX_UNITS + 1):
                    for qb in range(1, cls.MAX_UNITS + 1):
                        if a != b and have.get(a, 0) >= qa:
                            give, get = {a: qa}, {b: qb}
                            labels.append(trade_label(give, get) if me == 0 else trade_label(get, give))
        for lab in seen:
            if lab not in payoff and lab not in labels:
                labels.append(lab)
        worst = -sum(q * value.get(r, 0) for r, q in have.items()) - 1
        infeasible = set()
        for lab in labels[1:]:
            g0, g1 = _parse_label(lab)
            give, get = (g0, g1) if me == 0 else (g1, g0)
            ok = all(have.get(r, 0) >= q for r, q in give.items())
            if not ok:
                infeasible.add(lab)
            payoff[lab] = (
                float(
                    sum(q * value.get(r, 0) for r, q in get.items()) - sum(q * value.get(r, 0) for r, q in give.items())
                )
                if ok
                else float(worst)
            )
        return Table(
            "simple_negotiation",
            me,
            "trade",
            labels,
            payoff,
            max(floor, 1.0),
            records,
            deadline=max(turns // 2, len(records) // 2 + 1),
            standing=standing,
            info={"have": have, "value": value, "infeasible": infeasible},
        )

    @staticmethod
    def token(table: Table, kind: str, label: str | None) -> str:
        if (
            kind == "accept"
            and table.can_accept
            and table.standing[1] != NONE
            and table.standing[1] not in table.info["infeasible"]
            and table.payoff[table.standing[1]] >= table.floor
        ):
            return "[Accept]"
        if kind == "offer" and label not in (None, NONE) and table.payoff.get(label, -1) >= table.floor:
            g0, g1 = _parse_label(label)
            give, get = (g0, g1) if table.me == 0 else (g1, g0)
            if all(table.info["have"].get(r, 0) >= q for r, q in give.items()) and give and get:
                return f"[Offer: {_bundle(give)} -> {_bundle(get)}]"
        return "[Deny]"


GAMES = (Ultimatum, TwoDollar, SimpleNegotiation)


def game_of(text: str) -> Any:
    """The game an observation belongs to (``ValueError`` if none here)."""
    for g in GAMES:
        if g.matches(text):
            return g
    raise ValueError(
        f"not an observation of a TextArena negotiation game these adapters play ({', '.join(g.name for g in GAMES)})"
    )
