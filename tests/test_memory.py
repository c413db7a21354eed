"""Memory bank, MEMO context optimizer, masking, compression and reflection, with the real MiniLM."""

from __future__ import annotations

import pytest

from memory.bank import MemoryBank, ScopeError
from memory.config import MaskConfig, MemoConfig
from memory.optimizer import ContextOptimizer
from memory.records import FACTS, SHARED, private

pytestmark = pytest.mark.embeddings


@pytest.fixture(scope="session")
def minilm():
    from memory.embedder import get_embedder

    return get_embedder("minilm")


@pytest.fixture
def bank(minilm):
    return MemoryBank(minilm)


def fill(bank):
    bank.add(SHARED, "observation", "The quay is wet and the gulls are loud.", 1, speaker="player")
    bank.add(
        private("ilse"),
        "claim",
        "Ilse says the strongbox is in the sea cave.",
        2,
        speaker="ilse",
        triple=("strongbox", "located_in", "sea_cave"),
        topic="treasure",
    )
    bank.add(
        private("player"),
        "claim",
        "Jory says the strongbox is in the chapel crypt.",
        3,
        speaker="jory",
        triple=("strongbox", "located_in", "crypt"),
        topic="treasure",
    )
    bank.add(
        private("player"),
        "claim",
        "Ilse says the strongbox is in the sea cave.",
        4,
        speaker="ilse",
        triple=("strongbox", "located_in", "sea_cave"),
        topic="treasure",
    )
    bank.add(FACTS, "fact", "The lantern costs between 10 and 22 gold.", 5)
    bank.add(private("player"), "agreement", "Deal: you buy the storm lantern for 14 gold.", 6, anchor=True)


def test_scopes_are_enforced(bank, minilm):
    fill(bank)
    secret = next(r for r in bank.records.values() if r.scope == private("ilse"))
    with pytest.raises(ScopeError):
        bank.get("player", secret.id)
    assert bank.get("ilse", secret.id) is secret
    q = minilm(["where is the strongbox"])[0]
    for agent in ("player", "ilse", "jory"):
        for rec, _ in bank.search(agent, q, 50):
            assert rec.scope in (SHARED, FACTS, private(agent))
    assert all(r.scope != private("ilse") for r in bank.visible("player"))


def test_search_ranks_by_meaning(bank, minilm):
    fill(bank)
    hits = bank.search("player", minilm(["Where did the strongbox end up?"])[0], 3)
    assert "strongbox" in hits[0][0].text
    assert [h[1] for h in hits] == sorted((h[1] for h in hits), reverse=True)


def test_conflicting_claims_are_controversial(bank):
    fill(bank)
    crypt = next(r for r in bank.records.values() if "crypt" in r.text)
    mine = [r for r in bank.records.values() if "sea cave" in r.text and r.scope == private("player")]
    ilse = next(r for r in bank.records.values() if r.scope == private("ilse"))
    assert crypt.controversy == 0.5 and mine[0].controversy == 0.5
    assert crypt.id in mine[0].references  # the later claim refers to the one it contradicts
    assert ilse.controversy == 0.0  # the player's private rival is invisible to Ilse's memory


def test_controversy_never_crosses_private_scopes(bank):
    a = bank.add(private("ilse"), "claim", "Gold is in the cave.", 1, speaker="ilse", triple=("gold", "in", "cave"))
    b = bank.add(private("jory"), "claim", "Gold is in the well.", 1, speaker="jory", triple=("gold", "in", "well"))
    assert a.controversy == 0.0 and b.controversy == 0.0 and not b.references
    for who in ("x", "y", "z"):  # one rival heard by three agents is still one rival to each
        bank.add(private(who), "claim", "Gold is in the well.", 2, speaker="jory", triple=("gold", "in", "well"))
    c = bank.add(
        SHARED, "claim", "Pell announces: gold is in the crypt.", 3, speaker="pell", triple=("gold", "in", "crypt")
    )
    assert a.controversy == 0.5 and b.controversy == 0.5  # a public rival is visible to everyone
    assert c.controversy == 0.0  # nothing private reaches a shared record


