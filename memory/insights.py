"""The cross-game insight bank: what worked, kept per agent configuration.

After a game, :func:`distill` turns the finished (or abandoned) game into
short, concrete lessons: which NPCs' claims proved true or false, how each
negotiation ended and at what utility, how each quest was completed, which
evidence swayed the council, which moves the rules refused. The rules work
offline from the engine state and the event log; an optional ``summarise``
callable (an LLM, when one is configured) adds its own lines on top.

:class:`InsightBank` keeps those lessons per agent configuration key (for
example ``"harbor-v1/player/autopilot"`` or ``"bazaar-v1/ozra/boulware"``) with
add / edit / remove operations. Re-learning a lesson reinforces it (support
and weight go up) instead of duplicating it; lessons not confirmed by a game
decay; each key holds at most ``cap`` lessons, the weakest evicted first.
Later games inject the top lessons into an agent's context as priors
(:func:`as_context_lines`). The bank is one JSON file, written atomically.

This module imports no LLM, embedding or vector-store library.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from game.errors import SaveError
from game.saves import atomic_write
from game.types import PLAYER, Event

FORMAT = "parley-insights"
FORMAT_VERSION = 1
SOURCES = ("rule", "llm")
TOPICS = ("quest", "trust", "negotiation", "council", "exploration", "moves", "general")
MAX_TEXT = 160            # characters per insight
MAX_WEIGHT = 5.0          # reinforcement never pushes a weight above this
REINFORCE_BONUS = 0.5     # weight gained when a game confirms an insight again
MIN_WEIGHT = 0.05         # decay below this forgets the insight
NEAR_DUPLICATE = 0.8      # Jaccard word similarity that counts as "the same insight"
LLM_WEIGHT = 0.75         # summariser lines start less trusted than rule lines
MAX_LLM_LINES = 5
_ID_LEN = 10

Lesson = tuple[str, str, float]   # (topic, text, weight)


# --- text helpers ---------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:[.'=][a-z0-9]+)*")


def words(text: str) -> list[str]:
    """Lower-case word tokens; keeps ``price=22``, ``0.75`` and ``lou's`` whole."""
    return _WORD.findall(text.lower())


def normalise(text: str) -> str:
    """The comparison form of a text: its words, lower case, single spaces."""
    return " ".join(words(text))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' word sets (1.0 for equal normal forms)."""
    wa, wb = set(words(a)), set(words(b))
    if not wa and not wb:
        return 1.0
    return len(wa & wb) / len(wa | wb)


