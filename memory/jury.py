"""An LLM jury for the consistency gate.

For each candidate world fact and the known facts related to it, the jury asks
a strict question: is the candidate consistent with the known facts? Answers
are yes / no / unsure, voting 1 / 0 / 0.5. It draws ``samples`` independent
answers at low temperature and scores each candidate by the mean vote.
Several candidates go into one request per sample. Replies are validated (one
verdict per candidate); a failure raises, and the gate then holds the
candidates in quarantine (or falls back to its rule judge, by config).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from game.core import reply_schema as rs

VOTE = {"yes": 1.0, "no": 0.0, "unsure": 0.5}


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int = Field(ge=1)
    answer: Literal["yes", "no", "unsure"]


class JuryReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdicts: list[Verdict]


SYSTEM = (
    "You check statements about a game world for consistency with what is already known. For each "
    'numbered candidate, answer "yes" if it is consistent with its known facts, "no" if it contradicts '
    'them, "unsure" if you cannot tell. Judge consistency only, not plausibility. Reply with one JSON '
    'object: {"verdicts": [{"id": n, "answer": "yes"|"no"|"unsure"}, ...]}, one per candidate.'
)


def verdicts_schema(n: int) -> dict[str, Any]:
    """One verdict for each candidate 1..n, in order (a grammar-constrained model cannot skip one)."""
    return rs.obj({"verdicts": rs.numbered(n, "id", {"answer": rs.one_of(list(VOTE))})})


class LLMJury:
    """``judge([(candidate, related facts), ...]) -> [score in [0, 1], ...]`` through an LLM client."""

    def __init__(self, client: Any, samples: int = 3, temperature: float = 0.2):
        if samples < 1:
            raise ValueError(f"the jury needs at least one sample, got {samples}")
        self.client, self.samples, self.temperature = client, int(samples), float(temperature)

    @staticmethod
    def prompt(items: list[tuple[Any, list[Any]]]) -> str:
        parts = []
        for n, (c, facts) in enumerate(items, 1):
            known = (
                "\n".join(f"   - {f.text or f'{f.subject} {f.relation} {f.object}'}" for f in facts) or "   - (none)"
            )
            parts.append(f"{n}. Candidate: {c.sentence()} (from {c.source})\n   Known facts:\n{known}")
        return "\n\n".join(parts)

    def judge(self, items: list[tuple[Any, list[Any]]]) -> list[float]:
        if not items:
            return []
        ids = set(range(1, len(items) + 1))

        def complete(r: JuryReply) -> JuryReply:
            got = [v.id for v in r.verdicts]
            if sorted(got) != sorted(ids):
                raise ValueError(f"give exactly one verdict for each id {sorted(ids)}, got ids {sorted(got)}")
            return r

        totals = [0.0] * len(items)
        body = self.prompt(items)
        for k in range(self.samples):
            # the sample number keeps independent samples apart in a reply cache
            messages = [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"(sample {k + 1} of {self.samples})\n\n{body}"},
            ]
            reply = self.client.structured(
                messages,
                JuryReply,
                agent="jury",
                validate=complete,
                params={"temperature": self.temperature},
                schema=verdicts_schema(len(items)),
            )
            for v in reply.verdicts:
                totals[v.id - 1] += VOTE[v.answer]
        return [t / self.samples for t in totals]


JURY_KIND, JURY_WHO = "jury", "gate"  # how the jury's verdicts appear in a transcript's decision records


class RecordedJury:
    """A jury whose verdicts are decisions in the game's transcript (``memory.recorded``): each
    batch the gate sends is judged by ``inner`` once and recorded through ``decide`` (the engine's
    ``decide``); a replay reads the recorded scores instead, so ``inner`` may be None there. A
    failure is recorded as well and raised again in the replay, so the gate quarantines alike."""

    def __init__(self, inner: Any, decide: Any):
        self.inner, self.decide = inner, decide

    def judge(self, items: list[tuple[Any, list[Any]]]) -> list[float]:
        from memory.recorded import recorded

        if not items:
            return []

        def ask() -> list[float]:
            if self.inner is None:
                raise RuntimeError("no jury to ask (a replay reads the recorded verdicts)")
            return [float(s) for s in self.inner.judge(items)]

        scores = recorded(self.decide, JURY_KIND, JURY_WHO, ask)
        if (
            not isinstance(scores, list)
            or len(scores) != len(items)
            or not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in scores)
        ):
            raise ValueError(f"recorded jury verdicts do not fit a batch of {len(items)}: {str(scores)[:120]}")
        return [float(s) for s in scores]