def test_novelty_is_new_concepts(bank):
    a = bank.add(SHARED, "observation", "A red lantern hangs by the door.", 1)
    b = bank.add(SHARED, "observation", "A red lantern hangs by the door.", 2)
    c = bank.add(SHARED, "observation", "Smugglers unload brandy at midnight.", 3)
    assert a.novelty == 1.0 and b.novelty == 0.0 and c.novelty == 1.0


def test_context_sections_budget_and_anchors(bank):
    fill(bank)
    for t in range(7, 40):
        bank.add(private("player"), "observation", f"Turn {t}: waves break on the rocks below the pier.", t)
    opt = ContextOptimizer(bank, MemoConfig(budget=120))
    ctx = opt.build(
        "player",
        40,
        "Where is the strongbox? Who can I trust about treasure?",
        extra_anchors=["Goal: find the strongbox"],
    )
    assert ctx.tokens <= 120
    assert "anchors" in ctx.sections and any("14 gold" in ln for ln in ctx.sections["anchors"])
    assert ctx.sections["anchors"][0] == "Goal: find the strongbox"
    text = ctx.text()
    assert "strongbox" in text and "sea cave" in text
    rows = opt.explain("player", 40)
    fates = {r["fate"] for r in rows}
    assert "selected" in fates and ({"dropped", "merged", "summarised", "masked"} & fates)
    for r in rows:
        assert r["fate"] != "candidate", r
        assert 0.0 <= r["normalised"]["relevance"] <= 1.0
    assert all(r["scope"] in (SHARED, FACTS, private("player")) for r in rows)


def test_anchor_survives_a_tiny_budget(bank):
    fill(bank)
    ctx = ContextOptimizer(bank, MemoConfig(budget=16)).build("player", 10, "gulls")
    assert any("14 gold" in ln for ln in ctx.sections.get("anchors", []))


def test_same_state_same_context(minilm):
    def run():
        b = MemoryBank(minilm)
        fill(b)
        return ContextOptimizer(b).build("player", 8, "strongbox", touch=False).text()

    assert run() == run()


def test_redundant_memories_are_masked_or_merged(bank):
    for t in range(1, 6):
        bank.add(private("player"), "observation", "The iron gate to the east is locked.", t)
    bank.add(private("player"), "observation", "A brass key glints in the net sheds.", 6)
    opt = ContextOptimizer(bank, MemoConfig(recent_turns=0))
    ctx = opt.build("player", 20, "how do I open the iron gate")
    gate_lines = [ln for sec in ctx.sections.values() for ln in sec if "iron gate" in ln]
    assert len(gate_lines) == 1 and "(x5, turns 1-5)" in gate_lines[0]
    rows = opt.explain("player", 20)
    gate = [r for r in rows if "iron gate" in r["text"]]
    assert len(gate) == 1 and gate[0]["stands_for"] == 5  # collapsed before the candidate cut
    assert len(ctx.ids) == 2  # one line for the gate (standing for five), one for the key


def test_own_recent_statements_are_masked(bank):
    bank.add(private("mara"), "utterance", "Mara says: the lantern is twenty-two gold, no less.", 9, speaker="mara")
    bank.add(private("mara"), "utterance", "Mara says: the lantern is twenty-two gold, no less!", 10, speaker="player")
    opt = ContextOptimizer(bank, MemoConfig(recent_turns=0, mask=MaskConfig(self_repeat=0.9)))
    opt.build("mara", 11, "lantern price")
    rows = {r["id"]: r for r in opt.explain("mara", 11)}
    fates = sorted(r["fate"] for r in rows.values())
    assert "masked" in fates
    masked = next(r for r in rows.values() if r["fate"] == "masked")
    assert "own recent statement" in masked["reason"] or "redundant" in masked["reason"]


def test_resolved_memories_fade(bank):
    a = bank.add(private("player"), "observation", "The lighthouse key hangs in the net sheds.", 1)
    b = bank.add(private("player"), "observation", "The lighthouse key hangs in the old net sheds.", 1)
    bank.set_status([b.id], "resolved")
    opt = ContextOptimizer(
        bank,
        MemoConfig(
            recent_turns=0,
            collapse_similarity=1.0,
            mask=MaskConfig(resolved_factor=0.1, redundancy_drop=1.0, redundancy_soft=1.0),
        ),
    )
    opt.build("player", 5, "lighthouse key")
    rows = {r["id"]: r for r in opt.explain("player", 5)}
    assert "x0.1 resolved sub-goal" in rows[b.id]["adjustments"]
    assert rows[b.id]["score"] < rows[a.id]["score"]
    bank.set_status([b.id], "consolidated")  # long-term tier: still found by similarity, at full weight
    opt.build("player", 6, "lighthouse key")
    row = next(r for r in opt.explain("player", 6) if r["id"] == b.id)
    assert not any("resolved" in a for a in row["adjustments"])


