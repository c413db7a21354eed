"""Σ-Mem with many topics (``phi="topics"``, :meth:`SigmaMem.for_world`): declared topics are
exactly orthogonal however many there are, unseen topics borrow credibility from the declared
topics they resemble, M-Vote falls back to M-Route, and states round-trip (also from older
and one-hot states).

The finding reproduced here: with 12 topics the old default φ (a seeded projection of hashed
topic names to r = 16) makes topics overlap, so a liar on a few topics is dragged below the
honest NPCs on the topics where it tells the truth, and liars are told apart less well."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import InputError
from memory.reputation import BetaReputation
from memory.sigma import SigmaMem
from memory.sigma_state import STATE_VERSION
from memory.sigma_topics import decay_along

TOPICS = [
    "harbor prices",
    "smuggler routes",
    "crypt secrets",
    "gem location",
    "ship cargo",
    "guard patrols",
    "tavern rumours",
    "the weather",
    "noble feuds",
    "market taxes",
    "temple relics",
    "caravan roads",
]
K = len(TOPICS)


def auroc(pos: np.ndarray, neg: np.ndarray) -> float:
    d = pos[:, None] - neg[None, :]
    return float(((d > 0).sum() + 0.5 * (d == 0).sum()) / d.size)


def simulate(mem, seed: int, claims: int = 20, P: int = 16) -> tuple[float, float]:
    """12 topics, 6 honest NPCs and 10 that lie on 1-3 topics; each round a random topic, every
    NPC's claim verified. After ``claims`` claims per NPC and topic: (AUROC honest vs lying
    (NPC, topic) pairs, share of the liars' truthful pairs scoring below the honest median)."""
    rng = np.random.default_rng(seed)
    peers = [f"n{i}" for i in range(P)]
    lies = np.zeros((P, K), dtype=bool)
    for p in range(6, P):
        lies[p, rng.permutation(K)[: int(rng.integers(1, 4))]] = True
    rate = np.where(lies, rng.uniform(0.05, 0.3, (P, K)), rng.uniform(0.7, 0.95, (P, K)))
    for _ in range(claims * K):
        k = int(rng.integers(K))
        mem.write(TOPICS[k], dict(zip(peers, np.where(rng.random(P) < rate[:, k], 1, -1).tolist())))
    s = np.stack([mem.scores(tp, peers) for tp in TOPICS], axis=1)
    median = np.median(s[:6], axis=0)
    truthful = ~lies
    truthful[:6] = False
    return auroc(s[~lies], s[lies]), float((s < median)[truthful].mean())


def gram(mem: SigmaMem) -> np.ndarray:
    phi = np.stack([mem.phi(tp) for tp in TOPICS])
    return phi @ phi.T


# --------------------------------------------------------------------------- the finding


def test_old_default_blurs_twelve_topics_declared_topics_do_not():
    old = SigmaMem()  # hashed projection, r = 16
    G = gram(old)
    cross = (G**2).sum(axis=1) - 1.0  # Σ_{j≠i} cos²(φ_i, φ_j)
    assert old.r == 16 and cross.mean() > 0.4  # the blur (≈ 0.65 per topic in the report)
    new = SigmaMem.for_world(["ann"], TOPICS, shared=0)
    assert new.config.phi == "topics" and new.r == K + new.config.spare  # r grows with the topic count
    assert np.array_equal(gram(new), np.eye(K))  # exactly orthogonal
    game = SigmaMem.for_world(["ann"], TOPICS)  # the game's: own parts orthogonal, half of φ shared
    assert game.r == K + game.config.spare + 1 and game.config.shared == 0.5
    assert np.allclose(gram(game), 0.5 * np.eye(K) + 0.5, rtol=0, atol=1e-12)
    many = [f"topic {i}" for i in range(40)]
    assert np.array_equal(
        np.stack([SigmaMem.for_world([], many, shared=0).phi(t) for t in many])
        @ np.stack([SigmaMem.for_world([], many, shared=0).phi(t) for t in many]).T,
        np.eye(40),
    )


