"""An NPC that speaks, haggles and debates through an LLM.

It keeps the scripted NPC's body (how it moves) and its scripted voice as the
safe fallback: when the model's replies cannot be parsed or validated after the
client's repairs, the NPC says its scripted line instead and the engine records
a penalised invalid move. An unreachable endpoint is not hidden: the error
propagates, the session autosaves, and ``parley play --load`` resumes.

The model sees the NPC's persona, what it knows (true and false beliefs, with
the honesty it is meant to show on each topic), the request, and its MEMO
context. Its reply carries structured claims; a claim that restates a known
fact gets that fact's id, so the consistency gate can check it.
"""

from __future__ import annotations

from typing import Any

from agents.llm.prompts import ClaimOut, NpcReply, context_block
from agents.npc import ScriptedNPC, _norm
from game.core import reply_schema as rs
from game.core.types import Claim, Request, Utterance

INTENT = {"talk": "greet", "ask": "answer", "haggle": "haggle", "speech": "speech"}


class LLMNPC(ScriptedNPC):
    """A scripted NPC whose words come from an LLM (``client``: an ``agents.llm.LLMClient``)."""

    uses_context = True
    speaks_freely = True  # its own words (a debating council hears them; see game.play.council_debate)

    def __init__(
        self,
        entity: str,
        spec: Any,
        seed: int,
        client: Any,
        body: Any = None,
        negotiator: str = "llm",
        negotiator_params: dict[str, Any] | None = None,
        persona: str | None = None,
        fallback_negotiator: str = "linear",
    ):
        super().__init__(entity, spec, seed, body=body, negotiator=negotiator, negotiator_params=negotiator_params)
        self.client = client
        self.persona = persona or spec.npcs[entity].persona
        self.fallback_negotiator = fallback_negotiator
        self._invalid: str | None = None

    @classmethod
    def wrap(
        cls, base: ScriptedNPC, client: Any, negotiator: str = "llm", persona: str | None = None, **params: Any
    ) -> LLMNPC:
        """An LLM NPC with ``base``'s body and voice; its rule-based negotiator becomes the fallback."""
        fallback = base.negotiator_kind if base.negotiator_kind != "llm" else "linear"
        npc = cls(
            base.entity,
            base.voice.spec,
            base.voice.seed,
            client,
            body=base.body,
            negotiator=negotiator,
            negotiator_params=params.pop("negotiator_params", None),
            persona=persona,
            fallback_negotiator=params.pop("fallback_negotiator", fallback),
        )
        if params:
            raise TypeError(f"unexpected parameters {', '.join(sorted(params))}")
        return npc

    def take_invalid(self) -> str | None:
        """The reason the last reply fell back to the scripted voice (once), or None."""
        reason, self._invalid = self._invalid, None
        return reason

    # --- speaking ------------------------------------------------------------------
    def system_prompt(self) -> str:
        spec, npc = self.voice.spec, self.voice.npc
        beliefs = []
        for fid in npc.knowledge:
            f = spec.facts[fid]
            honesty = npc.honesty.for_topic(f.topic)
            beliefs.append(
                f"- [{f.topic}] {f.text} (subject={f.subject!r}, relation={f.relation!r}, "
                f"object={f.object!r}){'' if f.true else ' — a falsehood you may tell'}"
                + ("" if honesty >= 1 else f" — you are truthful about {f.topic} {honesty:.0%} of the time")
            )
        knows = "\n".join(beliefs) or "- nothing of note"
        return (
            f"You are {npc.name}, a character in the text game world '{spec.title}'. "
            f"{self.persona or ''}\nStay in character; speak in one to three short sentences.\n"
            f"What you know or claim to know:\n{knows}\n"
            'Reply with one JSON object: {"text": your words, "claims": the world facts your '
            "words assert, each {subject, relation, object, topic}; [] if none}."
        )

    def request_prompt(self, request: Request) -> str:
        player = self.voice.spec.player.name
        d = request.data
        if request.kind == "talk":
            return f"{player} greets you."
        if request.kind == "ask":
            return f"{player} asks you about {_norm(request.topic or '')}."
        if request.kind == "haggle":
            terms = ", ".join(f"{k}={v}" for k, v in (d.get("terms") or {}).items())
            return f"You are haggling with {player}. Your move: {d.get('move')} {terms}. Say one line to go with it."
        if request.kind == "speech":
            bank = d.get("converted") if d.get("stance") == "for" and d.get("initial") != "for" else d.get("arguments")
            return (
                f"The council debates the motion: {request.topic}. You are the {d.get('role')}; your "
                f"stance is {d.get('stance')}. Round {int(d.get('round', 0)) + 1}. Make one argument"
                + (f" (points you might make: {'; '.join(bank)})" if bank else "")
                + "."
                + ("\nWhat you remember of the debate so far:\n" + "\n".join(d["debate"]) if d.get("debate") else "")
            )
        return f"{player} addresses you."

    def reply_schema(self) -> dict[str, Any]:
        """``NpcReply`` with each claim in the world's terms: a subject among its items, people, places
        and what this NPC knows of; a relation the world declares or the NPC knows; a topic of the
        world. Only names anyone can see and the NPC's own knowledge go in, never which facts are true."""
        spec, npc = self.voice.spec, self.voice.npc
        known = [spec.facts[fid] for fid in npc.knowledge]
        things = {*spec.items, *spec.npcs, *spec.locations}
        subjects = sorted(things | {f.subject for f in known})
        relations = sorted(set(spec.relations) | {f.relation for f in known})
        objects = sorted(things | {f.object for f in known})
        topics = sorted({f.topic for f in spec.facts.values()})
        claim = rs.obj(
            {
                "subject": rs.one_of(subjects),
                "relation": rs.one_of(relations) if relations else rs.text(30),
                "object": {"anyOf": [rs.one_of(objects), rs.text(24)]},
                "topic": rs.one_of(topics),
            }
        )
        return rs.obj({"text": rs.text(200), "claims": rs.array(claim, 3)})

    def check(self, reply: NpcReply) -> NpcReply:
        topics = {_norm(f.topic) for f in self.voice.spec.facts.values()}
        for c in reply.claims:
            if _norm(c.topic) not in topics:
                raise ValueError(
                    f"claim topic {c.topic!r} is not a topic of this world (topics: {', '.join(sorted(topics))})"
                )
        return reply

    def _claim(self, c: ClaimOut, turn: int) -> Claim:
        """A claim from the reply; one that restates a known fact carries the fact id."""
        spec = self.voice.spec
        key = (_norm(c.subject), _norm(c.relation), _norm(c.object))
        fid = next(
            (k for k, f in spec.facts.items() if (_norm(f.subject), _norm(f.relation), _norm(f.object)) == key), None
        )
        topic = (
            spec.facts[fid].topic
            if fid
            else next((f.topic for f in spec.facts.values() if _norm(f.topic) == _norm(c.topic)), c.topic)
        )
        return Claim(
            subject=c.subject,
            relation=c.relation,
            object=c.object,
            topic=topic,
            speaker=self.entity,
            turn=turn,
            fact_id=fid,
        )

    def reply(self, request: Request, context: Any = None) -> list[Utterance]:
        from agents.llm.client import LLMError, LLMInvalidReply

        messages = [
            {"role": "system", "content": self.system_prompt()},
            {"role": "user", "content": self.request_prompt(request) + context_block(context)},
        ]
        try:
            out = self.client.structured(
                messages,
                NpcReply,
                agent=self.entity,
                turn=request.turn,
                validate=self.check,
                schema=self.reply_schema(),
            )
        except LLMInvalidReply as e:
            self._invalid = f"unusable LLM reply ({e.error})"
            return self.voice.reply(request)
        except LLMError:  # the endpoint is down or refuses: finish the turn scripted; the session reports it
            return self.voice.reply(request)
        claims = tuple(self._claim(c, request.turn) for c in out.claims)
        return [Utterance(self.entity, INTENT.get(request.kind, "answer"), out.text.strip(), claims)]

    # --- trading ---------------------------------------------------------------------
    def negotiator(self, scene: Any, party: str, utility: Any) -> Any:
        from agents.negotiators import from_kind

        fallback = from_kind(self.fallback_negotiator, utility)
        if self.negotiator_kind != "llm":
            return from_kind(self.negotiator_kind, utility, **self.negotiator_params)
        from agents.llm.negotiator import LLMNegotiator

        return LLMNegotiator(
            self.client,
            scene,
            party,
            utility,
            fallback=fallback,
            persona=f"You are {self.voice.npc.name}. {self.persona or ''}".strip(),
            **self.negotiator_params,
        )