def test_recency_is_per_agent(bank):
    old = bank.add(SHARED, "observation", "The bell tolls at the chapel.", 1)
    new = bank.add(SHARED, "observation", "The tide turns at the quay.", 8)
    opt = ContextOptimizer(bank, MemoConfig(recent_turns=0))
    opt.build("jory", 10, "chapel bell")  # jory's reading refreshes old for jory only
    assert bank.last_access("jory", old) == 10 and bank.last_access("ilse", old) == 1
    opt.build("ilse", 10, "tide", touch=False)
    rows = {r["id"]: r for r in opt.explain("ilse", 10)}
    assert rows[old.id]["recency"] < rows[new.id]["recency"]


def test_repeated_events_merge_into_one_counted_line(bank):
    for t in (4, 6, 9):
        bank.add(private("player"), "observation", "Jory Flint goes north.", t)
    ctx = ContextOptimizer(bank, MemoConfig(recent_turns=0)).build("player", 12, "where did Jory go")
    assert any("Jory Flint goes north. (x3, turns 4-9)" == ln for sec in ctx.sections.values() for ln in sec)


def test_retrieval_refreshes_recency(bank):
    r = bank.add(private("player"), "observation", "The widow lives by the chapel.", 1)
    ContextOptimizer(bank).build("player", 30, "widow chapel")
    assert r.last_access == 30


def test_older_clusters_are_summarised(bank):
    for t, s in enumerate(
        [
            "Jory boasts about the Gannet's last voyage.",
            "Jory brags about sailing the Gannet.",
            "Jory tells a tall tale about the Gannet's voyage.",
            "Jory again boasts of the Gannet.",
        ],
        1,
    ):
        bank.add(private("player"), "utterance", s, t, speaker="jory")
    opt = ContextOptimizer(
        bank,
        MemoConfig(
            recent_turns=0,
            summarise_after=5,
            merge_similarity=0.99,
            keep_verbatim=0,
            collapse_similarity=0.99,
            mask=MaskConfig(redundancy_drop=0.99, redundancy_soft=0.99),
        ),
    )
    ctx = opt.build("player", 40, "what did Jory say about the Gannet", budget=55)  # four lines do not fit
    rows = opt.explain("player", 40)
    assert any(r["fate"] == "summarised" for r in rows)
    roomy = opt.build("player", 41, "what did Jory say about the Gannet")
    assert not any(r["fate"] == "summarised" for r in opt.explain("player", 41))  # room: nothing compressed
    assert len(roomy) == 4
    assert any("similar" in ln or "turns 1-4" in ln for sec in ctx.sections.values() for ln in sec)


def test_llm_summariser_used_for_large_clusters_only(bank):
    calls = []

    def summarise(lines):
        calls.append(len(lines))
        return "Jory keeps bragging about the Gannet."

    # seven stories, not one revised (two words apart: one swapped word would join losslessly)
    tales = ("great storm", "white whale", "bloody mutiny", "hidden reef", "giant kraken", "pirate fleet", "thick fog")
    for t, tale in enumerate(tales, 1):
        bank.add(private("player"), "utterance", f"Jory brags about the Gannet and the {tale}.", t, speaker="jory")
    opt = ContextOptimizer(
        bank,
        MemoConfig(
            recent_turns=0,
            summarise_after=2,
            llm_cluster_min=6,
            keep_verbatim=0,
            cluster_similarity=0.3,
            merge_similarity=0.999,
            mask=MaskConfig(redundancy_drop=0.999, redundancy_soft=0.999),
        ),
        summariser=summarise,
    )
    ctx = opt.build("player", 50, "Jory Gannet", budget=60)
    assert calls and calls[0] >= 6
    assert "Jory keeps bragging about the Gannet." in ctx.text()


