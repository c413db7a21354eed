"""The council scenes inside the adventure: a debate while the player attends, support won
with evidence, and a closing vote."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from game.core.types import PLAYER, Action, Request
from game.engine.rules import Refusal
from game.world.spec import CouncilScene

if TYPE_CHECKING:
    from game.engine.loop import Engine


class CouncilScenes:
    """The council half of ``game.engine.scenes.SceneManager``."""

    eng: Engine

    def _councils_at(self, loc: str) -> list[str]:
        return [sid for sid, sc in self.eng.spec.scenes.items() if isinstance(sc, CouncilScene) and sc.location == loc]

    def council_here(self, actor: str = PLAYER) -> str | None:
        for sid in self._councils_at(self.eng.state.where[actor]):
            if self.eng.state.scenes.get(sid, {}).get("status") in (None, "debating"):
                return sid
        return None

    def _council_state(self, sid: str) -> dict[str, Any]:
        st = self.eng.state.scenes.get(sid)
        if st is None:
            sc = self.eng.spec.scenes[sid]
            st = {
                "status": "debating",
                "round": 0,
                "announced": False,
                "stances": {p.id: p.stance for p in sc.participants},
            }
            self.eng.state.scenes[sid] = st
        return st

    def on_arrive(self, loc: str) -> None:
        for sid in self._councils_at(loc):
            cs = self._council_state(sid)
            if cs["status"] == "debating" and not cs.get("announced"):
                cs["announced"] = True
                sc = self.eng.spec.scenes[sid]
                self.eng.emit(
                    "council_open",
                    PLAYER,
                    f"The council is in session. Motion: {sc.motion}",
                    data={"scene": sid, "motion": sc.motion},
                )

    def on_give(self, giver: str, item: str, to: str) -> None:
        """Evidence wins a participant's support, wherever it is handed over, until the vote."""
        for sid, sc in self.eng.spec.scenes.items():
            if not isinstance(sc, CouncilScene):
                continue
            for p in sc.participants:
                if p.id != to or item not in p.persuaded_by:
                    continue
                cs = self._council_state(sid)
                won = cs.get("persuaded", [])
                # won over once, whatever the debate made of its stance meanwhile (a council that
                # does not debate moves stances only this way)
                fresh = to not in won if sc.debate is not None else cs["stances"].get(to) != "for"
                if cs["status"] == "debating" and fresh:
                    if sc.debate is not None:
                        cs["persuaded"] = [*won, to]
                    cs["stances"][to] = "for"
                    self.eng.emit(
                        "persuaded",
                        to,
                        f"{self.eng.name(to)} studies the {self.eng.name(item)} and declares support for the motion.",
                        data={"scene": sid, "item": item},
                    )
                    if sc.debate is not None:
                        self._bring(sid, sc, to, item)

    def _bring(self, sid: str, sc: Any, member: str, item: str) -> None:
        """In a debating council, the persuaded member states the item's evidence to the others."""
        spec = self.eng.spec.items[item]
        st = self.eng.council_debate(sid).bring(member, item, spec.name, spec.description)
        if st is not None:
            self._speak(sid, sc, st, "for")

    def on_say(self, actor: str, text: str) -> None:
        """Speech is recorded as an event; an argument-bank council is swayed by evidence, not
        words; a debating council hears the player's words (they enter its members' memories)."""
        if actor != PLAYER:
            return
        sid = self.council_here(actor)
        if sid is None or self.eng.spec.scenes[sid].debate is None:
            return
        if self._council_state(sid)["status"] == "debating":
            self.eng.council_debate(sid).hear(actor, text)

    def vote(self, a: Action) -> None:
        sid = self.council_here(a.actor)
        if sid is None:
            raise Refusal("There is no vote to cast here.")
        cs = self._council_state(sid)
        sc = self.eng.spec.scenes[sid]
        choice = (a.text or "").lower()
        if choice not in ("yes", "no"):
            raise Refusal("Vote yes or no.")
        votes = {}
        for p in sc.participants:
            if p.id == a.actor:
                votes[p.id] = choice
            else:
                votes[p.id] = "yes" if cs["stances"].get(p.id) == "for" else "no"
        yes = sum(v == "yes" for v in votes.values())
        share = yes / len(votes)
        cs["votes"] = votes
        cs["status"] = "passed" if share > sc.majority else "failed"
        cs["outcome"] = cs["status"]
        self.eng.emit(
            "council_result",
            a.actor,
            f"The council votes {yes} to {len(votes) - yes}: the motion {cs['status']}.",
            public=True,
            data={"scene": sid, "votes": votes, "outcome": cs["status"]},
        )

    def end_round(self) -> None:
        """Council members speak one argument per round while the player attends."""
        sid = self.council_here()
        if sid is None or self.eng.state.scenes.get(sid, {}).get("status") != "debating":
            return
        cs = self._council_state(sid)
        sc = self.eng.spec.scenes[sid]
        if cs["round"] >= sc.max_rounds:
            return
        if sc.debate is not None:
            self._debate_round(sid, sc, cs)
            return
        r = cs["round"]
        from game.engine.dialogue import utterances

        eng = self.eng
        for p in sc.participants:
            if p.id == PLAYER:
                continue
            stance = cs["stances"][p.id]
            req = Request(
                "speech",
                PLAYER,
                eng.state.turn,
                eng.next_ask(),
                topic=sc.motion,
                data={
                    "scene": sid,
                    "round": r,
                    "stance": stance,
                    "initial": p.stance,
                    "role": p.role,
                    "arguments": list(p.arguments),
                    "converted": list(p.converted),
                },
            )
            said = utterances(eng, p.id, req)
            arg = said[0].text if said else ""
            if not arg:
                continue
            eng.emit(
                "speech",
                p.id,
                f'{eng.name(p.id)} ({p.role}, {stance}): "{arg}"',
                location=sc.location,
                data={
                    "scene": sid,
                    "round": r,
                    "stance": stance,
                    "claims": [c.to_dict() for u in said for c in u.claims],
                },
            )
        cs["round"] = r + 1

    def _debate_round(self, sid: str, sc: Any, cs: dict[str, Any]) -> None:
        """One round of a debating council: each member speaks from its masked memory."""
        debate = self.eng.council_debate(sid)
        claims: dict[str, list[dict[str, Any]]] = {}
        said = debate.play_round(self._voice(sid, sc, cs, claims))
        won = set(cs.get("persuaded", ()))
        labels = {m: v for m, v in debate.labels().items() if m not in won}  # as the round left them
        for st in said:
            self._speak(
                sid, sc, st, labels.get(st.speaker, "for" if st.speaker in won else ""), claims.get(st.speaker, [])
            )
        if said:  # once the debate is over, stances move only with evidence handed over
            cs["stances"].update(labels)
        cs["round"] += 1

    def _speaks_freely(self, member: str) -> bool:
        """Does ``member`` speak in its own words (an LLM NPC)? In a replay (no agents) the
        transcript says: its speech was recorded next."""
        eng = self.eng
        if eng.replay_decisions is not None:
            nxt = eng.replay_decisions[0] if eng.replay_decisions else {}
            return nxt.get("kind") == "reply" and nxt.get("who") == member and nxt.get("turn") == eng.state.turn
        return bool(getattr(eng.actors.get(member), "speaks_freely", False))

    def _voice(self, sid: str, sc: Any, cs: dict[str, Any], claims: dict[str, list[dict[str, Any]]]) -> Any:
        """How members with their own voice speak in the debate: asked for a speech with what
        their masked memory of the debate holds; their claims kept for the speech event. None
        for a member without one (a scripted debater speaks for it)."""
        from game.engine.dialogue import utterances

        spec = {p.id: p for p in sc.participants}

        def speak(member: str, view: Any) -> str | None:
            if not self._speaks_freely(member):
                return None
            eng, p = self.eng, spec[member]
            req = Request(
                "speech",
                PLAYER,
                eng.state.turn,
                eng.next_ask(),
                topic=sc.motion,
                data={
                    "scene": sid,
                    "round": cs["round"],
                    "stance": cs["stances"][member],
                    "initial": p.stance,
                    "role": p.role,
                    "arguments": list(p.arguments),
                    "converted": list(p.converted),
                    "debate": view.context.lines(),
                },
            )
            said = utterances(eng, member, req)
            claims[member] = [c.to_dict() for u in said for c in u.claims]
            return said[0].text if said else ""

        return speak

    def _speak(self, sid: str, sc: Any, st: Any, stance: str, claims: list[dict[str, Any]] | None = None) -> None:
        data = {
            "scene": sid,
            "round": st.round,
            "stance": stance,
            "statement": st.id,
            "kind": st.kind,
            "confidence": round(st.confidence, 3),
            "p": round(st.stance, 3),
            "claims": claims or [],
        }
        if st.speaker == "coordinator":  # the chair's words, or the presiding member's
            chair = next((p.id for p in sc.participants if p.role == "chair"), None) or next(
                p.id for p in sc.participants if p.id != PLAYER
            )
            self.eng.emit("speech", chair, st.text, location=sc.location, data={**data, "stance": "chair"})
            return
        role = next(p.role for p in sc.participants if p.id == st.speaker)
        self.eng.emit(
            "speech",
            st.speaker,
            f'{self.eng.name(st.speaker)} ({role}, {stance}): "{st.text}"',
            location=sc.location,
            data=data,
        )
