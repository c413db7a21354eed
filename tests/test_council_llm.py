"""LLM council members against the local scripted OpenAI-compatible server (real HTTP, the real
``openai`` client): whole debates, repaired and unusable replies, the ``subjective`` masking mode,
and prompts that hold only what the member's view holds."""

from __future__ import annotations

import json
import math
import re

import pytest

from agents.llm.client import LLMClient
from agents.llm.config import LLMConfig
from game.council.context import MODES, MaskingConfig, MaskingConfigError, SubjectiveMaskingConfig, line
from game.council.debaters import ScriptedDebater
from game.council.llm import LABEL_SYSTEM, SYSTEM, LLMDebater, llm_council
from game.council.runner import view_for
from game.council.session import CouncilConfig, CouncilSession, Reply
from game.council.tasks import CouncilTask, hidden_profile_task
from game.play.debates import run_debate
from memory.debate_masking import Masker
from memory.embedder import get_embedder

HASH = get_embedder("hash")


def words(text: str) -> int:
    return len(text.split())


def client(server, **kw) -> LLMClient:
    cfg = {
        "base_url": server.base_url,
        "model": "council",
        "max_retries": 0,
        "backoff_base": 0.0,
        "backoff_max": 0.0,
        "timeout": 5.0,
        **kw,
    }
    return LLMClient(LLMConfig(**cfg))


def parts(body: dict) -> tuple[str, str]:
    msgs = body["messages"]
    return msgs[0]["content"], "\n".join(m["content"] for m in msgs[1:])


def speaker(text: str) -> str:
    return re.search(r"You are council member (\w+)", text).group(1)


def section(text: str, head: str) -> list[str]:
    """The evidence ids listed under ``head`` (until the next heading)."""
    block = text.split(head, 1)[1].split("\n")[1:]
    out = []
    for row in block:
        if not row.startswith("- "):
            break
        m = re.match(r"- \[(\w+)\]", row)
        if m:
            out.append(m.group(1))
    return out


class Model:
    """A scripted council model: it states the first item it holds that its memory does not show,
    else restates; its stance is the logistic of the evidence its prompt lists. ``labels`` decides
    the subjective labels from the candidate lines (None: every statement kept)."""

    def __init__(self, task: CouncilTask, labels=None):
        self.by = task.by_id()
        self.labels = labels
        self.said: dict[str, list[set[str]]] = {}  # member -> the candidate lines it kept, per request

    def __call__(self, body: dict):
        system, text = parts(body)
        if system.startswith(LABEL_SYSTEM[:40]):
            return self.label(text)
        return json.dumps(self.speak(text))

    def speak(self, text: str) -> dict:
        own = section(text, "Evidence only you hold")
        seen = set(re.findall(r"^#\d+ \[\w+\] \([^)]*cites (\w+)", text, re.MULTILINE))
        listed = set(re.findall(r"^- \[(\w+)\]", text, re.MULTILINE))
        x = sum(self.by[e].direction * self.by[e].weight for e in listed)
        stance = round(1 / (1 + math.exp(-x)), 3)
        new = [e for e in own if e not in seen]
        if new:
            return {
                "text": f"{self.by[new[0]].text}.",
                "kind": "evidence",
                "evidence": new[0],
                "stance": stance,
                "confidence": 0.7,
            }
        return {
            "text": f"I weigh it all at {stance}.",
            "kind": "restate",
            "evidence": None,
            "stance": stance,
            "confidence": 0.6,
        }

    def label(self, text: str) -> str:
        cands = re.findall(r"^(\d+)\. (.*)$", text, re.MULTILINE)
        keep = [self.labels(n, c) if self.labels else True for n, c in ((int(n), c) for n, c in cands)]
        self.said.setdefault(speaker(text), []).append({c for (_, c), k in zip(cands, keep) if k})
        return json.dumps(
            {"labels": [{"n": int(n), "label": "keep" if k else "mask"} for (n, _), k in zip(cands, keep)]}
        )


# --- a whole debate ----------------------------------------------------------------------------------


def scripted_rest(task: CouncilTask) -> dict[str, ScriptedDebater]:
    """Scripted debaters for the members after the three LLM ones (m0-m2); a task has 4 or 5 members."""
    return {m.id: ScriptedDebater(seed=3 + i) for i, m in enumerate(task.members[3:])}