def test_bank_state_round_trip(bank, minilm):
    fill(bank)
    other = MemoryBank(minilm)
    other.set_state(bank.get_state())
    q = minilm(["strongbox"])[0]
    assert [(r.id, round(s, 5)) for r, s in bank.search("player", q, 5)] == [
        (r.id, round(s, 5)) for r, s in other.search("player", q, 5)
    ]
    assert other.get_state() == bank.get_state()


def test_reflection_consolidates_old_working_memory(bank):
    from memory.config import ReflectionConfig
    from memory.reflection import Reflector

    for t in range(1, 9):
        bank.add(private("player"), "observation", f"Waves crash on the harbour rocks, turn {t}.", t)
    bank.add(
        private("player"),
        "claim",
        "Ilse says the strongbox is in the sea cave.",
        2,
        speaker="ilse",
        triple=("strongbox", "located_in", "sea_cave"),
    )
    ref = Reflector(bank, ReflectionConfig(threshold=1.0, working_turns=3))
    ref.note("player", 2.0)
    made = ref.maybe_consolidate("player", 20)
    assert made
    refl = bank.records[made[0]]
    assert refl.kind == "reflection" and refl.tier == "long" and "Recalled from turns" in refl.text
    assert all(bank.records[i].status == "consolidated" for i in refl.references)
    claim = next(r for r in bank.records.values() if r.kind == "claim")
    assert claim.tier == "long" and claim.status == "active"


def test_different_numbers_are_different_facts(bank):
    bank.add(private("player"), "offer", "Tavish Orme offers price=40 for the pouch of saffron.", 3, speaker="tavish")
    bank.add(private("player"), "offer", "Tavish Orme offers price=43 for the pouch of saffron.", 9, speaker="tavish")
    ctx = ContextOptimizer(bank, MemoConfig(recent_turns=0)).build("player", 30, "saffron price")
    text = ctx.text()
    assert "price=40 → 43" in text and "oldest → latest" in text  # both values, the newer one last


def test_focus_outweighs_a_long_situation_query(bank, minilm):
    for t in range(1, 60):
        bank.add(
            private("player"),
            "observation",
            f"The Quay. Wet granite, coiled rope and gulls. Exits north and south. ({t})",
            t,
        )
    fact = bank.add(private("player"), "observation", "The flask of rum is on the top shelf at the Crypt.", 5)
    situation = "The Quay. Wet granite, coiled rope and the smell of tar. Gulls argue. Exits: north, south."
    opt = ContextOptimizer(bank, MemoConfig(budget=120, candidates=8))
    ctx = opt.build("player", 60, situation, focus="Where did you see the flask of rum?")
    assert fact.text in ctx.text()


def test_a_different_fact_worded_like_an_own_statement_is_not_masked_as_a_repeat():
    """Self-repeat masking asks the same question as redundancy: a statement of another value is a
    different fact however close its vector (templated reports read alike to any embedder)."""
    import numpy as np

    from memory.embedder import get_embedder
    from memory.masking import ScoredMemory, mask
    from memory.records import MemoryRecord

    emb = get_embedder("hash")
    mine = "The physician's report shows the new sluice gates cuts accidents by 3 in a year."
    texts = [
        "The guild ledger shows the new sluice gates cuts accidents by 22 in a year.",  # another value
        "Again: the physician's report shows the new sluice gates cuts accidents by 3 in a year.",
    ]  # mine again
    vecs, own = emb(texts), emb([mine])
    assert (vecs @ own.T).min() >= 0.8  # alike enough to the vector test alone
    cands = [
        ScoredMemory(MemoryRecord(id=str(i), scope="shared", kind="utterance", text=t, turn=1, seq=i), score=1.0)
        for i, t in enumerate(texts)
    ]
    cfg = MaskConfig(self_repeat=0.8, redundancy_drop=1.0, redundancy_soft=1.0)
    kept = mask(cands, np.asarray(vecs), np.asarray(own), {"mine"}, cfg, [mine])
    assert [c.id for c in kept] == ["0"]
    assert "own recent statement" in cands[1].reason
    # without the texts (the older call) both would have been masked on the vectors alone
    fresh = [ScoredMemory(c.rec, score=1.0) for c in cands]
    assert mask(fresh, np.asarray(vecs), np.asarray(own), {"mine"}, cfg) == []


