"""Dataset importers (game.tournament.importers): Deal or No Deal, CaSiNo and GENIUS files written
here in each dataset's format become scenario sets whose utilities reproduce the datasets' points
exactly; the set file round-trips; bad input of any kind raises only InputError, naming the file
and the line or record."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import InputError
from game.negotiation.metrics import analyse
from game.negotiation.utility import quantise, utilities_for
from game.tournament.importers import (
    HumanOutcome,
    ImportedScenario,
    ScenarioSet,
    default_out,
    human_summary,
    import_casino,
    import_dond,
    import_genius,
    load_set,
    run_import,
    save_set,
)
from game.tournament.scenario_set import as_id, split_scene

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ITEMS = ("book", "hat", "ball")


def exact(points: int, total: int) -> float:
    return quantise(float(Fraction(points, total)))


# --- Deal or No Deal ---------------------------------------------------------------------------


def dond_line(mine, theirs, turns, output):
    dialogue = " ".join(f"{who}: {text} <eos>" for who, text in turns[:-1]) + f" {turns[-1][0]}: <selection>"
    return (
        f"<input> {' '.join(map(str, mine))} </input> <dialogue> {dialogue} </dialogue> "
        f"<output> {output} </output> <partner_input> {' '.join(map(str, theirs))} </partner_input>"
    )


def split(you, them):
    return (
        " ".join(f"item{i}={n}" for i, n in enumerate(you)) + " " + " ".join(f"item{i}={n}" for i, n in enumerate(them))
    )


def mirror(turns):
    return [("THEM" if w == "YOU" else "YOU", t) for w, t in turns]


P1 = (2, 2, 3, 2, 1, 0)  # 2 books worth 2, 3 hats worth 2, 1 ball worth 0 (max 10)
P2 = (2, 0, 3, 1, 1, 7)  # the same pile: books 0, hats 1, ball 7 (max 10)
T1 = [("THEM", "i need the ball"), ("YOU", "then i take the rest"), ("THEM", "deal"), ("YOU", "")]
T2 = [("YOU", "half each ?"), ("THEM", "no"), ("YOU", "")]
T3 = [("YOU", "all for me"), ("THEM", "never"), ("YOU", "")]
Q1 = (1, 4, 2, 1, 3, 2)  # 1 book 4, 2 hats 1, 3 balls 2 (max 12)
Q2 = (1, 0, 2, 5, 3, 0)  # books 0, hats 5, balls 0 (max 10)
DISAGREE = " ".join(["<disagree>"] * 6)
NO_AGREEMENT = " ".join(["<no_agreement>"] * 6)

DOND_LINES = [
    # 1-2: one dialogue from both sides; THEM (P2's owner) speaks first, so a = P2; agreement
    dond_line(P1, P2, T1, split((2, 3, 0), (0, 0, 1))),
    dond_line(P2, P1, mirror(T1), split((0, 0, 1), (2, 3, 0))),
    # 3-4: the same pair of inputs, another dialogue: a disagreement (not merged with 1-2)
    dond_line(P1, P2, T2, DISAGREE),
    dond_line(P2, P1, mirror(T2), DISAGREE),
    "",
    # 6: seen from one side only, no agreement
    dond_line(Q1, Q2, T3, NO_AGREEMENT),
    # 7-8: the two sides report different splits -> no agreement
    dond_line(Q1, Q2, T2, split((1, 0, 3), (0, 2, 0))),
    dond_line(Q2, Q1, mirror(T2), split((0, 2, 1), (1, 0, 2))),
    # 9: one side only, a split that shares out more hats than there are
    dond_line(Q2, Q1, T3, split((0, 2, 0), (1, 2, 3))),
]


@pytest.fixture
def dond_file(tmp_path):
    p = tmp_path / "train.txt"
    p.write_text("\n".join(DOND_LINES) + "\n", encoding="utf-8")
    return p


def test_dond_scenarios_dedup_and_outcomes(dond_file):
    s = import_dond(dond_file)
    assert s.source == "dond" and s.skipped == []
    assert [x.id for x in s.scenarios] == ["dond-1", "dond-3", "dond-6", "dond-7", "dond-9"]
    assert [x.origin for x in s.scenarios] == [
        "train.txt:1,2",
        "train.txt:3,4",
        "train.txt:6",
        "train.txt:7,8",
        "train.txt:9",
    ]
    endings = [x.human.ending for x in s.scenarios]
    assert endings == ["agreement", "disagree", "no_agreement", "inconsistent", "invalid_split"]
    assert [x.human.agreement for x in s.scenarios] == [True, False, False, False, False]
    for x in s.scenarios:
        assert [p.id for p in x.scene.parties] == ["a", "b"] and x.scene.first == "a"
        assert list(x.scene.issues) == list(ITEMS)
    agreed = s.scenarios[0].human
    # a spoke first: the owner of P2 (ball worth 7), who got the ball; b got books and hats
    assert agreed.outcome == {"book": "0", "hat": "0", "ball": "1"}
    assert agreed.points == {"a": 7.0, "b": 10.0}
    assert agreed.utilities == {"a": exact(7, 10), "b": exact(10, 10)}
    assert s.scenarios[1].human.utilities == {"a": 0.0, "b": 0.0}
    assert s.scenarios[1].human.points == {"a": 0.0, "b": 0.0}


def test_dond_first_speaker_is_a(dond_file):
    s = import_dond(dond_file)
    by = {x.id: x for x in s.scenarios}
    # line 1: THEM (P2) first -> a has P2's points; line 3: YOU (P1) first -> a has P1's points
    assert by["dond-1"].scene.parties[0].weights == {"book": 0.0, "hat": 0.3, "ball": 0.7}
    assert by["dond-3"].scene.parties[0].weights == {"book": 0.4, "hat": 0.6, "ball": 0.0}
    # line 9 is seen from Q2's side, who spoke first: a = Q2, and a gets "0 books, 2 hats, 0 balls"
    assert by["dond-9"].scene.parties[0].weights["hat"] == 1.0


def test_dond_utilities_are_points_over_max_for_every_split(dond_file):
    """Each imported scene, every split: utility = the dataset's points / max points, exactly."""
    sides = {"dond-1": (P2, P1), "dond-3": (P1, P2), "dond-6": (Q1, Q2), "dond-7": (Q1, Q2), "dond-9": (Q2, Q1)}
    for x in import_dond(dond_file).scenarios:
        a_in, b_in = sides[x.id]
        counts, pa, pb = a_in[0::2], a_in[1::2], b_in[1::2]
        ta = sum(c * v for c, v in zip(counts, pa))
        tb = sum(c * v for c, v in zip(counts, pb))
        u = utilities_for(x.scene)
        for ks in itertools.product(*(range(c + 1) for c in counts)):
            terms = dict(zip(ITEMS, map(str, ks)))
            assert u["a"](terms) == exact(sum(v * k for v, k in zip(pa, ks)), ta)
            assert u["b"](terms) == exact(sum(v * (c - k) for v, k, c in zip(pb, ks, counts)), tb)


