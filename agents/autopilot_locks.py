"""Locks and keys, learnt by trying (mixed into ``Autopilot``).

A player is never told which key opens a lock. The autopilot knows a lock's name (the
scope names a locked exit ``exit:<dir>``), what its refusal said (it tries a locked exit
once when nothing it holds looks like the key) and, for a container, what examining it
said. An item it holds is a *candidate* for a lock when its name or aliases share a word
with those texts (two points a word) or it is a key (one point); a key that already
opened another lock loses a point and a half. It tries the best-scoring candidate that
has not failed there before (a refused ``unlock`` is a penalised move), never one scoring
zero or less while it has anything else to do.

When nothing is left to do, explore or follow (``_exhaust``), it stops trusting names: it
takes every portable thing it has seen lying about and tries each held item once on each
lock it knows is shut, best-scoring pair first, walking to the nearest lock (or item) left
to try. A pair that failed is never tried again.
"""

from __future__ import annotations

from typing import Any

from agents.autopilot_memory import words
from game.core.types import Action, Verb


class LockMixin:
    """Key guessing for ``Autopilot`` (needs ``locks``, ``tried``, ``fits``, ``words``, ``seen_items``)."""

    here: str
    locks: dict[str, dict[str, Any]]
    tried: list[list[str]]
    fits: dict[str, str]
    words: dict[str, list[str]]
    kinds: dict[str, str]
    seen_items: dict[str, str]
    edges: dict[str, dict[str, str]]

    def _shut(self) -> list[str]:
        """Locks still shut: exits not opened, containers known to be locked."""
        return [
            lid
            for lid, lk in self.locks.items()
            if (":" in lid and not lk.get("open")) or (lk.get("container") and lk.get("locked"))
        ]

    def _lock_words(self, lid: str) -> set[str]:
        lk = self.locks.get(lid, {})
        out = words(f"{lk.get('name', '')} {lk.get('text', '')}")
        if ":" not in lid:
            out |= words(" ".join(self.words.get(lid, ())))
        return out

    def _key_score(self, lid: str, item: str) -> float:
        if item == lid or [lid, item] in self.tried:
            return 0.0
        mine = self.words.get(item, [])
        lw = self._lock_words(lid)
        named = any(
            words(" ".join(w)) & lw for i, w in self.words.items() if self.kinds.get(i) == "item" and i != lid
        )  # the lock's text names some item
        score = 2.0 * len(words(" ".join(mine)) & lw) + (1.0 if "key" in mine and not named else 0.0)
        if any(k == item and other != lid for other, k in self.fits.items()):
            score -= 1.5
        return score

    def _candidates(self, lid: str, held: set[str] | list[str]) -> list[str]:
        """Held items worth trying on ``lid``, best first (ties: the order it carries them)."""
        scored = [(self._key_score(lid, i), k, i) for k, i in enumerate(held)]
        return [i for s, _, i in sorted(scored, key=lambda x: (-x[0], x[1])) if s > 0]

    def _untried(self, lid: str, held: list[str]) -> list[str]:
        """Every held item not yet tried on ``lid``, best score first (for ``_exhaust``)."""
        if lid in self.fits:
            return []
        scored = [
            (self._key_score(lid, i), k, i) for k, i in enumerate(held) if i != lid and [lid, i] not in self.tried
        ]
        return [i for _, _, i in sorted(scored, key=lambda x: (-x[0], x[1]))]

    def _lock_place(self, lid: str) -> str | None:
        return lid.split(":", 1)[0] if ":" in lid else self.seen_items.get(lid)

    def _loose(self, g: dict[str, Any]) -> list[str]:
        """Items seen lying about that it may still take (not known fixed, containers or placed)."""
        return [
            i
            for i in self.seen_items
            if i not in g["held"] and i not in self.fixed and i not in g["placed"] and i not in self.locks
        ]

    def _exhaust(self, g: dict[str, Any]) -> Action | None:
        """Nothing left to do or explore: take what lies about, try every held item on every shut lock."""
        held = self._held_order(g)
        for iid in self._loose(g):
            if self.seen_items[iid] == self.here:
                return Action("player", Verb.TAKE, obj=iid)
        places = [self.seen_items[i] for i in self._loose(g)]
        for lid in self._shut():
            loc = self._lock_place(lid)
            cands = self._untried(lid, held)
            if not cands or loc is None:
                continue
            if loc == self.here:
                target = f"exit:{lid.split(':', 1)[1]}" if ":" in lid else lid
                return Action("player", Verb.UNLOCK, obj=target, target=cands[0])
            places.append(loc)
        dist, first = self._bfs(g)
        return self._step_to(places, dist, first)

    def _key_like(self, g: dict[str, Any]) -> set[str]:
        """Items worth carrying for the locks: keys, and anything whose name matches a shut lock."""
        shut = self._shut()
        return {
            i
            for i, kind in self.kinds.items()
            if kind == "item"
            and i not in shut
            and ("key" in self.words.get(i, ()) or any(self._key_score(lid, i) > 0 for lid in shut))
        }

    def _held_order(self, g: dict[str, Any]) -> list[str]:
        obs = getattr(self, "_obs", None)
        return list(obs.inventory) if obs is not None else sorted(g["held"])

    def _unlock_here(self, g: dict[str, Any]) -> Action | None:
        held = self._held_order(g)
        for lid in self._shut():
            if ":" in lid:
                loc, d = lid.split(":", 1)
                if loc != self.here:
                    continue
                target = f"exit:{d}"
            else:
                if self.seen_items.get(lid) != self.here and lid not in g["held"]:
                    continue
                target = lid
            cands = self._candidates(lid, held)
            if cands:
                return Action("player", Verb.UNLOCK, obj=target, target=cands[0])
        return None

    def _read_lock_here(self) -> Action | None:
        for lid in self._shut():  # read a locked exit's refusal once, when nothing held matches it
            if ":" in lid and lid.split(":", 1)[0] == self.here and not self.locks[lid].get("read"):
                return Action("player", Verb.GO, obj=lid.split(":", 1)[1])
        return None

    def _open_here(self, g: dict[str, Any]) -> Action | None:
        for lid, lk in self.locks.items():
            if (
                lk.get("container")
                and not lk.get("open")
                and not lk.get("locked")
                and (self.seen_items.get(lid) == self.here or lid in g["held"])
            ):
                return Action("player", Verb.OPEN, obj=lid)
        return None

    def _lock_targets(self, g: dict[str, Any]) -> list[str]:
        """Places where a lock can be tried with something held, or a container opened."""
        held = self._held_order(g)
        out = []
        for lid in self._shut():
            loc = lid.split(":", 1)[0] if ":" in lid else self.seen_items.get(lid)
            if loc and self._candidates(lid, held):
                out.append(loc)
        for lid, lk in self.locks.items():
            if lk.get("container") and not lk.get("open") and not lk.get("locked") and lid in self.seen_items:
                out.append(self.seen_items[lid])
        return out

    def _passable(self, loc: str, d: str, g: dict[str, Any]) -> bool:
        """Whether an exit can be used (or unlocked on the way with something held)."""
        lk = self.locks.get(f"{loc}:{d}")
        return lk is None or bool(lk.get("open")) or bool(self._candidates(f"{loc}:{d}", self._held_order(g)))