def test_liars_identified_and_topic_specific_liars_not_dragged():
    """Declared topics kept apart (``shared=0``) leave a topic-specific liar unbiased on its truthful
    topics; the game's pooling (``shared=0.5``) pays for its cross-topic gain with that bias."""
    aucs, drags, old_aucs, old_drags, pool_drags = [], [], [], [], []
    for seed in range(3):
        a, d = simulate(SigmaMem.for_world([], TOPICS, shared=0, gamma=0.95), seed)
        aucs.append(a), drags.append(d)
        a, d = simulate(SigmaMem(), seed)
        old_aucs.append(a), old_drags.append(d)
        pool_drags.append(simulate(SigmaMem.for_world([], TOPICS), seed)[1])
    assert np.mean(aucs) >= 0.95
    assert np.mean(drags) <= 0.6  # unbiased: about half
    assert np.mean(old_drags) >= 0.65  # the old default drags them down
    assert np.mean(pool_drags) >= 0.65  # so does pooling: the documented cost
    assert np.mean(aucs) > np.mean(old_aucs) + 0.02


def test_declared_topics_score_like_per_topic_counts():
    """With decay along the judged topic a declared topic's score is η(α − β) of counts decayed only
    when that (NPC, topic) is judged, whatever happens on the other topics."""
    mem = SigmaMem.for_world(["ann", "bo"], TOPICS[:3], shared=0, gamma=0.95)
    rng = np.random.default_rng(5)
    counts = {tp: 0.0 for tp in TOPICS[:3]}
    for _ in range(60):
        tp = TOPICS[int(rng.integers(3))]
        c = 1 if rng.random() < 0.7 else -1
        mem.write(tp, {"ann": c, "bo": 1})
        counts[tp] = 0.95 * counts[tp] + c
    for tp in TOPICS[:3]:
        assert mem.score("ann", tp) == pytest.approx(0.05 * counts[tp], abs=1e-12)
    M = mem.M("ann")
    assert np.array_equal(M, np.diag(np.diag(M)))


def test_the_game_uses_declared_topic_phi_and_transfers_in_play():
    """The game's Σ-Mem: the world's topics declared (orthogonal), and a topic the world does not
    declare gets its credibility from the transfer, not a flat 0.5."""
    from game.play.session import Game
    from tests.conftest import ROOT

    game = Game(ROOT / "tests" / "fixtures" / "mini", seed=0)
    sigma = game.facts.sigma
    assert sigma.config.phi == "topics" and sigma.declared == ["gem", "weather"]
    own = sigma.phi("gem")[:-1] @ sigma.phi("weather")[:-1]  # the last dimension is shared by every topic
    assert own == 0.0 and sigma.phi("gem") @ sigma.phi("weather") == pytest.approx(sigma.config.shared)
    for _ in range(10):
        sigma.write("gem", {"mara": 1, "liar": -1})
        sigma.write("weather", {"mara": 1, "liar": 1})
    assert game.facts.credibility("mara", "harbor gossip") > 0.55
    assert game.facts.credibility("liar", "harbor gossip") < game.facts.credibility("mara", "harbor gossip")
    assert game.facts.credibility("elder", "harbor gossip") == 0.5  # never judged: no evidence


# --------------------------------------------------------------------------- unseen topics


def test_unseen_topic_credibility_comes_from_transfer():
    mem = SigmaMem.for_world(["honest", "liar", "stranger"], ["fish prices", "grain prices", "the weather"])
    for _ in range(20):
        for tp in ("fish prices", "grain prices", "the weather"):
            mem.write(tp, {"honest": 1, "liar": -1})
    s = {p: mem.score(p, "spice prices") for p in ("honest", "liar", "stranger")}  # never written
    assert s["honest"] > 0.2 and s["liar"] < -0.2 and s["stranger"] == 0.0
    assert "spice prices" not in mem.topics  # reading does not register it
    q, tau = mem._space.mixture("spice prices")
    assert q[0] + q[1] > q[2]  # shares a word with the price topics
    assert np.linalg.norm(mem.phi("spice prices")) == pytest.approx(1.0)
    assert mem.route("spice prices", ["liar", "stranger", "honest"]) == "honest"