def test_split_scene_is_exact_for_every_dond_context():
    """Every pile of 1-4 items per type and every point assignment worth 10 (as in DoND): the
    additive utility of every split equals points / max points to the last rounded digit."""
    n = 0
    for counts in itertools.product(range(1, 5), repeat=3):
        for pa in itertools.product(range(11), repeat=3):
            if sum(c * v for c, v in zip(counts, pa)) != 10 or n > 400:
                continue
            pb = (pa[2], pa[0], pa[1])
            tb = sum(c * v for c, v in zip(counts, pb))
            if tb == 0:
                continue
            n += 1
            u = utilities_for(split_scene("t", "", list(zip(ITEMS, counts)), pa, pb))
            for ks in itertools.product(*(range(c + 1) for c in counts)):
                terms = dict(zip(ITEMS, map(str, ks)))
                assert u["a"](terms) == exact(sum(v * k for v, k in zip(pa, ks)), 10)
                assert u["b"](terms) == exact(sum(v * (c - k) for v, k, c in zip(pb, ks, counts)), tb)
    assert n > 100


@pytest.mark.parametrize(
    "line, message",
    [
        (
            "<input> 1 2 3 </input> <dialogue> YOU: hi </dialogue> <output> x </output> "
            "<partner_input> 1 1 1 1 1 1 </partner_input>",
            "<input> needs 6 numbers",
        ),
        (DOND_LINES[0].replace("<partner_input>", "<partner>"), "no <partner_input>"),
        (DOND_LINES[0].replace("item2=1 </output>", "item2=one </output>"), "entry 6"),
        (
            DOND_LINES[0].replace(
                DOND_LINES[0][DOND_LINES[0].index("<output>") : DOND_LINES[0].index("</output>")],
                "<output> " + " ".join(["<lost>"] * 6) + " ",
            ),
            "unknown token",
        ),
        (dond_line((2, 0, 3, 0, 1, 0), P2, T2, DISAGREE), "worth 0 points"),
        (dond_line((3, 2, 3, 2, 1, 0), P2, T2, DISAGREE), "counts [3, 3, 1] differ"),
        (dond_line((99, 1, 1, 1, 1, 1), (99, 1, 1, 1, 1, 1), T2, DISAGREE), "more than 20"),
    ],
)
def test_dond_malformed_line_names_file_and_line(tmp_path, line, message):
    p = tmp_path / "bad.txt"
    p.write_text(DOND_LINES[0] + "\n" + DOND_LINES[1] + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        import_dond(p)
    assert "bad.txt:3: " in e.value.message and message in e.value.message
    s = import_dond(p, skip_bad=True)
    assert [x.id for x in s.scenarios] == ["dond-1"]
    assert len(s.skipped) == 1 and "bad.txt:3: " in s.skipped[0]


def test_dond_missing_empty_and_binary_files(tmp_path):
    with pytest.raises(InputError, match="nope.txt"):
        import_dond(tmp_path / "nope.txt")
    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty.txt: no dialogues"):
        import_dond(tmp_path / "empty.txt")
    (tmp_path / "bin.txt").write_bytes(b"<input> \xff\xfe </input>")
    with pytest.raises(InputError, match=r"bin.txt:1: not UTF-8"):
        import_dond(tmp_path / "bin.txt")
    with pytest.raises(InputError, match="is a folder"):
        import_dond(tmp_path)


DOND_TOKENS = [
    "<input>",
    "</input>",
    "<dialogue>",
    "</dialogue>",
    "<output>",
    "</output>",
    "<partner_input>",
    "</partner_input>",
    "YOU:",
    "THEM:",
    "<eos>",
    "<selection>",
    "item0=1",
    "item1=0",
    "item2=2",
    "item3=1",
    "<disagree>",
    "<disconnect>",
    "0",
    "1",
    "2",
    "3",
    "10",
    "4",
    "99999999",
    "-1",
    "x",
    "\n",
    "\u202e",
    "٣",
]


@FUZZ
@given(
    st.lists(
        st.one_of(st.sampled_from(DOND_TOKENS), st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)),
        max_size=40,
    ),
    st.sampled_from(DOND_LINES[:4]),
)
def test_dond_fuzz_only_input_errors(tmp_path, tokens, good):
    p = tmp_path / "fuzz.txt"
    p.write_text(good + "\n" + " ".join(tokens), encoding="utf-8")
    try:
        import_dond(p)
    except InputError:
        pass
    s = import_dond(p, skip_bad=True)  # the good line always survives
    assert len(s.scenarios) >= 1