def test_three_llm_members_debate_a_hidden_profile_task_to_a_vote(serve):
    task = hidden_profile_task(8)  # three LLM members, the others scripted
    srv = serve(responder=Model(task))
    llm = client(srv)
    debaters = {**llm_council(task, llm, ["m0", "m1", "m2"]), **scripted_rest(task)}
    s, m = run_debate(task, CouncilConfig(seed=1, max_rounds=8), MaskingConfig(mode="memo"), debaters, embedder=HASH)
    assert s.outcome.decision is not None and s.status in ("consensus", "max_rounds")
    llm_said = [st for st in s.history if st.speaker in ("m0", "m1", "m2")]
    assert len(srv.requests) == len(llm_said) > 0  # one request a statement, no repairs
    assert {st.evidence for st in llm_said} >= {"p0", "p1", "p2"}  # each stated what it holds
    assert all(not debaters[n].invalid for n in ("m0", "m1", "m2"))
    assert set(llm.usage_by_agent()) == {"m0", "m1", "m2"} and llm.total().invalid == 0
    assert m.rounds == len(s.flow) - 1 and s.correct is not None


# --- invalid replies ---------------------------------------------------------------------------------


def _first_turn(task: CouncilTask):
    s = CouncilSession(task)
    return s, view_for(s, "m0", Masker(MaskingConfig(mode="none"), count=words))


def test_an_unknown_evidence_id_goes_back_for_repair(serve):
    task = hidden_profile_task(8)
    replies = [
        json.dumps(
            {
                "text": "I have the treasurer's secret.",
                "kind": "evidence",
                "evidence": "p1",
                "stance": 0.4,
                "confidence": 0.5,
            }
        ),  # m1's private item: m0 cannot know it
        json.dumps(
            {"text": "Mine, then.", "kind": "evidence", "evidence": "p0", "stance": 1.7, "confidence": 0.5}
        ),  # a stance out of range
        json.dumps({"text": "Mine, then.", "kind": "evidence", "evidence": "p0", "stance": 0.7, "confidence": 0.5}),
    ]
    srv = serve(replies)
    llm = client(srv)
    d = LLMDebater(llm)
    s, view = _first_turn(task)
    r = d.respond(view)
    assert (r.kind, r.evidence, r.stance, r.aspect) == ("evidence", "p0", 0.7, task.item("p0").aspect)
    assert not d.invalid and llm.total().invalid == 2 and len(srv.requests) == 3
    assert "'p1' is not one you hold" in parts(srv.requests[1])[1]
    assert "less than or equal to 1" in parts(srv.requests[2])[1]
    s.say("m0", r)  # the session takes the repaired reply


def test_a_reply_that_stays_bad_falls_back_to_a_restate_with_the_reason(serve):
    task = hidden_profile_task(8)
    bad = json.dumps({"text": "Trust me.", "kind": "evidence", "evidence": "zz", "stance": 0.9, "confidence": 1})
    srv = serve([bad, bad])
    d = LLMDebater(client(srv, max_repairs=1))
    s, view = _first_turn(task)
    r = d.respond(view)
    assert (r.kind, r.stance, r.evidence) == ("restate", view.stance, None)
    assert len(d.invalid) == 1 and d.invalid[0].round == 1
    assert "LLMInvalidReply" in d.invalid[0].reason and "'zz'" in d.invalid[0].reason
    s.say("m0", r)


def test_a_failing_endpoint_falls_back_too(serve):
    srv = serve([{"status": 500, "error": "down"}])
    d = LLMDebater(client(srv))
    _, view = _first_turn(hidden_profile_task(8))
    r = d.respond(view)
    assert r.kind == "restate" and "LLMUnavailable" in d.invalid[0].reason


# --- subjective masking ------------------------------------------------------------------------------


def three(seed: int = 8) -> CouncilTask:
    """A generated task cut to its first three members (all LLMs in the subjective tests)."""
    t = hidden_profile_task(seed)
    t = t.model_copy(update={"members": t.members[:3]})
    return t.model_copy(update={"truth": t.pooled() > 0})


def _talk(s: CouncilSession, rounds: int) -> None:
    for r in range(rounds):
        for k, m in enumerate(s.speakers()):
            s.say(m, Reply("argument", f"{m} says point {r}-{k} about the {('cost', 'law')[k % 2]}", 0.4, 0.5))
        s.end_round()


def test_subjective_keeps_exactly_what_the_member_labelled_keep(serve):
    task = three()
    model = Model(task, labels=lambda n, c: "point 1-" in c or n == 1)
    llm = client(serve(responder=model))
    s = CouncilSession(
        task, CouncilConfig(max_rounds=20, stalemate_breaker=False, consensus="majority", stable_rounds=20)
    )
    _talk(s, 3)
    masker = Masker(SubjectiveMaskingConfig(budget=4000), count=words, labellers=llm_council(task, llm))
    for m in s.members:
        ctx = masker.context(s, m)
        kept_lines = {line(st) for st in ctx.statements if st.speaker != m}
        assert kept_lines == model.said[m][-1] and kept_lines  # exactly the keeps
        assert all(st in ctx.statements for st in s.history if st.speaker == m)  # its own stay
        assert all(
            "labelled it mask" in ctx.masked[st.id]
            for st in s.history
            if st.speaker != m and line(st) not in kept_lines
        )
    asked = len(model.said["m0"])
    masker.context(s, "m0")
    assert len(model.said["m0"]) == asked  # one request per member per round
    tight = Masker(SubjectiveMaskingConfig(budget=40), count=words, labellers=llm_council(task, llm))
    ctx = tight.context(s, "m1")
    assert ctx.tokens <= 40 and ctx.tokens == sum(words(x) for x in ctx.lines())
    assert {line(st) for st in ctx.statements if st.speaker != "m1"} <= model.said["m1"][-1]
    assert len(ctx.statements) < len(s.history)  # the budget cut some of the keeps