def test_unseen_topic_follows_its_own_evidence_once_written():
    mem = SigmaMem.for_world(["ann"], ["gem location", "ship cargo"])
    for _ in range(30):
        mem.write("gem location", {"ann": 1})
    before = mem.score("ann", "crypt secrets")
    assert before > 0
    for _ in range(60):
        mem.write("crypt secrets", {"ann": -1})
    assert mem.score("ann", "crypt secrets") < -0.5
    assert "crypt secrets" in mem.topics and "crypt secrets" in mem.trust_table()["ann"]


def test_related_unseen_topics_transfer_by_meaning_with_a_semantic_embedder():
    class Families:  # a stand-in sentence embedder: one axis per family of meanings
        name = "families"

        def __call__(self, texts):
            axes = {"gold": 0, "jewel": 0, "treasure": 0, "storm": 1, "wind": 1, "tide": 1}
            out = np.zeros((len(texts), 3))
            for i, t in enumerate(texts):
                hit = [a for w, a in axes.items() if w in t]
                out[i, hit[0] if hit else 2] = 1.0
            return out

    mem = SigmaMem.for_world(
        ["a", "b"], ["gold coins", "storm warnings"], embedder=Families(), transfer_temp=0.1, shared=0
    )  # without pooling: a's record is +1 on one family and -1 on the other, 0 pooled
    for _ in range(30):  # a: right on treasure, wrong on weather; b: the reverse
        mem.write("gold coins", {"a": 1, "b": -1})
        mem.write("storm warnings", {"a": -1, "b": 1})
    assert mem.score("a", "jewel vault") > 0.3 > -0.3 > mem.score("b", "jewel vault")
    assert mem.score("b", "tide tables") > 0.3 > -0.3 > mem.score("a", "tide tables")
    assert mem.vote("jewel vault", {"b": "no", "a": "yes"}) == "yes"


def test_topics_mode_without_declared_topics_and_errors():
    mem = SigmaMem.for_world(["ann"])
    assert mem.r == mem.config.spare + 1 and mem.declared == []
    mem.write("anything", {"ann": 1})
    assert mem.score("ann", "anything") == pytest.approx(1 - mem.config.gamma)
    with pytest.raises(InputError, match="r would be 0"):
        SigmaMem([], [], phi="topics", spare=0)
    with pytest.raises(InputError, match="duplicate"):
        SigmaMem([], ["a", "a"], phi="topics")
    assert SigmaMem.for_world([], ["b", "a"]).declared == ["a", "b"]  # sorted: listing order does not matter


# --------------------------------------------------------------------------- decay along φ


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from([0.5, 0.9, 0.95]))
def test_decay_along_phi(seed, gamma):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((3, 5, 5))
    M = A + np.swapaxes(A, 1, 2)
    phi = rng.standard_normal(5)
    phi /= np.linalg.norm(phi)
    out = decay_along(M, phi, gamma)
    assert np.array_equal(out, np.swapaxes(out, 1, 2))
    assert np.allclose(np.einsum("i,nij,j->n", phi, out, phi), gamma * np.einsum("i,nij,j->n", phi, M, phi))
    u = rng.standard_normal(5)
    u -= (u @ phi) * phi  # orthogonal to φ: untouched
    assert np.allclose(np.einsum("i,nij,j->n", u, out, u), np.einsum("i,nij,j->n", u, M, u))
    D = np.eye(5) - (1 - np.sqrt(gamma)) * np.outer(phi, phi)
    assert np.allclose(out, D @ M @ D)


def test_aligned_events_still_follow_theorem_1_recursion_with_topic_decay():
    mem = SigmaMem(["ann"], ["t"], phi="topics", decay="topic", gamma=0.9)
    s = 0.0
    for c in [1, -1, 1, 1, 1, -1]:
        mem.write("t", {"ann": c})
        s = 0.9 * s + 0.1 * c
        assert mem.score("ann", "t") == pytest.approx(s, abs=1e-12)
    mem.tick(10)  # gamma_idle 1: time alone forgets nothing
    assert mem.score("ann", "t") == pytest.approx(s, abs=1e-12)


# --------------------------------------------------------------------------- M-Vote fallback


