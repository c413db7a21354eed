"""The cross-game insight bank: what worked, kept per agent configuration.

:class:`InsightBank` keeps short, concrete lessons per agent configuration key
(for example ``"harbor-v1/player/autopilot"`` or ``"bazaar-v1/ozra/boulware"``)
with add / edit / remove operations. Re-learning a lesson reinforces it
(support and weight go up) instead of duplicating it; lessons not confirmed by
a game decay; each key holds at most ``cap`` lessons, the weakest evicted first.
Later games inject the top lessons into an agent's context as priors
(:func:`as_context_lines`). The bank is one JSON file, written atomically.

The lessons themselves are drawn from a finished game by ``memory.lessons``
(:func:`~memory.lessons.distill`, :func:`~memory.lessons.update_from_game`);
those names are importable from here too.

This module imports no LLM, embedding or vector-store library.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from game.core.errors import SaveError
from game.core.files import read_text, write_atomic

FORMAT = "parley-insights"
FORMAT_VERSION = 1
SOURCES = ("rule", "llm")
MAX_TEXT = 160  # characters per insight
MAX_WEIGHT = 5.0  # reinforcement never pushes a weight above this
REINFORCE_BONUS = 0.5  # weight gained when a game confirms an insight again
MIN_WEIGHT = 0.05  # decay below this forgets the insight
NEAR_DUPLICATE = 0.8  # Jaccard word similarity that counts as "the same insight"
_ID_LEN = 10


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
    if " " in cut[limit // 2 :]:
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
        return cls(
            id=d["id"],
            text=d["text"],
            key=d["key"],
            topic=d["topic"],
            weight=weight,
            support=int(d.get("support", 1)),
            created_game=int(d.get("created_game", 0)),
            updated_game=int(d.get("updated_game", 0)),
            source=source,
        )


def as_context_lines(insights: Iterable[Insight]) -> list[str]:
    """Prior lines for an agent's context: ``[insight x3] Lou's claims about gem proved false``."""
    return [f"[insight x{i.support}] {i.text}" for i in insights]


# --- the bank -------------------------------------------------------------------


class InsightBank:
    """Insights per agent configuration key, capped, decaying, persisted as JSON.

    ``path`` is the JSON file (loaded now if it exists; a corrupt file raises
    :class:`~game.core.errors.SaveError` and is left untouched). Without a path the
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
            raise KeyError(f"no insight {insight_id!r} for key {key!r} (known ids: {', '.join(sorted(held))})")
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
        ins = Insight(
            id=iid,
            text=text,
            key=key,
            topic=topic,
            weight=w,
            support=1,
            created_game=self.game,
            updated_game=self.game,
            source=source,
        )
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
                raise ValueError(
                    f"the new text near-duplicates insight {other.id!r} ({other.text!r}); remove one of them instead"
                )
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
        if (
            isinstance(factor, bool)
            or not isinstance(factor, (int, float))
            or not math.isfinite(factor)
            or not 0 < factor <= 1
        ):
            raise ValueError(f"decay factor must be in (0, 1], got {factor!r}")
        dropped: list[Insight] = []
        for k in [key] if key is not None else sorted(self._by_key):
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
            for ins in sorted(held.values(), key=Insight.rank)[self.cap :]:
                evicted.append(held.pop(ins.id))
        return evicted

    # --- persistence ----------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "game": self.game,
            "insights": {
                k: [i.to_dict() for i in sorted(v.values(), key=lambda i: i.id)]
                for k, v in sorted(self._by_key.items())
                if v
            },
        }

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
        raw = read_text(
            path,
            limit=256 * 1024 * 1024,
            error=SaveError,
            hint=hint,
            missing_hint="an insight bank file is created by saving",
        )
        if not raw.strip():
            raise SaveError(f"{path}: empty file", hint=hint)
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as e:
            raise SaveError(f"{path}:{e.lineno}:{e.colno}: corrupt insight bank ({e.msg})", hint=hint) from None
        except (ValueError, RecursionError) as e:
            raise SaveError(
                f"{path}: corrupt insight bank ({'nested too deeply' if isinstance(e, RecursionError) else e})",
                hint=hint,
            ) from None
        try:
            game, by_key = _parse_state(data)
        except ValueError as e:
            raise SaveError(f"{path}: {e}", hint=hint) from None
        self._install(game, by_key)

    def save(self) -> Path | None:
        """Write the bank to its file atomically (nothing to do without a path)."""
        if self.path is None:
            return None
        write_atomic(self.path, json.dumps(self.get_state(), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
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
        raise ValueError(
            f"insight bank version {data.get('version')!r} is not supported "
            f"(this Parley reads version {FORMAT_VERSION})"
        )
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