@FUZZ
@given(st.binary(max_size=300))
def test_dond_fuzz_bytes(tmp_path, raw):
    p = tmp_path / "fuzz.txt"
    p.write_bytes(raw)
    try:
        import_dond(p, skip_bad=True)
    except InputError:
        pass


# --- CaSiNo ------------------------------------------------------------------------------------


def casino_dialogue(did, prios1, prios2, logs, points=None):
    def info(prios, pts):
        d = {
            "value2issue": dict(zip(("High", "Medium", "Low"), prios)),
            "value2reason": {"High": "x", "Medium": "y", "Low": "z"},
        }
        if pts is not None:
            d["outcomes"] = {"points_scored": pts, "satisfaction": "Slightly satisfied"}
        return d

    pts = points or (None, None)
    return {
        "dialogue_id": did,
        "chat_logs": [{"text": t, "task_data": td, "id": who} for who, t, td in logs],
        "participant_info": {"mturk_agent_1": info(prios1, pts[0]), "mturk_agent_2": info(prios2, pts[1])},
        "annotations": [],
    }


def deal(you, they):
    keys = ("Food", "Water", "Firewood")
    return {
        "issue2youget": {k: str(v) for k, v in zip(keys, you)},
        "issue2theyget": {k: str(v) for k, v in zip(keys, they)},
    }


A1, A2 = "mturk_agent_1", "mturk_agent_2"
CASINO = [
    # agent 2 writes first (a = agent 2) and submits; agent 1 accepts.
    # agent 2: Food High 5, Firewood Medium 4, Water Low 3 -> gets food 1, water 1, firewood 3 = 5+3+12 = 20
    # agent 1: Water High 5, Food Medium 4, Firewood Low 3 -> gets food 2, water 2 = 8+10 = 18
    casino_dialogue(
        548,
        ("Water", "Food", "Firewood"),
        ("Food", "Firewood", "Water"),
        [
            (A2, "hi", {}),
            (A1, "hello", {}),
            (A2, "Submit-Deal", deal((2, 1, 3), (1, 2, 0))),
            (A1, "Reject-Deal", {"data": "reject_deal"}),
            (A2, "Submit-Deal", deal((1, 1, 3), (2, 2, 0))),
            (A1, "Accept-Deal", {"data": "accept_deal"}),
        ],
        points=(18, 20),
    ),
    # agent 1 first (a = agent 1); agent 2 submits (so issue2youget is b's share); agent 1 accepts.
    # agent 1: Firewood 5, Water 4, Food 3 -> gets firewood 3, water 1, food 1 = 15+4+3 = 22
    # agent 2: Firewood 5, Water 4, Food 3 -> gets water 2, food 2 = 8+6 = 14
    casino_dialogue(
        953,
        ("Firewood", "Water", "Food"),
        ("Firewood", "Water", "Food"),
        [
            (A1, "hello", {}),
            (A2, "Submit-Deal", deal((2, 2, 0), (1, 1, 3))),
            (A1, "Accept-Deal", {"data": "accept_deal"}),
        ],
        points=(22, 14),
    ),
    # a walk-away: both get 5 points
    casino_dialogue(
        7,
        ("Food", "Water", "Firewood"),
        ("Food", "Water", "Firewood"),
        [(A1, "Hi", {}), (A2, "No deal.", {}), (A2, "Walk-Away", {"data": "walk_away"})],
        points=(5, 5),
    ),
    # ends on a rejected deal: no agreement
    casino_dialogue(
        8,
        ("Food", "Water", "Firewood"),
        ("Water", "Food", "Firewood"),
        [(A2, "Submit-Deal", deal((3, 3, 3), (0, 0, 0))), (A1, "Reject-Deal", {"data": "reject_deal"})],
    ),
]


@pytest.fixture
def casino_file(tmp_path):
    p = tmp_path / "casino.json"
    p.write_text(json.dumps(CASINO), encoding="utf-8")
    return p


def test_casino_scenarios_reproduce_points(casino_file):
    s = import_casino(casino_file)
    assert [x.id for x in s.scenarios] == ["casino-548", "casino-953", "casino-7", "casino-8"]
    x = s.scenarios[0]
    assert list(x.scene.issues) == ["food", "water", "firewood"]
    assert x.scene.issues["food"] == ["0", "1", "2", "3"]
    assert "a = mturk_agent_2" in x.origin
    h = x.human
    assert h.agreement and h.ending == "agreement"
    assert h.outcome == {"food": "1", "water": "1", "firewood": "3"}
    # the dataset's points_scored, over 36
    assert h.points == {"a": 20.0, "b": 18.0}
    assert h.utilities == {"a": exact(20, 36), "b": exact(18, 36)}
    y = s.scenarios[1].human
    assert "a = mturk_agent_1" in s.scenarios[1].origin
    assert y.outcome == {"food": "1", "water": "1", "firewood": "3"}
    assert y.points == {"a": 22.0, "b": 14.0}
    assert y.utilities == {"a": exact(22, 36), "b": exact(14, 36)}
    for raw, sc in zip(CASINO[:2], s.scenarios[:2]):
        pts = {a: raw["participant_info"][a]["outcomes"]["points_scored"] for a in (A1, A2)}
        a_agent = sc.origin.split("a = ")[1].split(",")[0]
        b_agent = A1 if a_agent == A2 else A2
        assert sc.human.utilities == {"a": exact(pts[a_agent], 36), "b": exact(pts[b_agent], 36)}