def test_m_vote_falls_back_to_route_at_cf90():
    """Nine colluding liars, one honest NPC that is not yet trusted (one right, one wrong): every
    weight is 0, and the route fallback follows the least-distrusted claimant, not the majority."""
    peers = [f"n{i}" for i in range(10)]
    mem = SigmaMem.for_world(peers, TOPICS)
    beta = BetaReputation(peers, TOPICS)
    for out in ({p: -1 for p in peers[1:]} | {"n0": 1}, {p: -1 for p in peers}):
        mem.write("gem location", out)
        beta.write("gem location", out)
    claims = {p: "well" for p in peers[1:]} | {"n0": "chest"}
    assert all(w == 0 for w in mem.weights("gem location", list(claims)).values())
    assert mem.vote("gem location", claims) == "chest"
    assert mem.vote("gem location", claims, fallback="majority") == "well"
    assert beta.vote("gem location", claims) == "well"  # the beta vote has only the majority to fall back on


# --------------------------------------------------------------------------- state


def test_state_round_trip_with_unseen_topics():
    mem = SigmaMem.for_world(["ann", "bo"], TOPICS[:4])
    mem.write("harbor prices", {"ann": 1, "bo": -1})
    mem.write("fish prices", {"ann": -1})  # unseen: registered on write
    state = json.loads(json.dumps(mem.get_state()))
    assert state["version"] == STATE_VERSION == 2 and state["declared"] == sorted(TOPICS[:4])
    copy = SigmaMem.from_state(state)
    assert copy.get_state() == mem.get_state()
    assert copy.score("ann", "spice prices") == mem.score("ann", "spice prices")
    other = SigmaMem.for_world(["ann"], TOPICS[:4])
    other.set_state(state)
    assert other.get_state() == mem.get_state()
    with pytest.raises(InputError, match="declared topics"):
        SigmaMem.for_world(["ann"], TOPICS[4:8]).set_state(state)  # same r, other topics
    with pytest.raises(InputError, match="different config"):
        SigmaMem.for_world(["ann"], TOPICS[:3]).set_state(state)


def test_old_states_load():
    """A version-1 one-hot state (a game saved before topic φ) loads into the game's memory over
    the same topics with its evidence intact; a version-1 projection state still loads as itself."""
    onehot = SigmaMem(["ann", "bo"], ["gem", "price"], phi="onehot", decay="judged")
    for _ in range(5):
        onehot.write("price", {"ann": 1, "bo": -1})
    v1 = onehot.get_state()
    v1["version"] = 1
    for k in ("spare", "transfer", "transfer_temp"):
        v1["config"].pop(k)
    v1.pop("declared")
    game = SigmaMem.for_world(["ann", "bo"], ["price", "gem"])
    game.set_state(json.loads(json.dumps(v1)))
    for p in ("ann", "bo"):
        for tp in ("gem", "price"):
            assert game.score(p, tp) == pytest.approx(onehot.score(p, tp), abs=1e-15)
    assert game.score("ann", "unseen topic") > 0
    assert SigmaMem.from_state(v1).get_state()["M"] == onehot.get_state()["M"]
    proj = SigmaMem(["ann"])
    proj.write("harbor prices", {"ann": 1})
    old = proj.get_state()
    old["version"] = 1
    for k in ("spare", "transfer", "transfer_temp"):
        old["config"].pop(k)
    old.pop("declared")
    assert SigmaMem.from_state(old).score("ann", "harbor prices") == proj.score("ann", "harbor prices")
    with pytest.raises(InputError, match="different config"):
        SigmaMem.for_world(["ann", "bo"], ["gem", "other"]).set_state(v1)
    # a world without declared topics: the old projection state fits the game's memory, same φ
    nodecl = SigmaMem.for_world(["ann"], shared=0)
    nodecl.set_state(old)
    assert np.allclose(nodecl.phi("harbor prices"), proj.phi("harbor prices"), rtol=0, atol=1e-12)
    assert nodecl.score("ann", "harbor prices") == pytest.approx(proj.score("ann", "harbor prices"), abs=1e-12)
    pooled = SigmaMem.for_world(["ann"])  # the game's, with a shared dimension: the same scores
    pooled.set_state(old)
    for tp in ("harbor prices", "fish prices"):
        assert pooled.score("ann", tp) == pytest.approx(proj.score("ann", tp), abs=1e-12)


