"""Tournament statistics: ratings, bootstrap CIs, paired tests with Holm, reading results.jsonl."""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import InputError
from game.tournament.stats import (
    LiveRatings,
    bootstrap_mean,
    holm,
    paired_p_value,
    rate,
    read_results,
    summarise,
    validate_row,
)
from tests.conftest import ROOT

# --- synthetic rows in the exact results.jsonl schema ------------------------------


def match_id(*parts) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def neg_seat(role: str, competitor: str, points: float, reservation: float = 0.3, agreement: bool = True) -> dict:
    utility = reservation + points * (1 - reservation) if agreement else reservation
    return {
        "role": role,
        "competitor": competitor,
        "points": points,
        "utility": utility,
        "reservation": reservation,
        "advantage": points,
        "won": None,
        "score": None,
        "invalid": None,
        "false_leads": None,
    }


def neg_row(
    a: str,
    b: str,
    pa: float,
    pb: float,
    *,
    scenario: str = "gen0-s0",
    rep: int = 0,
    seed: int = 0,
    agreement: bool = True,
    rounds: int = 5,
    outcome: dict | None = None,
    key=(),
) -> dict:
    mid = match_id("neg", a, b, scenario, rep, seed, key)
    if not agreement:
        pa = pb = 0.0
    seats = [neg_seat("a", a, pa, agreement=agreement), neg_seat("b", b, pb, agreement=agreement)]
    return {
        "id": mid,
        "kind": "negotiation",
        "scenario": scenario,
        "rep": rep,
        "seed": seed,
        "group": mid,
        "status": "agreement" if agreement else "no_agreement",
        "agreement": agreement,
        "outcome": (outcome or {"i0": "v1"}) if agreement else None,
        "rounds": rounds,
        "seats": seats,
        "welfare": seats[0]["utility"] + seats[1]["utility"],
        "pareto_distance": 0.05,
        "nash_distance": 0.1,
        "ks_distance": 0.12,
        "llm_calls": 0,
        "llm_tokens": 0,
        "cost": 0.0,
        "wall_time": 0.01,
    }


def adv_row(
    competitor: str, scenario: str, seed: int, rep: int, points: float, won: bool, kind: str = "adventure"
) -> dict:
    return {
        "id": match_id(kind, competitor, scenario, seed, rep),
        "kind": kind,
        "scenario": scenario,
        "rep": rep,
        "seed": seed,
        "group": f"{scenario}|{seed}|{rep}",
        "status": "won" if won else "lost",
        "agreement": None,
        "outcome": None,
        "rounds": 12,
        "seats": [
            {
                "role": "player",
                "competitor": competitor,
                "points": points,
                "utility": None,
                "reservation": None,
                "advantage": None,
                "won": won,
                "score": int(points * 10),
                "invalid": 1,
                "false_leads": 0,
            }
        ],
        "welfare": None,
        "pareto_distance": None,
        "nash_distance": None,
        "ks_distance": None,
        "llm_calls": 3,
        "llm_tokens": 100,
        "cost": 0.01,
        "wall_time": 0.5,
    }


STRONG, EVEN1, EVEN2 = "strong", "even1", "even2"
TRUE_MEAN = {STRONG: 0.6, EVEN1: 0.35, EVEN2: 0.35}