def test_a_failed_labelling_falls_back_to_recency_with_the_reason(serve):
    task = three()
    llm = client(serve([json.dumps({"labels": [{"n": 1, "label": "keep"}]})] * 2), max_repairs=1)
    s = CouncilSession(task, CouncilConfig(max_rounds=20, min_rounds=20, stalemate_breaker=False))
    _talk(s, 3)
    masker = Masker(SubjectiveMaskingConfig(budget=4000, window=4), count=words, labellers=llm_council(task, llm))
    ctx = masker.context(s, "m2")
    assert [st.id for st in ctx.statements] == [st.id for st in s.history[-4:]]
    assert masker.failures and masker.failures[0][:2] == (s.round, "m2")
    assert "exactly once" in masker.failures[0][2]
    assert all("labels failed" in why for why in ctx.masked.values()) and len(ctx.masked) == len(s.history) - 4


def test_subjective_mode_needs_llm_members():
    task = three()
    with pytest.raises(MaskingConfigError, match="m1"):
        Masker(SubjectiveMaskingConfig(), labellers={"m0": LLMDebater(None), "m1": ScriptedDebater()})
    with pytest.raises(MaskingConfigError, match="LLM"):
        run_debate(task, CouncilConfig(), SubjectiveMaskingConfig(), embedder=HASH)
    assert "subjective" not in MODES and SubjectiveMaskingConfig().mode == "subjective"


def test_a_whole_subjective_debate_reaches_a_vote(serve):
    task = three()
    model = Model(task, labels=lambda n, c: n % 2 == 1)
    llm = client(serve(responder=model))
    debaters = llm_council(task, llm)
    s = CouncilSession(task, CouncilConfig(max_rounds=5))
    masker = Masker(SubjectiveMaskingConfig(budget=200), count=words, labellers=debaters)
    while s.is_open:
        for m in s.speakers():
            v = view_for(s, m, masker)
            s.say(m, debaters[m].respond(v), v.context.tokens)
        s.end_round()
    s.vote({m: debaters[m].final_stance(view_for(s, m, masker)) for m in s.members})
    assert s.outcome.decision is not None and not masker.failures
    rounds_labelled = {m: len(v) for m, v in model.said.items()}
    assert all(n <= s.round for n in rounds_labelled.values()) and rounds_labelled


# --- a member sees only its view ---------------------------------------------------------------------


def test_the_prompt_holds_nothing_beyond_the_view():
    task = hidden_profile_task(3)
    masker = Masker(MaskingConfig(mode="none"))
    view = view_for(CouncilSession(task), "m0", masker)
    other = task.model_copy(
        update={
            "truth": not task.truth,
            "members": (
                task.members[0],
                *(m.model_copy(update={"stance": 0.99, "private": ()}) for m in task.members[1:]),
            ),
        }
    )
    view2 = view_for(CouncilSession(other), "m0", masker)
    assert LLMDebater.prompt(view) == LLMDebater.prompt(view2)
    text = LLMDebater.prompt(view)
    for m in task.members[1:]:
        for eid in m.private:
            assert task.item(eid).text not in text and not re.search(rf"\b{eid}\b", text)


def test_over_http_no_prompt_shows_unstated_private_evidence_of_others(serve):
    task = hidden_profile_task(8)
    stated: set[str] = set()
    leaks: list[str] = []
    model = Model(task, labels=lambda n, c: True)

    def respond(body):
        system, text = parts(body)
        me = speaker(text)
        for m in task.members:
            for eid in m.private:
                if m.id != me and eid not in stated and (task.item(eid).text in text or re.search(rf"\b{eid}\b", text)):
                    leaks.append(f"{me} saw {eid}")
        if "truth" in text.lower() or system not in (SYSTEM, LABEL_SYSTEM):
            leaks.append(f"unexpected prompt for {me}")
        return model(body)

    llm = client(serve(responder=respond))
    debaters = {**llm_council(task, llm, ["m0", "m1", "m2"]), **scripted_rest(task)}
    s, _ = run_debate(
        task,
        CouncilConfig(seed=2, max_rounds=6),
        MaskingConfig(mode="window", window=3),
        debaters,
        embedder=HASH,
        on_statement=lambda st, v: stated.add(st.evidence) if st.evidence else None,
    )
    assert s.outcome.decision is not None and not leaks