def test_casino_walk_away_and_unfinished(casino_file):
    s = import_casino(casino_file)
    walk, unfinished = s.scenarios[2].human, s.scenarios[3].human
    assert (walk.agreement, walk.ending, walk.outcome) == (False, "walk_away", None)
    assert walk.points == {"a": 5.0, "b": 5.0}
    assert walk.utilities == {"a": exact(5, 36), "b": exact(5, 36)}
    assert s.scenarios[2].scene.parties[0].reservation == 5 / 36
    assert (unfinished.agreement, unfinished.ending) == (False, "unfinished")
    zero = import_casino(casino_file, walk_away_points=0)
    assert zero.scenarios[2].human.utilities == {"a": 0.0, "b": 0.0}
    assert "set on import" in zero.notes
    with pytest.raises(InputError, match="walk_away_points"):
        import_casino(casino_file, walk_away_points=99)


def test_casino_utilities_exact_for_every_priority_order():
    orders = list(itertools.permutations((5, 4, 3)))
    for pa in orders:
        for pb in orders:
            u = utilities_for(split_scene("t", "", [(i, 3) for i in ("food", "water", "firewood")], pa, pb))
            for ks in itertools.product(range(4), repeat=3):
                terms = dict(zip(("food", "water", "firewood"), map(str, ks)))
                assert u["a"](terms) == exact(sum(p * k for p, k in zip(pa, ks)), 36)
                assert u["b"](terms) == exact(sum(p * (3 - k) for p, k in zip(pb, ks)), 36)


def _broken(k, **change):
    rec = json.loads(json.dumps(CASINO[k]))
    for key, value in change.items():
        rec[key] = value
    return rec


@pytest.mark.parametrize(
    "record, message",
    [
        ("not a dialogue", "a dialogue is a JSON object"),
        (_broken(0, participant_info={"mturk_agent_1": {}}), "participant_info: needs exactly two agents"),
        (_broken(0, chat_logs=[{"text": "Accept-Deal", "task_data": {}, "id": A1}]), "Accept-Deal with no deal"),
        (
            _broken(
                0,
                chat_logs=[
                    {"text": "Submit-Deal", "task_data": deal((3, 3, 3), (1, 0, 0)), "id": A1},
                    {"text": "Accept-Deal", "task_data": {}, "id": A2},
                ],
            ),
            "do not add up to 3",
        ),
        (
            _broken(0, chat_logs=[{"text": "Submit-Deal", "task_data": deal((9, 0, 0), (0, 3, 3)), "id": A1}]),
            "issue2youget.Food: 9 is not a count",
        ),
        (_broken(0, chat_logs=[{"text": "hi", "id": "someone"}]), "is not one of the participants"),
        (_broken(0, chat_logs=[{"text": "hi", "id": [A1]}]), "is not one of the participants"),
        (_broken(0, dialogue_id=[1]), "dialogue_id"),
        (_broken(0, dialogue_id=953), "dialogue_id repeats record 2"),
    ],
)
def test_casino_malformed_record_names_file_and_record(tmp_path, record, message):
    records = [CASINO[0], CASINO[1], record]
    records[0] = _broken(0, dialogue_id=1)
    p = tmp_path / "c.json"
    p.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(InputError) as e:
        import_casino(p)
    assert "c.json: record 3" in e.value.message and message in e.value.message
    s = import_casino(p, skip_bad=True)
    assert len(s.scenarios) == 2 and len(s.skipped) == 1 and "record 3" in s.skipped[0]


def test_casino_bad_priorities_and_files(tmp_path):
    rec = _broken(0)
    rec["participant_info"][A1]["value2issue"] = {"High": "Food", "Medium": "Food", "Low": "Water"}
    p = tmp_path / "c.json"
    p.write_text(json.dumps([rec]), encoding="utf-8")
    with pytest.raises(
        InputError,
        match=r"record 1 \(dialogue_id 548\): participant_info.mturk_agent_1"
        r".value2issue: issue 'Food' has two priorities",
    ):
        import_casino(p)
    p.write_text('[{"dialogue_id": 1,\n "chat_logs": [}', encoding="utf-8")
    with pytest.raises(InputError, match=r"c.json:2:16: not JSON"):
        import_casino(p)
    p.write_text('{"dialogues": []}', encoding="utf-8")
    with pytest.raises(InputError, match="expected a JSON list"):
        import_casino(p)
    p.write_text("[]", encoding="utf-8")
    with pytest.raises(InputError, match="no dialogues"):
        import_casino(p)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
CASINO_KEYS = [
    "dialogue_id",
    "chat_logs",
    "participant_info",
    "text",
    "task_data",
    "id",
    "value2issue",
    "issue2youget",
    "issue2theyget",
    "Food",
    "High",
]


def _mutate(data, path, value):
    """``data`` with the node at ``path`` (list of choices) replaced by ``value``."""
    node = data
    for step in path[:-1]:
        if isinstance(node, list) and node:
            node = node[step % len(node)]
        elif isinstance(node, dict) and node:
            node = node[sorted(node)[step % len(node)]]
        else:
            break
    if isinstance(node, list) and node:
        node[path[-1] % len(node)] = value
    elif isinstance(node, dict) and node:
        node[sorted(node)[path[-1] % len(node)]] = value
    return data


@settings(FUZZ, max_examples=150)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=7), json_values | st.sampled_from(CASINO_KEYS))
def test_casino_fuzz_mutated_records(tmp_path, path, value):
    data = _mutate(json.loads(json.dumps(CASINO)), path, value)
    p = tmp_path / "fuzz.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    for skip in (False, True):
        try:
            import_casino(p, skip_bad=skip)
        except InputError:
            pass