def known_tournament(n_each: int = 20, seed: int = 7) -> list[dict]:
    """60 negotiation groups: strong (~0.6) beats both evens (~0.3); the evens tie on average
    (their matches come in mirrored pairs, so the differences cancel exactly)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_each):
        for e in (EVEN1, EVEN2):
            ps = float(np.clip(0.6 + rng.normal(0, 0.08), 0, 1))
            pe = float(np.clip(0.3 + rng.normal(0, 0.08), 0, 1))
            a, b, pa, pb = (STRONG, e, ps, pe) if k % 2 == 0 else (e, STRONG, pe, ps)
            rows.append(neg_row(a, b, pa, pb, scenario=f"gen0-s{k % 3}", rep=k, key=e))
        x, y = (0.4 + 0.1 * ((k // 2) % 3 - 1), 0.4 - 0.1 * ((k // 2) % 3 - 1))
        pa, pb = (x, y) if k % 2 == 0 else (y, x)
        rows.append(neg_row(EVEN1, EVEN2, pa, pb, scenario=f"gen0-s{k % 3}", rep=k, key="ee"))
    return rows


@pytest.fixture(scope="module")
def known():
    rows = known_tournament()
    return rows, summarise(rows, seed=3, n_boot=500)


# --- ranking, significance, CIs ------------------------------------------------------


def test_known_tournament_ranking_and_significance(known):
    rows, s = known
    assert len(rows) == 60 and s.matches == 60 and s.rated_games == 60
    assert s.competitors[0] == STRONG
    assert set(s.competitors[1:]) == {EVEN1, EVEN2}
    assert [r.rank for r in s.ranking] == [1, 2, 3]
    for e in (EVEN1, EVEN2):
        diff, p = s.pair(STRONG, e)
        assert diff > 0.2 and p.significant and p.p_holm < 0.001 and p.n == 20
        assert s.pair(e, STRONG)[0] == -diff
    diff, p = s.pair(EVEN1, EVEN2)
    assert abs(diff) < 1e-9 and not p.significant and p.p_holm > 0.5
    assert s.ranking[0].differs_from_next is True
    assert s.ranking[1].differs_from_next is False
    assert s.ranking[2].differs_from_next is None  # last
    # Holm: the adjusted p is at least the raw one, and the set is monotone in raw order
    for p in s.pairwise:
        assert p.p_holm >= p.p_value
    assert s.ranking[0].ordinal > s.ranking[1].ordinal + 3


def test_cis_contain_true_means(known):
    _, s = known
    for comp, true in TRUE_MEAN.items():
        est = s.metrics[comp]["points"]
        assert est.lo <= true <= est.hi, (comp, est)
        assert est.lo < est.mean < est.hi and est.hi - est.lo < 0.15
        assert est.n == 40
        agr = s.metrics[comp]["agreement"]
        assert (agr.mean, agr.lo, agr.hi) == (1.0, 1.0, 1.0)
    assert "win_rate" not in s.metrics[STRONG]  # negotiation rows carry no adventure fields


def test_summary_deterministic_and_json(known):
    rows, s = known
    again = summarise(list(reversed(rows)), seed=3, n_boot=500)
    assert again.to_dict() == s.to_dict()
    other = summarise(rows, seed=4, n_boot=500)
    assert other.metrics[STRONG]["points"].lo != s.metrics[STRONG]["points"].lo
    assert other.competitors == s.competitors
    text = s.to_json()
    back = json.loads(text)
    assert back["ranking"][0]["competitor"] == STRONG
    assert back["metrics"][STRONG]["points"]["n"] == 40


def test_bootstrap_and_holm_units():
    assert bootstrap_mean([]) is None
    e = bootstrap_mean([2.0])
    assert (e.mean, e.lo, e.hi, e.n) == (2.0, 2.0, 2.0, 1)
    e = bootstrap_mean([1.0] * 5)
    assert e.lo == e.hi == 1.0
    xs = np.random.default_rng(1).normal(5, 1, 200)
    a, b = bootstrap_mean(xs, seed=9), bootstrap_mean(xs, seed=9)
    assert a == b and a.lo < 5 < a.hi
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([]) == []
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert paired_p_value([0.0, 0.0, 0.0]) == 1.0
    assert paired_p_value([]) == 1.0
    assert paired_p_value([0.1] * 30) < 1e-5
    assert 0 <= paired_p_value([0.1]) <= 1


# --- self-play, multiplayer groups, live ratings ---------------------------------------


def test_self_play_counts_for_means_not_ratings(known):
    rows, s = known
    extra = [neg_row(STRONG, STRONG, 0.1, 0.1, rep=i, key="self") for i in range(5)]
    s2 = summarise(rows + extra, seed=3, n_boot=200)
    r1, r2 = rate(rows), rate(rows + extra)
    assert r1 == r2
    assert s2.self_play == 5 and s2.rated_games == 60 and s2.matches == 65
    top = s2.ranking[0]
    assert top.competitor == STRONG and top.matches == 45 and top.games == 40
    assert s2.metrics[STRONG]["points"].mean < s.metrics[STRONG]["points"].mean
    assert s2.metrics[STRONG]["points"].n == 45
    assert [(p.a, p.b, p.n) for p in s2.pairwise] == [(p.a, p.b, p.n) for p in s.pairwise]
    assert any("self-play" in n for n in s2.notes)


def adventure_rows(n_groups: int = 12) -> list[dict]:
    rows = []
    for g in range(n_groups):
        for comp, pts in (("alpha", 0.9), ("beta", 0.5), ("gamma", 0.1)):
            rows.append(adv_row(comp, f"adv-s{g % 4}", seed=g, rep=0, points=pts, won=pts > 0.7))
    return rows


def test_adventure_multiplayer_groups():
    rows = adventure_rows()
    s = summarise(rows, seed=0, n_boot=200)
    assert s.groups == 12 and s.rated_games == 12 and s.matches == 36
    assert s.competitors == ["alpha", "beta", "gamma"]
    assert [r.games for r in s.ranking] == [12, 12, 12]
    assert s.metrics["alpha"]["win_rate"].mean == 1.0 and s.metrics["gamma"]["win_rate"].mean == 0.0
    assert s.metrics["alpha"]["score"].mean == 9.0
    assert "agreement" not in s.metrics["alpha"]
    assert {(p.a, p.b) for p in s.pairwise} == {("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")}
    assert all(p.n == 12 and p.significant for p in s.pairwise)
    assert s.ranking[0].differs_from_next and s.ranking[1].differs_from_next


def test_multiplayer_ties_share_rank():
    rows = []
    for g in range(6):
        for comp in ("x", "y"):
            rows.append(adv_row(comp, "adv-t", seed=g, rep=0, points=0.5, won=False, kind="council"))
    r = rate(rows)
    assert r["x"].mu == pytest.approx(r["y"].mu) and r["x"].games == 6
    s = summarise(rows, n_boot=100)
    assert s.pairwise[0].ties == 6 and s.pairwise[0].p_value == 1.0 and not s.pairwise[0].significant


def _as_tuples(ratings):
    return {c: (r.mu, r.sigma, r.games) for c, r in ratings.items()}


def test_live_ratings_agree_with_batch(known):
    rows, _ = known
    rows = rows + adventure_rows(6)
    batch = rate(rows)
    live = LiveRatings(group_size=3)
    for row in sorted(rows, key=lambda r: r["id"]):
        live.update(row)
    assert _as_tuples(live.ratings()) == _as_tuples(batch)
    top = live.top(2)
    assert len(top) == 2 and top[0][0] in (STRONG, "alpha")
    assert all(isinstance(t[1], float) and isinstance(t[2], int) for t in top)
    assert [t[0] for t in live.top()] == sorted(batch, key=lambda c: (-batch[c].ordinal, c))
    # without a group size, multiplayer groups wait for flush(); same result for one kind
    adv = adventure_rows(6)
    lazy = LiveRatings()
    for row in sorted(adv, key=lambda r: r["id"]):
        assert lazy.update(row) is False
    assert lazy.top(1)[0][2] == 0
    assert lazy.flush() == 6
    assert _as_tuples(lazy.ratings()) == _as_tuples(rate(adv))


def test_live_ratings_validate_rows():
    with pytest.raises(InputError, match="points"):
        LiveRatings().update({**neg_row("a", "b", 0.1, 0.2), "seats": [{"role": "a", "competitor": "a"}]})


# --- validation and reading --------------------------------------------------------


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda r: r.pop("group"), "group"),
        (lambda r: r.__setitem__("rep", "0"), "rep"),
        (lambda r: r.__setitem__("kind", "negotiaton"), "kind"),
        (lambda r: r.__setitem__("seats", []), "seats"),
        (lambda r: r["seats"][1].__setitem__("points", True), "seats[1].points"),
        (lambda r: r["seats"][0].__setitem__("points", float("nan")), "seats[0].points"),
        (lambda r: r["seats"][0].pop("competitor"), "seats[0].competitor"),
        (lambda r: r.__setitem__("welfare", "high"), "welfare"),
    ],
)
def test_bad_rows_name_row_and_field(mutate, field):
    rows = known_tournament(2)
    mutate(rows[1])
    with pytest.raises(InputError) as e:
        summarise(rows)
    msg = str(e.value)
    assert "row 2" in msg and rows[1]["id"] in msg
    assert field in msg


def test_duplicate_ids_and_non_objects():
    rows = known_tournament(2)
    with pytest.raises(InputError, match="duplicate"):
        summarise(rows + [rows[0]])
    with pytest.raises(InputError, match="JSON object"):
        validate_row([1, 2])
    with pytest.raises(InputError, match="no finished matches"):
        summarise([])


def write_lines(path, rows, tail: bytes = b""):
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in rows) + tail)
    return path


def test_read_results_torn_last_line(tmp_path):
    rows = known_tournament(2)
    full = json.dumps(rows[0]).encode()
    p = write_lines(tmp_path / "results.jsonl", rows, tail=full[: len(full) // 2])
    got = read_results(p)
    assert got == rows and len(got.notes) == 1 and "torn" in got.notes[0] and ":7" in got.notes[0]
    # a torn multibyte character is torn too; trailing blank lines are fine
    p.write_bytes(p.read_bytes().rsplit(b"\n", 1)[0] + b'\n{"id": "\xc3')
    assert read_results(p).notes
    write_lines(p, rows, tail=b"\n\n")
    assert read_results(p).notes == [] and read_results(p) == rows
    # a whole last row without its newline is kept
    p.write_bytes(p.read_bytes().rstrip(b"\n"))
    assert read_results(p) == rows and read_results(p).notes == []
    # a bad last line followed by a newline (an editor adds one on save) is still the torn last line
    write_lines(p, rows, tail=full[:20] + b"\n\n")
    assert read_results(p) == rows and read_results(p).notes


def test_read_results_corrupt_middle_line(tmp_path):
    rows = known_tournament(2)
    lines = [json.dumps(r) for r in rows]
    lines[2] = lines[2][:30]
    p = tmp_path / "results.jsonl"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"results\.jsonl:3: corrupt line") as e:
        read_results(p)
    assert e.value.hint
    # valid JSON but a bad row at the end is not "torn": located error
    bad = dict(rows[0], id="ffff000011112222", rounds=-1)
    write_lines(p, rows + [bad])
    with pytest.raises(InputError, match=r"results\.jsonl:7: field 'rounds'"):
        read_results(p)
    with pytest.raises(InputError, match="no such results file"):
        read_results(tmp_path / "missing.jsonl")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=40),
            st.sampled_from(
                [b"{}", b"[]", b"null", b"1e999", b"[" * 3000, b'"x"', json.dumps(neg_row("p", "q", 0.2, 0.3)).encode()]
            ),
        ),
        max_size=6,
    )
)
def test_read_results_fuzz(tmp_path, lines):
    p = tmp_path / "fuzz.jsonl"
    p.write_bytes(b"\n".join(lines))
    try:
        got = read_results(p)
    except InputError as e:
        assert str(e)
    else:
        assert isinstance(got, list) and all(isinstance(r, dict) for r in got)


def test_import_is_light():
    code = (
        "import sys, game.tournament.stats, game.tournament.report; "
        "print(','.join(m for m in ('numpy', 'scipy', 'openskill', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_metric_values_are_finite(known):
    _, s = known
    for ms in s.metrics.values():
        for est in ms.values():
            assert all(math.isfinite(v) for v in (est.mean, est.lo, est.hi))