def test_a_game_saved_before_pooling_loads_with_its_scores():
    """A game saved with declared topics kept apart (``shared = 0``, γ = 0.95) loads into the game's
    pooled memory with every score as it was; ``from_state`` keeps the saved config."""
    old = SigmaMem.for_world(["ann", "bo"], TOPICS[:3], shared=0, gamma=0.95)
    rng = np.random.default_rng(2)
    for _ in range(40):
        tp = [*TOPICS[:3], "fish prices"][int(rng.integers(4))]
        old.write(tp, {"ann": int(rng.choice([-1, 1])), "bo": 1})
    state = json.loads(json.dumps(old.get_state()))
    game = SigmaMem.for_world(["ann", "bo"], TOPICS[:3])
    game.set_state(state)
    assert game.config.shared == 0.5 and game.config.gamma == 0.9
    for p in ("ann", "bo"):
        for tp in [*TOPICS[:4], "fish prices", "spice prices"]:
            assert game.score(p, tp) == pytest.approx(old.score(p, tp), abs=1e-12)
    assert SigmaMem.from_state(state).get_state() == old.get_state()
    with pytest.raises(InputError, match="different config"):  # a pooled state fits no other share
        SigmaMem.for_world(["ann"], TOPICS[:3], shared=0.25).set_state(game.get_state())


@pytest.mark.parametrize("topic", [TOPICS[0], "fish prices"])
def test_topic_decay_with_a_shared_dimension_shrinks_the_score_by_gamma(topic):
    mem = SigmaMem.for_world(["ann"], TOPICS[:3])
    rng = np.random.default_rng(4)
    for _ in range(30):
        mem.write([*TOPICS[:3], "fish prices"][int(rng.integers(4))], {"ann": int(rng.choice([-1, 1]))})
    before, other = mem.score("ann", topic), mem.score("ann", TOPICS[2])
    mem.write(topic, {"ann": 0.0})  # judged, no evidence either way: only the decay
    assert mem.score("ann", topic) == pytest.approx(0.9 * before, abs=1e-12)
    assert mem.score("ann", TOPICS[2]) != other  # the shared record forgets too


def test_votes_weigh_the_topics_own_evidence():
    """The game's M-Vote reads ``topic_scores``: exactly the scores of the same memory without the shared
    dimension (declared and unseen topics alike), so pooling never outvotes a topic's own record."""
    peers = ["ann", "bo", "cy"]
    pooled = SigmaMem.for_world(peers, TOPICS[:3])
    apart = SigmaMem.for_world(peers, TOPICS[:3], shared=0, vote_evidence="score")
    rng = np.random.default_rng(8)
    for _ in range(60):
        tp = [*TOPICS[:3], "fish prices"][int(rng.integers(4))]
        out = {p: int(rng.choice([-1, 1])) for p in peers}
        pooled.write(tp, out)
        apart.write(tp, out)
    for tp in [*TOPICS[:3], "fish prices", "spice prices"]:
        assert np.allclose(pooled.topic_scores(tp, peers), apart.scores(tp, peers), rtol=0, atol=1e-12)
        claims = dict(zip(peers, ["x", "y", "y"]))
        assert pooled.vote(tp, claims) == apart.vote(tp, claims)
    assert not np.allclose(pooled.scores(TOPICS[0], peers), apart.scores(TOPICS[0], peers))  # scores pool
    assert pooled.config.vote_evidence == "topic"


def test_the_trust_table_shows_what_was_verified_on_each_topic():
    """Pooling moves the credibility of a topic nobody was judged on, but the table the journal and
    the trust tab show stays per topic: an NPC is not shown "caught lying" where it never was."""
    mem = SigmaMem.for_world(["jory"], ["treasure", "weather"])
    mem.write("treasure", {"jory": -1})
    mem.write("weather", {"jory": 0.0})  # judged, nothing either way: weather is a known topic
    assert mem.trust_table()["jory"]["weather"] == 0.0
    assert mem.trust_table()["jory"]["treasure"] == pytest.approx(mem.topic_scores("treasure", ["jory"])[0])
    assert mem.score("jory", "weather") < 0  # the pooled credibility does move