@FUZZ
@given(st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_casino_fuzz_bytes(tmp_path, raw):
    p = tmp_path / "fuzz.json"
    p.write_bytes(raw)
    try:
        import_casino(p, skip_bad=True)
    except InputError:
        pass


# --- GENIUS ------------------------------------------------------------------------------------

DOMAIN = """<negotiation_template>
<utility_space number_of_issues="2">
<objective index="0" name="Party" type="objective" etype="objective">
<issue index="1" name="Food" vtype="discrete" type="discrete" etype="discrete">
<item index="1" value="Chips and Nuts"/>
<item index="2" value="Catering"/>
<item index="3" value="Finger-Food"/>
</issue>
<issue index="2" name="Music Style" vtype="discrete" type="discrete" etype="discrete">
<item index="1" value="DJ"/>
<item index="2" value="Band"/>
</issue>
</objective>
</utility_space>
</negotiation_template>
"""


def profile(food, music, weights, reservation=None, discount=None, issue_type="discrete"):
    items = lambda vals: "\n".join(
        f'<item index="{i}" value="{v}" evaluation="{e}"></item>'  # noqa: E731
        for i, (v, e) in enumerate(vals.items(), start=1)
    )
    extra = ""
    if discount is not None:
        extra += f'<discount_factor value="{discount}"></discount_factor>\n'
    if reservation is not None:
        extra += f'<reservation value="{reservation}"></reservation>\n'
    return f"""<utility_space type="UNCERTAIN">
<objective name="Party" index="0" etype="objective" type="objective">
<issue vtype="discrete" name="Food" index="1" etype="discrete" type="{issue_type}">
{items(food)}
</issue>
<issue vtype="discrete" name="Music Style" index="2" etype="discrete" type="discrete">
{items(music)}
</issue>
<weight index="1" value="{weights[0]}"></weight>
<weight index="2" value="{weights[1]}"></weight>
</objective>
{extra}</utility_space>
"""


PROF1 = profile(
    {"Chips and Nuts": 3.0, "Catering": 1.0, "Finger-Food": 2.0},
    {"DJ": 40, "Band": 10},
    (0.25, 0.75),
    reservation=0.5,
    discount=0.9,
)
PROF2 = profile({"Chips and Nuts": 0.0, "Catering": 8.0, "Finger-Food": 4.0}, {"DJ": 0, "Band": 0}, (0.6, 0.4))
PROF3 = profile({"Chips and Nuts": 1, "Catering": 1, "Finger-Food": 4}, {"DJ": 2, "Band": 1}, (1, 1), reservation=0.25)


@pytest.fixture
def genius_dir(tmp_path):
    d = tmp_path / "genius"
    (d / "partydomain").mkdir(parents=True)
    (d / "partydomain" / "party_domain.xml").write_text(DOMAIN, encoding="utf-8")
    (d / "partydomain" / "party1_utility.xml").write_text(PROF1, encoding="utf-8")
    (d / "partydomain" / "party2_utility.xml").write_text(PROF2, encoding="utf-8")
    (d / "partydomain" / "party3_utility.xml").write_text(PROF3, encoding="utf-8")
    (d / "partydomain" / "log.xml").write_text("<log><session/></log>", encoding="utf-8")
    # two domains in one folder, told apart by name prefix
    two = d / "two"
    two.mkdir()
    (two / "Small-A-domain.xml").write_text(DOMAIN, encoding="utf-8")
    (two / "Small-B-domain.xml").write_text(DOMAIN.replace('value="Band"', 'value="Orchestra"'), encoding="utf-8")
    (two / "Small-A-prof1.xml").write_text(PROF1, encoding="utf-8")
    (two / "Small-A-prof2.xml").write_text(PROF2, encoding="utf-8")
    (two / "Small-B-prof1.xml").write_text(PROF3.replace('value="Band"', 'value="Orchestra"'), encoding="utf-8")
    (two / "Small-B-prof2.xml").write_text(PROF1.replace('value="Band"', 'value="Orchestra"'), encoding="utf-8")
    return d


def test_genius_pairs_normalisation_and_grouping(genius_dir):
    s = import_genius(genius_dir)
    assert s.source == "genius" and s.skipped == []
    assert [x.id for x in s.scenarios] == [
        "genius-party-1-utility-2-utility",
        "genius-party-1-utility-3-utility",
        "genius-party-2-utility-3-utility",
        "genius-small-a-prof1-prof2",
        "genius-small-b-prof1-prof2",
    ]
    x = s.scenarios[0]
    assert x.human is None
    assert x.scene.issues == {"food": ["Chips and Nuts", "Catering", "Finger-Food"], "music_style": ["DJ", "Band"]}
    a, b = x.scene.parties
    assert a.values == {
        "food": {"Chips and Nuts": 1.0, "Catering": 1 / 3, "Finger-Food": 2 / 3},
        "music_style": {"DJ": 1.0, "Band": 0.25},
    }
    assert a.weights == {"food": 0.25, "music_style": 0.75} and a.reservation == 0.5
    assert b.values["food"] == {"Chips and Nuts": 0.0, "Catering": 1.0, "Finger-Food": 0.5}
    assert b.values["music_style"] == {"DJ": 0.0, "Band": 0.0}  # all-zero issue stays 0
    assert "Discount factors ignored" in x.scene.description
    u = utilities_for(x.scene)
    assert u["a"]({"food": "Finger-Food", "music_style": "Band"}) == quantise(0.25 * 2 / 3 + 0.75 * 0.25)
    assert s.scenarios[4].scene.issues["music_style"] == ["DJ", "Orchestra"]
    assert "Small-B-prof1.xml" in s.scenarios[4].origin


def test_genius_single_domain_takes_every_profile(tmp_path):
    (tmp_path / "WindFarm.xml").write_text(DOMAIN, encoding="utf-8")
    (tmp_path / "pie_A.xml").write_text(PROF1, encoding="utf-8")
    (tmp_path / "pie_B.xml").write_text(PROF2, encoding="utf-8")
    s = import_genius(tmp_path)
    assert [x.id for x in s.scenarios] == ["genius-windfarm-pie-a-pie-b"]


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("party1_utility.xml", PROF1.replace("</objective>", "<issue name="), "party1_utility.xml: line"),
        (
            "party1_utility.xml",
            PROF1.replace('evaluation="2.0"', 'evaluation="lots"'),
            "issue 'Food', value 'Finger-Food': evaluation: 'lots' is not a number",
        ),
        ("party1_utility.xml", PROF1.replace('evaluation="2.0"', 'evaluation="-2"'), "is negative"),
        (
            "party1_utility.xml",
            PROF1.replace('<item index="2" value="Catering" evaluation="1.0"></item>', ""),
            "no evaluation for value 'Catering'",
        ),
        (
            "party1_utility.xml",
            PROF1.replace('<weight index="2" value="0.75"></weight>', ""),
            "no <weight> for issue 'Music Style'",
        ),
        (
            "party1_utility.xml",
            PROF1.replace('<reservation value="0.5">', '<reservation value="1.5">'),
            "not in [0, 1]",
        ),
        (
            "party1_utility.xml",
            profile(
                {"Chips and Nuts": 1, "Catering": 1, "Finger-Food": 1},
                {"DJ": 1, "Band": 1},
                (1, 1),
                issue_type="integer",
            ),
            "only discrete issues are supported",
        ),
        ("party1_utility.xml", '<!DOCTYPE x [<!ENTITY a "aaaa">]><utility_space/>', "document type declaration"),
        ("party_domain.xml", DOMAIN.replace('value="DJ"', 'value="Band"'), "value 'Band' appears twice"),
        ("party_domain.xml", '<!DOCTYPE x [<!ENTITY a "aaaa">]><utility_space/>'.encode("utf-16"), "UTF-16"),
    ],
)
def test_genius_malformed_file_names_file(genius_dir, name, text, message):
    target = genius_dir / "partydomain" / name
    target.write_bytes(text) if isinstance(text, bytes) else target.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as e:
        import_genius(genius_dir)
    assert name in e.value.message and message in e.value.message
    s = import_genius(genius_dir, skip_bad=True)
    assert any(name in k for k in s.skipped)