@pytest.mark.parametrize(
    ("said", "heard", "repeat"),
    [
        ("Mara says: the lantern is twenty-two gold, no less.", "Mara says: the lantern is 22 gold, no less.", True),
        ("Mara says: the toll is 1,200 crowns, no less.", "Mara says: the toll is 1200 crowns, no less.", True),
        ("Mara says: the east gate is shut.", "Mara says: the east gate is closed.", True),
        (
            "Mara says: I will sell the lantern for 22 gold.",
            "Mara says: I will not sell the lantern for 22 gold.",
            False,
        ),
        ("Mara says: the lantern is 22 gold.", "Mara says: the lantern is 25 gold.", False),
    ],
)
def test_own_statement_said_again_in_other_words_is_masked_but_not_a_denial_or_another_value(
    minilm, said, heard, repeat
):
    """With the real embedder: the agent's own claim said back to it (numbers spelt out, a
    synonym) is masked as a repeat; its denial or another value is a different claim and stays."""
    bank = MemoryBank(minilm)
    bank.add(private("mara"), "utterance", said, 9, speaker="mara")
    other = bank.add(private("mara"), "utterance", heard, 10, speaker="player")
    opt = ContextOptimizer(
        bank, MemoConfig(recent_turns=0, mask=MaskConfig(self_repeat=0.9, redundancy_drop=1.0, redundancy_soft=1.0))
    )
    opt.build("mara", 11, "lantern price")
    row = next(r for r in opt.explain("mara", 11) if r["id"] == other.id)
    assert ("own recent statement" in row["reason"]) is repeat, row


def test_same_claim_reads_values_as_numbers_and_sees_denials():
    from memory.values import plain_values, same_claim

    assert plain_values("twenty-two gold, 1,200 crowns, 3.50, Price=40, at six") == plain_values(
        "22 gold, 1200 crowns, 3.5, price=40, at 6"
    )
    assert plain_values("crate 12 holds 40") != plain_values("crate 12 holds 41")
    assert same_claim("The bridge is safe.", "The bridge is safe, I said.")
    assert not same_claim("The bridge is safe.", "The bridge isn't safe.")
    assert not same_claim("I can pay 40.", "I cannot pay 40.") and not same_claim(
        "I can pay 40.", "I can pay forty-one."
    )


def test_same_claim_never_fails_and_a_text_is_its_own_claim():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from memory.values import same_claim

    pieces = st.sampled_from([*"0123456789,.=- abcnotwy'", "twenty", "six", "n't", "no ", "1,200", "x=4"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(pieces, max_size=30).map("".join), st.text(max_size=40))
    def check(text, noise):
        assert same_claim(text, text) and same_claim(noise, noise)

    check()


def test_a_denial_is_neither_redundant_with_the_claim_nor_merged_into_it(minilm):
    """'The bridge is not safe' reads like 'The bridge is safe' to any embedder; it says the opposite."""
    import numpy as np

    from memory.masking import ScoredMemory, mask
    from memory.records import MemoryRecord
    from memory.values import alike, denies

    texts = [
        "Corvin says: the old bridge is safe for carts.",
        "Bree says: the old bridge is not safe for carts.",
        "Corvin says: the old bridge is safe for carts!",
    ]
    vecs = np.asarray(minilm(texts))
    assert float(vecs[0] @ vecs[1]) >= 0.8
    cands = [
        ScoredMemory(
            MemoryRecord(id=str(i), scope="shared", kind="utterance", text=t, turn=i, seq=i), score=1.0 - i / 10
        )
        for i, t in enumerate(texts)
    ]
    kept = mask(cands, vecs, vecs[:0], set(), MaskConfig(redundancy_drop=0.8, redundancy_soft=0.7))
    assert [c.id for c in kept] == ["0", "1"]  # the denial stays; the repeat goes
    assert "redundant with 0" in cands[2].reason
    assert denies(texts[1]) and not denies(texts[0]) and not alike(texts[0], texts[1]) and alike(texts[0], texts[2])
    assert not denies("No, it is not safe.") and denies("It isn't safe.") and denies("Nobody crossed it.")
