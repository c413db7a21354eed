"""Claims from free text through an LLM, for what the rules cannot read.

:class:`LLMExtractor` first asks the rule-based extractor (``memory.extract``);
only when the rules find no claim does it ask the LLM, with the world's
entities and relations as the vocabulary, for the claims the text makes. The
reply is untrusted: it must fit a schema (repaired by the client when it does
not), and every claim must name a known entity as subject and a known relation
(else it is dropped). With ``decide`` (the engine's), each question's answer is
a decision in the transcript (``memory.recorded``), so a replay needs no LLM;
``when`` (a replay's look-ahead) says whether an answer was recorded for this
text, and the LLM is asked only then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from game.core import reply_schema as rs
from memory.extract import Extracted, RuleExtractor
from memory.lexicon import Lexicon

EXTRACT_KIND, EXTRACT_WHO = "extract", "gate"


class ReadClaim(BaseModel):
    model_config = ConfigDict(extra="forbid")
    subject: str = Field(max_length=200)
    relation: str = Field(max_length=200)
    object: str = Field(max_length=200)
    negated: bool = False


class ReadClaims(BaseModel):
    model_config = ConfigDict(extra="forbid")
    claims: list[ReadClaim] = Field(default_factory=list, max_length=8)


SYSTEM = (
    "You read what a character in a game says and list the claims it makes about the game world, as "
    "triples (subject, relation, object), using only the listed entity ids and relation ids. A claim "
    "that something is NOT so has negated = true. Leave out greetings, questions, opinions and anything "
    'not about the listed relations. Reply with one JSON object: {"claims": [{"subject": id, '
    '"relation": id, "object": id or value, "negated": false}, ...]} (an empty list if none).'
)


class LLMExtractor:
    """Rules first, then the LLM (see the module's doc)."""

    def __init__(
        self, client: Any, lexicon: Lexicon, decide: Callable | None = None, when: Callable[[], bool] | None = None
    ):
        self.client, self.lex, self.decide, self.when = client, lexicon, decide, when
        self.rules = RuleExtractor(lexicon)

    def vocabulary(self) -> str:
        ents = "; ".join(
            f"{eid} ({', '.join(names[:3])})" if names else eid for eid, names in sorted(self.lex.entities.items())
        )
        rels = "; ".join(
            f"{rid}"
            + (f" ({', '.join(i.aliases[:4])})" if i.aliases else "")
            + (f" [a number in {i.unit}]" if i.unit else " [a number]" if i.range else "")
            + (" [a time of day, HH:MM]" if i.kind == "time" else "")
            for rid, i in sorted(self.lex.relations.items())
        )
        return f"Entities: {ents}\nRelations: {rels}"

    def reply_schema(self) -> dict[str, Any]:
        """``ReadClaims`` with subjects and relations from the world's vocabulary."""
        claim = rs.obj(
            {
                "subject": rs.one_of(sorted(self.lex.entities)),
                "relation": rs.one_of(sorted(self.lex.relations)),
                "object": rs.text(80),
                "negated": {"type": "boolean"},
            }
        )
        return rs.obj({"claims": rs.array(claim, 8)})

    def _ask(self, text: str) -> list[dict[str, Any]]:
        if self.client is None:
            raise RuntimeError("no LLM to ask (a replay reads the recorded answers)")
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{self.vocabulary()}\n\nWhat they say: {text}"},
        ]
        reply = self.client.structured(
            messages, ReadClaims, agent="extract", params={"temperature": 0.0}, schema=self.reply_schema()
        )
        return [c.model_dump() for c in reply.claims]

    def extract(self, text: str) -> list[Extracted]:
        found = self.rules.extract(text)
        if found or not str(text).strip() or (self.when is not None and not self.when()):
            return found
        if self.decide is not None:
            from memory.recorded import recorded

            raw = recorded(self.decide, EXTRACT_KIND, EXTRACT_WHO, lambda: self._ask(text))
        else:
            raw = self._ask(text)
        return self.checked(raw, text)

    def checked(self, raw: Any, text: str) -> list[Extracted]:
        """The claims of a reply that name a known subject and relation (others are dropped)."""
        out: list[Extracted] = []
        for c in raw if isinstance(raw, list) else ():
            if not isinstance(c, dict):
                continue
            subj, rel = self.lex.entity(str(c.get("subject", ""))), self.lex.relation(str(c.get("relation", "")))
            if subj is None or rel is None or not str(c.get("object", "")).strip():
                continue
            obj = self.lex.value(rel, str(c["object"]), subj)
            e = Extracted(subj, rel, obj, not bool(c.get("negated", False)), self.lex.topic(subj, rel) or rel, text)
            if e not in out:
                out.append(e)
        return out