def test_genius_reads_what_genius_tolerates(tmp_path):
    """A bare & in a value, a comment before the XML declaration, the objective's own weight and
    issues straight under <utility_space> (the oldest files)."""
    old_domain = (
        DOMAIN.replace('<objective index="0" name="Party" type="objective" etype="objective">', "")
        .replace("</objective>", "")
        .replace("Catering", "Drinks & Food")
    )
    (tmp_path / "old_domain.xml").write_text(old_domain, encoding="utf-8")
    p1 = PROF1.replace("Catering", "Drinks & Food").replace(
        "</objective>", '<weight index="0" value="1.0"></weight>\n</objective>'
    )
    (tmp_path / "old_1.xml").write_text(
        '<!-- profile 1 -->\n<?xml version="1.0" encoding="utf-8"?>\n' + p1, encoding="utf-8"
    )
    (tmp_path / "old_2.xml").write_text(PROF2.replace("Catering", "Drinks &amp; Food"), encoding="utf-8")
    s = import_genius(tmp_path)
    assert s.scenarios[0].scene.issues["food"] == ["Chips and Nuts", "Drinks & Food", "Finger-Food"]
    assert s.scenarios[0].scene.parties[0].weights == {"food": 0.25, "music_style": 0.75}


def test_genius_bad_folders(tmp_path):
    with pytest.raises(InputError, match="no such folder"):
        import_genius(tmp_path / "missing")
    (tmp_path / "f.xml").write_text(DOMAIN, encoding="utf-8")
    with pytest.raises(InputError, match="not a folder"):
        import_genius(tmp_path / "f.xml")
    with pytest.raises(InputError, match="no scenarios: found 1 domain and 0 matching profiles"):
        import_genius(tmp_path)


XML_TOKENS = [
    "<utility_space>",
    "</utility_space>",
    "<negotiation_template>",
    "</negotiation_template>",
    "<objective>",
    "</objective>",
    '<issue name="A" index="1">',
    '<issue name="B" type="real">',
    "</issue>",
    '<item value="x" evaluation="1"/>',
    '<item value="x"/>',
    '<item value="y" evaluation="nan"/>',
    '<weight index="1" value="0.5"/>',
    '<weight index="9" value="-1"/>',
    '<reservation value="2"/>',
    '<discount_factor value="x"/>',
    "<!DOCTYPE a>",
    "&amp;",
    "&bogus;",
    "<",
    ">",
    '"',
    "\x00",
    "é",
]


@FUZZ
@given(
    st.lists(st.sampled_from(XML_TOKENS), max_size=25),
    st.lists(st.sampled_from(XML_TOKENS), max_size=25),
    st.binary(max_size=60),
)
def test_genius_fuzz_only_input_errors(tmp_path, dom_tokens, prof_tokens, raw):
    d = tmp_path / "g"
    d.mkdir(exist_ok=True)
    (d / "x_domain.xml").write_text("".join(dom_tokens), encoding="utf-8")
    (d / "x_1.xml").write_text("".join(prof_tokens), encoding="utf-8")
    (d / "x_2.xml").write_bytes(raw)
    for skip in (False, True):
        try:
            import_genius(d, skip_bad=skip)
        except InputError:
            pass