def near_duplicate(a: str, b: str) -> bool:
    return normalise(a) == normalise(b) or similarity(a, b) >= NEAR_DUPLICATE


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """One line, single-spaced, at most ``limit`` characters (cut at a word, with '...')."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    if " " in cut[limit // 2:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "..."


def _round(w: float) -> float:
    return round(float(w), 6)


def _check_weight(weight: Any, what: str = "weight") -> float:
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise TypeError(f"{what} must be a number, got {type(weight).__name__}")
    w = float(weight)
    if not math.isfinite(w) or w < 0 or w > MAX_WEIGHT:
        raise ValueError(f"{what} {weight!r} is out of range (0 to {MAX_WEIGHT})")
    return _round(w)


def insight_id(key: str, text: str, salt: int = 0) -> str:
    """A stable short id: a hash of the key and the normalised text."""
    raw = f"{key}\x1f{normalise(text)}" + (f"\x1f{salt}" if salt else "")
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:_ID_LEN]


# --- the insight ----------------------------------------------------------------

@dataclass
class Insight:
    """One lesson for one agent configuration."""

    id: str
    text: str
    key: str
    topic: str
    weight: float = 1.0
    support: int = 1
    created_game: int = 0
    updated_game: int = 0
    source: str = "rule"

    def rank(self) -> tuple[float, int, str]:
        """Sort key, best first: weight, then support (both descending), then id."""
        return (-self.weight, -self.support, self.id)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Insight:
        """Build from :meth:`to_dict` output; raises ValueError naming the bad field."""
        if not isinstance(d, Mapping):
            raise ValueError(f"an insight must be an object, got {type(d).__name__}")
        unknown = sorted(set(d) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"unknown insight field(s): {', '.join(unknown)}")
        for f in ("id", "text", "key", "topic"):
            if not isinstance(d.get(f), str) or not d[f].strip():
                raise ValueError(f"insight field {f!r} must be a non-empty string")
        for f in ("support", "created_game", "updated_game"):
            v = d.get(f, 1 if f == "support" else 0)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"insight field {f!r} must be a non-negative integer, got {v!r}")
        source = d.get("source", "rule")
        if source not in SOURCES:
            raise ValueError(f"insight field 'source' must be one of {', '.join(SOURCES)}, got {source!r}")
        try:
            weight = _check_weight(d.get("weight", 1.0))
        except TypeError as e:
            raise ValueError(str(e)) from None
        return cls(id=d["id"], text=d["text"], key=d["key"], topic=d["topic"], weight=weight,
                   support=int(d.get("support", 1)), created_game=int(d.get("created_game", 0)),
                   updated_game=int(d.get("updated_game", 0)), source=source)


def as_context_lines(insights: Iterable[Insight]) -> list[str]:
    """Prior lines for an agent's context: ``[insight x3] Lou's claims about gem proved false``."""
    return [f"[insight x{i.support}] {i.text}" for i in insights]


# --- the bank -------------------------------------------------------------------

class InsightBank:
    """Insights per agent configuration key, capped, decaying, persisted as JSON.

    ``path`` is the JSON file (loaded now if it exists; a corrupt file raises
    :class:`~game.errors.SaveError` and is left untouched). Without a path the
    bank lives in memory and :meth:`save` does nothing.
    """

    def __init__(self, path: str | Path | None = None, cap: int = 20):
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise ValueError(f"cap must be a positive integer, got {cap!r}")
        self.path = Path(path) if path is not None else None
        self.cap = cap
        self.game = 0
        self._by_key: dict[str, dict[str, Insight]] = {}
        if self.path is not None and self.path.exists():
            self.load()

    # --- reading ------------------------------------------------------------------
    def keys(self) -> list[str]:
        return sorted(k for k, v in self._by_key.items() if v)

    def insights(self, key: str) -> list[Insight]:
        """Every insight held for ``key``, best first."""
        return sorted(self._by_key.get(key, {}).values(), key=Insight.rank)

    def for_agent(self, key: str, limit: int | None = 5) -> list[Insight]:
        """The top ``limit`` insights for ``key``: by weight, then support, then id."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise ValueError(f"limit must be a non-negative integer or None, got {limit!r}")
        ranked = self.insights(key)
        return ranked if limit is None else ranked[:limit]

    def context_lines(self, key: str, limit: int | None = 5) -> list[str]:
        return as_context_lines(self.for_agent(key, limit))

    def get(self, key: str, insight_id: str) -> Insight:
        held = self._by_key.get(key, {})
        if insight_id not in held:
            if key not in self._by_key or not held:
                known = self.keys()
                hint = f"keys with insights: {', '.join(known)}" if known else "the bank is empty"
                raise KeyError(f"no insight {insight_id!r} for key {key!r}: no insights for that key ({hint})")
            raise KeyError(f"no insight {insight_id!r} for key {key!r} "
                           f"(known ids: {', '.join(sorted(held))})")
        return held[insight_id]

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_key.values())

    def __contains__(self, key: object) -> bool:
        return bool(self._by_key.get(key)) if isinstance(key, str) else False

    # --- operations ---------------------------------------------------------------
    def find_similar(self, key: str, text: str, exclude: str | None = None) -> Insight | None:
        """The held insight that ``text`` near-duplicates (most similar, then lowest id)."""
        norm = normalise(text)
        best: tuple[float, str] | None = None
        for ins in self._by_key.get(key, {}).values():
            if ins.id == exclude:
                continue
            sim = 1.0 if normalise(ins.text) == norm else similarity(ins.text, text)
            if sim >= NEAR_DUPLICATE and (best is None or (-sim, ins.id) < (-best[0], best[1])):
                best = (sim, ins.id)
        return None if best is None else self._by_key[key][best[1]]

    def add(self, key: str, text: str, topic: str, weight: float = 1.0, source: str = "rule") -> Insight:
        """Add an insight, or reinforce the one it near-duplicates (support + 1, weight up).

        When the key then holds more than ``cap`` insights the weakest are
        evicted; that can be the new insight itself, which is still returned.
        """
        key = _check_name(key, "key")
        topic = _check_name(topic, "topic").lower()
        text = _check_text(text)
        w = _check_weight(weight)
        if source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
        existing = self.find_similar(key, text)
        if existing is not None:
            existing.support += 1
            existing.weight = _round(min(MAX_WEIGHT, max(existing.weight, w) + REINFORCE_BONUS))
            existing.updated_game = self.game
            return existing
        held = self._by_key.setdefault(key, {})
        salt, iid = 0, insight_id(key, text)
        while iid in held:  # an edited insight may keep the id this text would hash to
            salt += 1
            iid = insight_id(key, text, salt)
        ins = Insight(id=iid, text=text, key=key, topic=topic, weight=w, support=1,
                      created_game=self.game, updated_game=self.game, source=source)
        held[iid] = ins
        self._enforce_cap(key)
        return ins

    def edit(self, key: str, insight_id: str, text: str | None = None, weight: float | None = None) -> Insight:
        """Change an insight's text and/or weight; its id stays the same."""
        ins = self.get(key, insight_id)
        new_text = _check_text(text) if text is not None else None
        new_weight = _check_weight(weight) if weight is not None else None
        if new_text is not None:
            other = self.find_similar(key, new_text, exclude=insight_id)
            if other is not None:
                raise ValueError(f"the new text near-duplicates insight {other.id!r} ({other.text!r}); "
                                 f"remove one of them instead")
            ins.text = new_text
        if new_weight is not None:
            ins.weight = new_weight
        ins.updated_game = self.game
        self._enforce_cap(key)
        return ins

    def remove(self, key: str, insight_id: str) -> Insight:
        """Delete an insight and return it."""
        self.get(key, insight_id)
        ins = self._by_key[key].pop(insight_id)
        if not self._by_key[key]:
            del self._by_key[key]
        return ins

    def decay(self, factor: float = 0.9, key: str | None = None) -> list[Insight]:
        """Scale the weight of every insight not reinforced this game (``updated_game < game``).

        Only ``key``'s insights when given, else every key's. Insights whose
        weight drops below ``MIN_WEIGHT`` are forgotten; they are returned.
        """
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) \
                or not math.isfinite(factor) or not 0 < factor <= 1:
            raise ValueError(f"decay factor must be in (0, 1], got {factor!r}")
        dropped: list[Insight] = []
        for k in ([key] if key is not None else sorted(self._by_key)):
            for ins in sorted(self._by_key.get(k, {}).values(), key=lambda i: i.id):
                if ins.updated_game >= self.game:
                    continue
                ins.weight = _round(ins.weight * factor)
                if ins.weight < MIN_WEIGHT:
                    dropped.append(self.remove(k, ins.id))
        return dropped

    def record_game(self) -> int:
        """One more game played: the counter that stamps created/updated games."""
        self.game += 1
        return self.game

    def _enforce_cap(self, key: str) -> list[Insight]:
        held = self._by_key.get(key, {})
        evicted = []
        if len(held) > self.cap:
            for ins in sorted(held.values(), key=Insight.rank)[self.cap:]:
                evicted.append(held.pop(ins.id))
        return evicted

    # --- persistence ----------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": FORMAT_VERSION, "game": self.game,
                "insights": {k: [i.to_dict() for i in sorted(v.values(), key=lambda i: i.id)]
                             for k, v in sorted(self._by_key.items()) if v}}

    def set_state(self, state: Mapping[str, Any]) -> None:
        """Restore a :meth:`get_state` snapshot; a bad one raises SaveError and changes nothing."""
        try:
            game, by_key = _parse_state(state)
        except ValueError as e:
            raise SaveError(f"insight bank state: {e}", hint="pass a dict made by InsightBank.get_state()") from None
        self._install(game, by_key)

    def load(self) -> None:
        """(Re)load the bank from its file."""
        if self.path is None:
            raise ValueError("this insight bank has no file")
        path = self.path
        hint = "the file was left as it is; fix it or move it away to start a new bank"
        from game.files import read_text
        raw = read_text(path, limit=256 * 1024 * 1024, error=SaveError, hint=hint,
                        missing_hint="an insight bank file is created by saving")
        if not raw.strip():
            raise SaveError(f"{path}: empty file", hint=hint)
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as e:
            raise SaveError(f"{path}:{e.lineno}:{e.colno}: corrupt insight bank ({e.msg})", hint=hint) from None
        except (ValueError, RecursionError) as e:
            raise SaveError(f"{path}: corrupt insight bank ({'nested too deeply' if isinstance(e, RecursionError) else e})",
                            hint=hint) from None
        try:
            game, by_key = _parse_state(data)
        except ValueError as e:
            raise SaveError(f"{path}: {e}", hint=hint) from None
        self._install(game, by_key)

    def save(self) -> Path | None:
        """Write the bank to its file atomically (nothing to do without a path)."""
        if self.path is None:
            return None
        atomic_write(self.path, json.dumps(self.get_state(), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        return self.path

    def _install(self, game: int, by_key: dict[str, dict[str, Insight]]) -> None:
        self.game = game
        self._by_key = by_key
        for k in list(by_key):
            self._enforce_cap(k)


def _check_name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value.strip()


def _check_text(text: Any) -> str:
    if not isinstance(text, str):
        raise TypeError(f"insight text must be a string, got {type(text).__name__}")
    out = clip(text)
    if not words(out):
        raise ValueError(f"insight text {text!r} has no words")
    return out


def _parse_state(data: Any) -> tuple[int, dict[str, dict[str, Insight]]]:
    if not isinstance(data, Mapping):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ValueError(f"not an insight bank (format {data.get('format')!r}, expected {FORMAT!r})")
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(f"insight bank version {data.get('version')!r} is not supported "
                         f"(this Parley reads version {FORMAT_VERSION})")
    game = data.get("game")
    if isinstance(game, bool) or not isinstance(game, int) or game < 0:
        raise ValueError(f"'game' must be a non-negative integer, got {game!r}")
    raw = data.get("insights")
    if not isinstance(raw, Mapping):
        raise ValueError("'insights' must be an object of key -> list of insights")
    by_key: dict[str, dict[str, Insight]] = {}
    for key, items in raw.items():
        if not isinstance(items, list):
            raise ValueError(f"insights[{key!r}] must be a list")
        held: dict[str, Insight] = {}
        for n, d in enumerate(items):
            try:
                ins = Insight.from_dict(d)
            except ValueError as e:
                raise ValueError(f"insights[{key!r}][{n}]: {e}") from None
            if ins.key != key:
                raise ValueError(f"insights[{key!r}][{n}]: filed under {key!r} but its key is {ins.key!r}")
            if ins.id in held:
                raise ValueError(f"insights[{key!r}][{n}]: duplicate id {ins.id!r}")
            held[ins.id] = ins
        if held:
            by_key[key] = held
    return game, by_key


# --- distillation ---------------------------------------------------------------

def _as_dict(state: Any) -> dict[str, Any]:
    if hasattr(state, "to_dict"):
        return state.to_dict()
    if isinstance(state, Mapping):
        if "quests_done" not in state and isinstance(state.get("state"), Mapping):
            return dict(state["state"])  # Engine.get_state(), as saves hold it
        return dict(state)
    raise TypeError(f"engine_state must be a GameState or its to_dict(), got {type(state).__name__}")


def _as_events(events: Iterable[Any] | None) -> list[Event]:
    out = []
    for ev in events or ():
        if isinstance(ev, Event):
            out.append(ev)
        elif isinstance(ev, Mapping):  # a transcript record or Event.to_dict()
            if ev.get("type", "event") == "event":
                out.append(Event.from_dict(ev))
        else:
            raise TypeError(f"events must be Event objects or dicts, got {type(ev).__name__}")
    return out


class _Ctx:
    """What the rules need: the spec, the state as a dict, the agent's view of events."""

    def __init__(self, world_spec: Any, engine_state: Any, events: Iterable[Any] | None, agent_id: str):
        self.spec = getattr(world_spec, "spec", world_spec)  # a World or its WorldSpec
        self.state = _as_dict(engine_state)
        self.agent = agent_id
        self.events = [e for e in _as_events(events) if e.actor == agent_id or agent_id in e.perceivers]

    def scene_order(self) -> list[str]:
        """Scene ids in the state, in the order the agent's events first mention them, then by id."""
        first: dict[str, int] = {}
        for ev in self.events:
            sid = ev.data.get("scene")
            if isinstance(sid, str):
                first.setdefault(sid, ev.seq)
        scenes = self.state.get("scenes", {})
        return sorted(scenes, key=lambda s: (first.get(s, 1 << 62), s))

    def name(self, ident: str | None) -> str:
        s = self.spec
        if ident == PLAYER:
            return "you" if self.agent == PLAYER else s.player.name
        for table in (s.npcs, s.items, s.locations):
            if ident in table:
                return table[ident].name
        return str(ident)

    def the(self, item: str) -> str:
        n = self.name(item)
        return n if n[:1].isupper() or n[:4].lower() == "the " else f"the {n}"


def _truth(ctx: _Ctx) -> dict[str, bool]:
    truth = {k: bool(v) for k, v in ctx.state.get("verified", {}).items()}
    for ev in ctx.events:
        if ev.kind == "verify":
            truth.update({k: bool(v) for k, v in ev.data.get("truth", {}).items()})
    return truth


def _judge(ctx: _Ctx, claim: Mapping[str, Any], truth: Mapping[str, bool]) -> bool | None:
    """True/False when the game verified the claim (or a contradicting fact), else None."""
    s, r, o = claim.get("subject"), claim.get("relation"), claim.get("object")
    facts = ctx.spec.facts
    for fid, f in facts.items():
        if (f.subject, f.relation, f.object) == (s, r, o) and fid in truth:
            return truth[fid]
    rel = ctx.spec.relations.get(r)
    if rel is not None and rel.functional:
        for fid, f in facts.items():
            if f.subject == s and f.relation == r and f.object != o and truth.get(fid) is True:
                return False
    return None


def _trust_lessons(ctx: _Ctx) -> list[Lesson]:
    truth = _truth(ctx)
    verdicts: dict[tuple[str, str], list[tuple[bool, str]]] = {}
    for ev in ctx.events:
        if ev.kind != "say" or ev.actor == ctx.agent:
            continue
        for claim in ev.data.get("claims", ()):
            v = _judge(ctx, claim, truth)
            if v is None:
                continue
            text = next((f.text for f in ctx.spec.facts.values()
                         if (f.subject, f.relation, f.object) ==
                         (claim.get("subject"), claim.get("relation"), claim.get("object"))), "")
            verdicts.setdefault((ev.actor, str(claim.get("topic", "?"))), []).append((v, text))
    out = []
    for (speaker, topic), vs in sorted(verdicts.items()):
        n_true = sum(v for v, _ in vs)
        n_false = len(vs) - n_true
        who, about = ctx.name(speaker), topic.replace("_", " ")
        checked = f"{len(vs)} claim{'s' if len(vs) != 1 else ''} checked"
        if n_false == 0:
            out.append(("trust", f"{who}'s claims about {about} proved true ({checked})",
                        min(2.0, 1.0 + 0.25 * (len(vs) - 1))))
        else:
            lie = next(t for v, t in vs if not v)
            verdict = "proved false" if n_true == 0 else f"were mixed ({n_true} true, {n_false} false)"
            head = f"{who}'s claims about {about} {verdict}"
            room = MAX_TEXT - len(head) - 4
            example = f': "{clip(lie, room)}"' if lie and room >= 20 else ""
            out.append(("trust", head + example,
                        min(2.0, 1.25 + 0.25 * (n_false - 1))))
    return out


def _terms_text(terms: Mapping[str, Any] | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in terms.items()) if terms else "nothing"


def _negotiation_lessons(ctx: _Ctx) -> list[Lesson]:
    out = []
    for sid in ctx.scene_order():
        sc = ctx.state["scenes"][sid]
        sess = sc.get("session") if isinstance(sc, Mapping) else None
        scene = ctx.spec.scenes.get(sid)
        if not isinstance(sess, Mapping) or scene is None or ctx.agent not in sess.get("parties", ()):
            continue
        other = next((p for p in sess["parties"] if p != ctx.agent), "?")
        history = sess.get("history", [])
        rounds = max((m.get("round", 1) for m in history), default=0)
        rtext = f"{rounds} round{'s' if rounds != 1 else ''}"
        where = f"Trade for {scene.title} with {ctx.name(other)}"
        metrics = sc.get("metrics") or {}
        status = sess.get("status", "open")
        mine = [m for m in history if m.get("party") == ctx.agent and m.get("kind") == "offer"]
        opening = _terms_text(mine[0].get("terms")) if mine else None
        if status == "open":
            out.append(("negotiation", f"{where} was left open at round {sess.get('round', rounds)}; "
                        "close talks before leaving", 0.75))
            continue
        u = (metrics.get("utilities") or {}).get(ctx.agent)
        res = (metrics.get("reservations") or {}).get(ctx.agent)
        nash_u = (metrics.get("nash_utilities") or {}).get(ctx.agent)
        if status == "agreement":
            agreed = _terms_text(sess.get("agreement"))
            last = history[-1] if history else {}
            if len(mine) == 1 and opening == agreed:
                how = f"opening at {opening} closed the deal"
            elif last.get("party") == ctx.agent and last.get("kind") == "accept":
                how = f"accepting {ctx.name(other)}'s offer of {agreed} closed the deal"
            else:
                how = f"reached a deal on {agreed}"
            util = f"; own utility {u:.2f}" if isinstance(u, (int, float)) else ""
            out.append(("negotiation", f"{where}: {how} in {rtext}{util}", 1.0))
            if isinstance(u, (int, float)) and isinstance(nash_u, (int, float)):
                nash = _terms_text(metrics.get("nash_terms"))
                if u + 0.05 < nash_u:
                    out.append(("negotiation", f"{where}: the Nash point ({nash}) was worth {nash_u:.2f}, "
                                f"the deal {u:.2f}; open nearer it, concede slowly", 1.25))
                else:
                    out.append(("negotiation", f"{where}: the deal was worth {u:.2f}, at or above the "
                                f"Nash point ({nash}); keep that approach", 1.0))
        else:
            by = sess.get("walked_away_by")
            ended = (f"{'you' if by == ctx.agent else ctx.name(by)} walked away" if status == "walked_away"
                     else "the deadline passed")
            theirs = [m for m in history if m.get("party") == other and m.get("kind") == "offer"]
            last = f" ({ctx.name(other)} last offered {_terms_text(theirs[-1].get('terms'))})" if theirs else ""
            value = f", reservation utility {res:.2f}" if isinstance(res, (int, float)) else ""
            start = f" after opening at {opening}" if opening else ""
            out.append(("negotiation", f"{where}: no deal{start}; {ended} in round {rounds}{last}{value}", 1.25))
    return out


def _goal_phrase(ctx: _Ctx, g: Any) -> str:
    k = g.kind
    if k == "gave":
        return f"giving {ctx.the(g.item)} to {ctx.name(g.npc)}"
    if k == "has":
        return f"getting {ctx.the(g.item)}"
    if k == "opened":
        return f"opening {ctx.the(g.item)}"
    if k == "at":
        return f"reaching {ctx.name(g.location)}"
    if k == "item_at":
        return f"bringing {ctx.the(g.item)} to {ctx.name(g.location)}"
    if k == "scene":
        sc = ctx.spec.scenes.get(g.scene)
        title = sc.title if sc is not None else g.scene
        return {"agreement": f"striking a deal for {title}", "passed": f"passing the vote on {title}",
                "failed": f"defeating the vote on {title}"}.get(g.outcome, f"{g.outcome} in {title}")
    return k


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _quest_lessons(ctx: _Ctx) -> list[Lesson]:
    if ctx.agent != PLAYER:
        return []
    st, quests = ctx.state, ctx.spec.quests
    done = [q for q in st.get("quests_done", []) if q in quests]
    when = {ev.data.get("quest"): ev.turn for ev in ctx.events if ev.kind == "quest"}
    turn = st.get("turn", 0)
    if st.get("won"):
        head = f"Won in {turn} turns with score {st.get('score', 0)} ({len(done)}/{len(quests)} quests)"
    else:
        why = "turn limit reached" if st.get("done") else "game unfinished"
        head = f"Not won: {len(done)}/{len(quests)} quests, score {st.get('score', 0)} after {turn} turns ({why})"
    out: list[Lesson] = [("quest", head, 1.0)]
    for qid in done:
        q = quests[qid]
        at = f" (turn {when[qid]})" if qid in when else ""
        how = _and([_goal_phrase(ctx, g) for g in q.goal])
        out.append(("quest", f"Quest '{q.title}' was completed by {how}{at}", 1.0))
    for qid in quests:
        if qid not in done:
            out.append(("quest", f"Quest '{quests[qid].title}' was not completed in {turn} turns", 0.75))
    return out


def _council_lessons(ctx: _Ctx) -> list[Lesson]:
    out = []
    persuaded: dict[str, list[tuple[str, str]]] = {}
    for ev in ctx.events:
        if ev.kind == "persuaded":
            persuaded.setdefault(ev.data.get("scene", ""), []).append((ev.actor, ev.data.get("item", "")))
    for sid in ctx.scene_order():
        cs = ctx.state["scenes"][sid]
        scene = ctx.spec.scenes.get(sid)
        if scene is None or getattr(scene, "type", None) != "council" or not isinstance(cs, Mapping):
            continue
        members = {p.id for p in scene.participants}
        if ctx.agent not in members and not any(ev.data.get("scene") == sid for ev in ctx.events):
            continue
        for who, item in persuaded.get(sid, []):
            out.append(("council", f"Council '{scene.title}': giving {ctx.the(item)} to {ctx.name(who)} "
                        f"won their support", 1.25))
        outcome = cs.get("outcome")
        votes = cs.get("votes") or {}
        if outcome in ("passed", "failed"):
            yes = sum(v == "yes" for v in votes.values())
            noes = sorted(ctx.name(p) for p, v in votes.items() if v != "yes" and p != ctx.agent)
            against = f"; voted no: {', '.join(noes)}" if noes else ""
            out.append(("council", f"Council '{scene.title}': the motion {outcome} "
                        f"{yes} to {len(votes) - yes}{against}", 1.0))
        elif cs.get("status") == "debating":
            out.append(("council", f"Council '{scene.title}' never came to a vote", 0.75))
    return out


def _exploration_lessons(ctx: _Ctx) -> list[Lesson]:
    out = []
    seen: set[str] = set()
    for ev in ctx.events:
        if ev.actor != ctx.agent:
            continue
        if ev.kind == "unlock":
            key = ev.data.get("key")
            if "exit" in ev.data:
                loc = ctx.spec.locations.get(ev.location or "")
                lock = loc.locked.get(ev.data["exit"]) if loc is not None else None
                what = f"the {lock.name if lock else ev.data['exit']} at {ctx.name(ev.location)}"
            else:
                what = ctx.the(ev.data.get("item", "?"))
            text = f"{what[:1].upper()}{what[1:]} opens with {ctx.the(key)}"
        elif ev.kind == "verify":
            facts = [ctx.spec.facts[f] for f in ev.data.get("truth", {}) if f in ctx.spec.facts]
            topics = sorted({f.topic.replace("_", " ") for f in facts})
            how = (ev.text.split(":", 1)[0].removeprefix("Verified by ")
                   if ev.text.startswith("Verified by ") and ":" in ev.text else "Evidence found")
            text = (f"{how[:1].upper()}{how[1:]} verified {len(facts)} fact{'s' if len(facts) != 1 else ''} "
                    f"about {', '.join(topics)}")
        else:
            continue
        if text not in seen:
            seen.add(text)
            out.append(("exploration", text, 0.75))
    return out


def _invalid_lessons(ctx: _Ctx) -> list[Lesson]:
    mine = [ev for ev in ctx.events if ev.kind == "invalid" and ev.actor == ctx.agent]
    n = max(len(mine), int(ctx.state.get("invalid", {}).get(ctx.agent, 0)))
    if n == 0:
        return []
    moves = f"{n} move{'s were' if n != 1 else ' was'} refused"
    if not mine:
        return [("moves", moves, 0.5)]
    reasons = Counter(ev.text for ev in mine)
    reason, k = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    verb = Counter(ev.data.get("verb", "?") for ev in mine if ev.text == reason).most_common(1)[0][0]
    return [("moves", f"{moves}; most common ({k}x, {verb}): {reason}", min(1.5, 0.5 + 0.1 * n))]


def _rule_lessons(ctx: _Ctx) -> list[Lesson]:
    out: list[Lesson] = []
    for part in (_quest_lessons, _trust_lessons, _negotiation_lessons, _council_lessons,
                 _exploration_lessons, _invalid_lessons):
        for topic, text, weight in part(ctx):
            text = clip(text)
            if not any(near_duplicate(text, t) for _, t, _ in out):
                out.append((topic, text, _round(weight)))
    return out


def game_summary(world_spec: Any, engine_state: Any, events: Iterable[Any] | None, agent_key: str,
                 agent_id: str) -> str:
    """A compact text of the game, from the agent's side: what a summariser is given."""
    ctx = _Ctx(world_spec, engine_state, events, agent_id)
    return _summary(ctx, agent_key, _rule_lessons(ctx))


def _summary(ctx: _Ctx, agent_key: str, lessons: list[Lesson]) -> str:
    st = ctx.state
    lines = [f"World: {ctx.spec.title} ({ctx.spec.id}). Agent: {ctx.agent} (configuration {agent_key}).",
             f"Turns: {st.get('turn', 0)}; score {st.get('score', 0)}; "
             f"quests {len(st.get('quests_done', []))}/{len(ctx.spec.quests)}; "
             f"{'won' if st.get('won') else 'not won'}; refused moves {st.get('invalid', {}).get(ctx.agent, 0)}.",
             "Observed lessons:"]
    lines += [f"- [{topic}] {text}" for topic, text, _ in lessons] or ["- (none)"]
    lines.append(f"Reply with at most {MAX_LLM_LINES} short lines (under {MAX_TEXT} characters each) "
                 f"of advice for the next game; a line may start with a topic ({', '.join(TOPICS)}) and ':'.")
    return "\n".join(lines)


_BULLET = re.compile(r"^\s*(?:[-*\u2022]+|\d+[.)])\s*")


def _llm_lessons(summarise: Callable[[str], list[str]], summary: str, taken: list[str]) -> list[Lesson]:
    lines = summarise(summary)
    if isinstance(lines, str) or not isinstance(lines, (list, tuple)):
        raise TypeError(f"summarise must return a list of strings, got {type(lines).__name__}")
    out: list[Lesson] = []
    for line in lines:
        if not isinstance(line, str):
            raise TypeError(f"summarise returned a {type(line).__name__} line; expected strings")
        text = _BULLET.sub("", line).strip()
        topic = "general"
        head, sep, rest = text.partition(":")
        if sep and head.strip().lower() in TOPICS and rest.strip():
            topic, text = head.strip().lower(), rest.strip()
        text = clip(text)
        if not words(text) or any(near_duplicate(text, t) for t in taken):
            continue
        taken.append(text)
        out.append((topic, text, LLM_WEIGHT))
        if len(out) >= MAX_LLM_LINES:
            break
    return out


def distill_with_sources(world_spec: Any, engine_state: Any, events: Iterable[Any] | None, agent_key: str,
                         agent_id: str, summarise: Callable[[str], list[str]] | None = None
                         ) -> list[tuple[str, str, float, str]]:
    """Like :func:`distill`, with each lesson's source ("rule" or "llm") as a fourth field."""
    ctx = _Ctx(world_spec, engine_state, events, agent_id)
    rules = _rule_lessons(ctx)
    out = [(t, x, w, "rule") for t, x, w in rules]
    if summarise is not None:
        taken = [x for _, x, _ in rules]
        out += [(t, x, w, "llm") for t, x, w in _llm_lessons(summarise, _summary(ctx, agent_key, rules), taken)]
    return out


def distill(world_spec: Any, engine_state: Any, events: Iterable[Any] | None, agent_key: str, agent_id: str,
            summarise: Callable[[str], list[str]] | None = None) -> list[Lesson]:
    """Lessons ``(topic, text, weight)`` from a finished or unfinished game, for one agent.

    ``world_spec`` is a WorldSpec (or a World), ``engine_state`` a GameState
    (or its ``to_dict()``), ``events`` the game's events (Event objects or
    transcript dicts); only events the agent acted in or perceived count.
    The rules run offline and give the same list, in the same order, for the
    same game. With ``summarise`` (an LLM, when one is configured) its lines
    for :func:`game_summary` are appended after the rule lessons.
    """
    return [(t, x, w) for t, x, w, _ in
            distill_with_sources(world_spec, engine_state, events, agent_key, agent_id, summarise)]


def update_from_game(bank: InsightBank, world_spec: Any, engine_state: Any, events: Iterable[Any] | None,
                     agent_key: str, agent_id: str,
                     summarise: Callable[[str], list[str]] | None = None) -> list[Insight]:
    """Distil a game into ``bank`` under ``agent_key``: add or reinforce each lesson,
    decay the key's other insights, count the game and save. Returns the insights
    added or reinforced (some may have been evicted by the cap)."""
    lessons = distill_with_sources(world_spec, engine_state, events, agent_key, agent_id, summarise)
    touched = [bank.add(agent_key, text, topic, weight, source) for topic, text, weight, source in lessons]
    bank.decay(key=agent_key)
    bank.record_game()
    bank.save()
    return touched
