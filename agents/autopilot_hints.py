"""Reading the quest log's prose for a council (mixed into ``Autopilot``).

A quest may only say "See the bridge motion pass" and leave the how to its description
("Win the widow over with the mill's ledger, then vote yes."). While a council the quest
log wants passed would not pass on the stances it saw, and no quest still asks it to give
something to someone, the autopilot treats as *hinted*:

* every item it has seen whose displayed name or aliases share a word with an unfinished
  quest's title or description (it takes them and carries them to the council);
* the councillors not yet for the motion, those whose displayed name shares a word with
  the description first, then the undecided, then the rest.

It gives each hinted item it holds to the first hinted councillor present it has not
given that item to; a ``persuaded`` event (the councillor is then for the motion) tells
it worked. Only displayed names and the quest log's text are read, never ids as words.
"""

from __future__ import annotations

from typing import Any

from agents.autopilot_memory import words
from game.core.types import PLAYER, Action, Observation, Verb


class HintMixin:
    """Council hints for ``Autopilot`` (needs its memory: ``names``, ``words``, ``councils``...)."""

    here: str
    names: dict[str, str]
    words: dict[str, list[str]]
    kinds: dict[str, str]
    councils: dict[str, dict[str, Any]]
    gave: list[str]
    fixed: list[str]
    seen_items: dict[str, str]
    _obs: Observation | None

    def _quest_words(self) -> set[str]:
        obs = self._obs
        if obs is None:
            return set()
        return words(" ".join(f"{q.title} {q.description}" for q in obs.quests if not q.done))

    def _swaying(self, g: dict[str, Any]) -> list[str]:
        """Councils the quest log wants passed that would not pass now (none while a quest still
        names a gift: those come first)."""
        if g["give"]:
            return []
        return [
            sid
            for sid, out in g["council"].items()
            if out == "passed" and sid in self.councils and self._council_open(sid) and not self._projected(sid, "yes")
        ]

    def _hinted_items(self, g: dict[str, Any]) -> list[str]:
        """Items seen whose displayed words the quest prose uses (while a council needs swaying)."""
        if not self._swaying(g):
            return []
        qw = self._quest_words()
        return [
            i
            for i, kind in self.kinds.items()
            if kind == "item"
            and i in self.names
            and i not in self.fixed
            and words(" ".join(self.words.get(i, ()))) & qw
        ]

    def _doubters(self, sid: str) -> list[str]:
        """Councillors not yet for the motion: named in the quest prose first, then the undecided."""
        qw = self._quest_words()
        members = self.councils[sid]["members"]
        out = [m for m, s in members.items() if m != PLAYER and s != "for"]

        def rank(m: str) -> tuple[int, int, int]:
            named = bool(words(" ".join(self.words.get(m, ()))) & qw)
            return (0 if named else 1, 0 if members[m] == "undecided" else 1, out.index(m))

        return sorted(out, key=rank)

    def _persuade_here(self, g: dict[str, Any]) -> Action | None:
        hinted = [i for i in self._hinted_items(g) if i in g["held"]]
        if not hinted:
            return None
        here = set(self._npcs_here())
        for sid in self._swaying(g):
            for m in self._doubters(sid):
                if m not in here:
                    continue
                for item in hinted:
                    if f"{item}>{m}" not in self.gave:
                        return Action(PLAYER, Verb.GIVE, obj=item, target=m)
        return None

    def _hint_targets(self, g: dict[str, Any]) -> list[str]:
        """Where hinted items lie, and the council's room once one is held."""
        hinted = self._hinted_items(g)
        out = [self.seen_items[i] for i in hinted if i in self.seen_items and i not in g["held"]]
        if any(i in g["held"] for i in hinted):
            out += [self.councils[sid]["loc"] for sid in self._swaying(g)]
        return out