ATTR_VALUES = [
    "",
    "x",
    "-1",
    "1e999",
    "nan",
    "0",
    "2",
    "Food",
    "Music Style",
    "Catering",
    "integer",
    "1.5",
    "&",
    "<",
    '"',
    "\u202e",
]


def _edit_lines(text, edits):
    lines = text.split("\n")
    for where, kind, value in edits:
        k = where % len(lines)
        if kind == "drop":
            del lines[k]
        elif kind == "dup":
            lines.insert(k, lines[k])
        else:  # replace the first attribute value on the line
            q = lines[k].find('"')
            r = lines[k].find('"', q + 1)
            if q >= 0 and r > q:
                lines[k] = lines[k][: q + 1] + value.replace('"', "&quot;").replace("<", "&lt;") + lines[k][r:]
        if not lines:
            lines = [""]
    return "\n".join(lines)


edits = st.lists(
    st.tuples(
        st.integers(0, 100),
        st.sampled_from(["drop", "dup", "attr"]),
        st.sampled_from(ATTR_VALUES) | st.text(max_size=5),
    ),
    max_size=4,
)


@FUZZ
@given(edits, edits, edits)
def test_genius_fuzz_edited_files(tmp_path, dom_edits, p1_edits, p2_edits):
    d = tmp_path / "g"
    d.mkdir(exist_ok=True)
    (d / "party_domain.xml").write_text(_edit_lines(DOMAIN, dom_edits), encoding="utf-8", errors="replace")
    (d / "party1.xml").write_text(_edit_lines(PROF1, p1_edits), encoding="utf-8", errors="replace")
    (d / "party2.xml").write_text(_edit_lines(PROF3, p2_edits), encoding="utf-8", errors="replace")
    for skip in (False, True):
        try:
            s = import_genius(d, skip_bad=skip)
        except InputError:
            continue
        for x in s.scenarios:
            utilities_for(x.scene)


# --- the set file ------------------------------------------------------------------------------


def test_round_trip_save_load(tmp_path, dond_file, casino_file, genius_dir):
    for s in (import_dond(dond_file), import_casino(casino_file), import_genius(genius_dir)):
        p = save_set(tmp_path / f"{s.source}.json", s)
        assert load_set(p) == s
        text = p.read_text(encoding="utf-8")
        assert text.count("\n") == len(s.scenarios) + 10  # one scenario per line
        assert json.loads(text)["format"] == "parley-scenario-set"


def test_load_set_errors_are_located(tmp_path, dond_file):
    s = import_dond(dond_file)
    p = tmp_path / "set.json"
    save_set(p, s)
    good = json.loads(p.read_text(encoding="utf-8"))

    def write(data):
        p.write_text(json.dumps(data), encoding="utf-8")

    bad = json.loads(json.dumps(good))
    bad["scenarios"][1]["scene"]["parties"][0]["values"]["book"]["1"] = 1.5
    write(bad)
    with pytest.raises(InputError, match=r"set.json: scenarios.1.scene.parties.0.values.book.1 \(scenario 'dond-3'\)"):
        load_set(p)
    bad = json.loads(json.dumps(good))
    bad["scenarios"][0]["human"]["utilities"]["a"] = 0.5
    write(bad)
    with pytest.raises(InputError, match=r"scenarios.0 \(scenario 'dond-1'\): human utility of 'a' is 0.5"):
        load_set(p)
    bad = json.loads(json.dumps(good))
    bad["scenarios"][0]["human"]["outcome"]["ball"] = "7"
    write(bad)
    with pytest.raises(InputError, match="'7' is not a value of issue 'ball'"):
        load_set(p)
    bad = json.loads(json.dumps(good))
    bad["scenarios"][0]["scene"]["parties"][1]["id"] = "c"
    write(bad)
    with pytest.raises(InputError, match="parties must be 'a' and 'b'"):
        load_set(p)
    bad = json.loads(json.dumps(good))
    bad["scenarios"][2]["id"] = "dond-1"
    write(bad)
    with pytest.raises(InputError, match="scenario id 'dond-1' appears twice"):
        load_set(p)
    bad = json.loads(json.dumps(good))
    bad["format"] = "world"
    write(bad)
    with pytest.raises(InputError, match="format: 'world' is not 'parley-scenario-set'"):
        load_set(p)
    p.write_text('{\n "source": "dond",\n "scenarios": [,]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"set.json:3:16: not JSON"):
        load_set(p)
    p.write_text("[" * 100000, encoding="utf-8")
    with pytest.raises(InputError, match="set.json"):
        load_set(p)
    with pytest.raises(InputError, match="missing"):
        load_set(tmp_path / "missing.json")


def test_models_check_human_outcomes():
    scene = split_scene("t", "", [("book", 1)], [1], [1])
    with pytest.raises(ValueError, match="an agreement needs its outcome"):
        HumanOutcome(agreement=True)
    with pytest.raises(ValueError, match="outcome must be null"):
        HumanOutcome(agreement=False, outcome={"book": "1"})
    ok = ImportedScenario(
        id="x-1", scene=scene, human=HumanOutcome(agreement=True, outcome={"book": "1"}, utilities={"a": 1.0, "b": 0.0})
    )
    assert ok.human.utilities == {"a": 1.0, "b": 0.0}
    with pytest.raises(ValueError, match="human outcome issues"):
        ImportedScenario(id="x-1", scene=scene, human=HumanOutcome(agreement=True, outcome={"hat": "1"}))
    with pytest.raises(ValueError, match="pattern"):
        ImportedScenario(id="Bad Id", scene=scene)


@FUZZ
@given(st.binary(max_size=400))
def test_load_set_fuzz_bytes(tmp_path, raw):
    p = tmp_path / "fuzz.json"
    p.write_bytes(raw)
    with pytest.raises(InputError):
        load_set(p)


@FUZZ
@given(st.lists(st.integers(0, 60), min_size=1, max_size=9), json_values)
def test_load_set_fuzz_mutated_json(tmp_path, path, value):
    base = json.loads(SET_TEXT)
    p = tmp_path / "fuzz.json"
    p.write_text(json.dumps(_mutate(base, path, value)), encoding="utf-8")
    try:
        load_set(p)
    except InputError:
        pass


SET_TEXT = ScenarioSet(
    source="dond",
    scenarios=[
        ImportedScenario(
            id="t-1",
            scene=split_scene("t", "", [("book", 2), ("hat", 1)], [1, 2], [3, 1]),
            human=HumanOutcome(agreement=True, outcome={"book": "1", "hat": "0"}, utilities={"a": 0.25, "b": 4 / 7}),
        )
    ],
).model_dump_json()


# --- summaries and the CLI body ----------------------------------------------------------------


def test_human_summary(dond_file, casino_file, genius_dir):
    h = human_summary(import_dond(dond_file))
    assert (h["scenarios"], h["with_human"], h["agreements"]) == (5, 5, 1)
    assert h["agreement_rate"] == 0.2
    assert h["mean_joint_utility"] == pytest.approx((0.7 + 1.0) / 5)
    assert h["pareto_optimal_share"] == 1.0  # (a: 0.7, b: 1.0) is undominated
    c = import_casino(casino_file)
    hc = human_summary(c)
    assert hc["agreement_rate"] == 0.5
    assert hc["mean_joint_utility"] == pytest.approx((38 / 36 + 36 / 36) / 4)
    assert hc["mean_joint_utility_with_reservations"] == pytest.approx((38 / 36 + 36 / 36 + 4 * 5 / 36) / 4)
    frontier = [analyse(x.scene).evaluate(x.human.outcome).pareto_optimal for x in c.scenarios if x.human.agreement]
    assert hc["pareto_optimal_share"] == sum(frontier) / 2
    g = human_summary(import_genius(genius_dir))
    assert g["with_human"] == 0 and g["agreement_rate"] is None and g["pareto_optimal_share"] is None


def test_run_import_writes_and_summarises(tmp_path, dond_file, casino_file, genius_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, text = run_import("dond", str(dond_file), None)
    assert path == Path("dond-train.json") == default_out("dond", dond_file)
    assert load_set(tmp_path / path).source == "dond"
    assert text.startswith(
        f"Imported 5 scenarios from {dond_file} (Deal or No Deal) into dond-train.json: "
        "3 issues each (book, hat, ball); 5 with a human outcome, of which the people "
        "agreed in 1 (20.0%)"
    )
    path, text = run_import("casino", str(casino_file), str(tmp_path / "out" / "c.json"))
    assert path == tmp_path / "out" / "c.json" and path.exists()
    assert "4 scenarios" in text and "agreed in 2 (50.0%)" in text
    path, text = run_import("genius", str(genius_dir), None)
    assert path == Path("genius-genius.json") and "0 with a human outcome" in text
    with pytest.raises(InputError) as e:
        run_import("casion", str(casino_file), None)
    assert "unknown dataset format 'casion'" in e.value.message and "casino" in (e.value.hint or "")
    with pytest.raises(InputError, match="is the file being imported"):
        run_import("dond", str(dond_file), str(dond_file))
    before = (tmp_path / "dond-train.json").read_text(encoding="utf-8")
    (tmp_path / "broken.txt").write_text("garbage\n", encoding="utf-8")
    with pytest.raises(InputError, match="broken.txt:1"):
        run_import("dond", "broken.txt", "dond-train.json")
    assert (tmp_path / "dond-train.json").read_text(encoding="utf-8") == before  # untouched on error


def test_as_id():
    assert as_id("Number of Wind Turbines") == "number_of_wind_turbines"
    assert as_id("0000-0400") == "i_0000_0400"
    assert as_id("Food", ["food"]) == "food_2"
    assert as_id("€€") == "issue"


# --- the CLI and a tournament on an imported set ------------------------------------------
def test_cli_import_then_tournament_against_the_humans(dond_file, tmp_path):
    from tests.conftest import parley

    out = tmp_path / "set.json"
    r = parley("import", "dond", str(dond_file), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "scenarios" in r.stdout and out.exists()
    n = len(load_set(out).scenarios)
    cfg = tmp_path / "t.toml"
    cfg.write_text(
        'name = "dond"\nkind = "negotiation"\nself_play = true\n'
        '[[competitors]]\nname = "boulware"\nagent = "boulware"\n'
        '[[scenarios]]\nimported = "set.json"\n',
        encoding="utf-8",
    )
    r = parley("tournament", str(cfg), "--out", str(tmp_path / "run"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert f"{n * 2} matches played" in r.stdout  # self-play, both openers
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "| humans |" in summary and "| boulware |" in summary
    r = parley("import", "dond", str(tmp_path / "missing.txt"))
    assert r.returncode == 2 and "missing" in r.stderr
    r = parley("import", "casino", str(dond_file))
    assert r.returncode == 2 and str(dond_file.name) in r.stderr
