"""report.html / summary.md from a tournament directory."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from game.core.errors import InputError
from game.tournament.report import write_report
from tests.conftest import ROOT
from tests.test_tournament_stats import adventure_rows, known_tournament, neg_row

EVIL = "<b>bold</b> & co"

MARKET = {
    "type": "negotiation",
    "title": "market",
    "issues": {"price": ["10", "20", "30"], "quality": ["low", "high"]},
    "parties": [
        {
            "id": "a",
            "weights": {"price": 0.7, "quality": 0.3},
            "values": {"price": {"10": 1.0, "20": 0.5, "30": 0.0}, "quality": {"low": 0.0, "high": 1.0}},
            "reservation": 0.2,
        },
        {
            "id": "b",
            "weights": {"price": 0.6, "quality": 0.4},
            "values": {"price": {"10": 0.0, "20": 0.5, "30": 1.0}, "quality": {"low": 1.0, "high": 0.0}},
            "reservation": 0.3,
        },
    ],
    "deadline": 6,
}
PARETO = {"price": "10", "quality": "high"}  # (1.0, 0.0): on the frontier
DOMINATED = {"price": "30", "quality": "high"}  # (0.3, 0.6): dominated by 20/low (0.35, 0.7)


def tournament_dir(tmp_path: Path, rows: list[dict], scenarios: dict | None = None, config: dict | None = None) -> Path:
    d = tmp_path / "t"
    d.mkdir(exist_ok=True)
    (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    if scenarios is not None:
        (d / "scenarios.json").write_text(json.dumps(scenarios))
    if config is not None:
        (d / "tournament.json").write_text(json.dumps(config))
    return d


def negotiation_fixture(tmp_path: Path) -> Path:
    rows = known_tournament(10)
    for i, r in enumerate(rows):  # rename one competitor to something HTML-hostile
        for s in r["seats"]:
            if s["competitor"] == "even2":
                s["competitor"] = EVIL
        r["scenario"] = f"gen0-s{i % 2}"
        r["outcome"] = PARETO if i % 3 else DOMINATED
    rows.append(neg_row("strong", EVIL, 0.0, 0.0, scenario="gen0-s0", agreement=False, key="nodeal"))
    scenarios = {
        "gen0-s0": {"scene": MARKET, "human": {"agreement": True, "outcome": PARETO, "utilities": None}},
        "gen0-s1": {"scene": MARKET, "human": None},
    }
    config = {
        "name": "smoke <cup>",
        "kind": "negotiation",
        "competitors": [{"name": "strong"}, {"name": "even1"}, {"name": EVIL}],
    }
    return tournament_dir(tmp_path, rows, scenarios, config)


def md_tables(text: str) -> list[list[list[str]]]:
    """Every markdown table as rows of cells (split on unescaped pipes)."""
    tables, cur = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            cur.append(cells)
        elif cur:
            tables.append(cur)
            cur = []
    return tables


@pytest.fixture(scope="module")
def neg_report(tmp_path_factory):
    d = negotiation_fixture(tmp_path_factory.mktemp("neg"))
    html_path, md_path = write_report(d, seed=1)
    return d, html_path.read_text(), md_path.read_text()


def test_writes_both_files(neg_report):
    d, page, _ = neg_report
    assert (d / "report.html").is_file() and (d / "summary.md").is_file()
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "smoke &lt;cup&gt;" in page and "negotiation" in page
    for title in (
        "Ranking plot",
        "Pairwise heatmap",
        "Agreement rate vs rounds",
        "Outcomes in gen0-s0",
        "Compared with humans",
    ):
        assert title in page, title
    assert "matplotlib is not installed" not in page


def test_html_is_self_contained(neg_report):
    page = neg_report[1]
    refs = re.findall(r"""(?:src|href)\s*=\s*["']?([^"'\s>]+)""", page, flags=re.IGNORECASE)
    assert refs and all(r.startswith("data:") for r in refs), refs
    assert "<link" not in page and "<script" not in page and "url(" not in page
    pngs = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert len(pngs) >= 5
    for b in pngs:
        assert base64.b64decode(b).startswith(b"\x89PNG")


def test_names_are_escaped(neg_report):
    _, page, md = neg_report
    assert "<b>bold</b>" not in page
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in page
    assert "<b>" not in md and r"\<b\>bold\</b\>" in md


def test_summary_tables_parse(neg_report):
    md = neg_report[2]
    tables = md_tables(md)
    assert len(tables) >= 5
    for t in tables:
        width = len(t[0])
        assert all(len(row) == width for row in t), t
        assert all(set(c) <= set("-") for c in t[1])
    ranking = tables[0]
    assert ranking[0][:2] == ["rank", "competitor"]
    assert ranking[2][1] == "strong" and ranking[2][-1].startswith("yes")
    human = next(t for t in tables if t[0][0] == "who")
    assert human[2][0] == "humans"
    assert human[2][2:] == ["1.000", "1.000", "1.000"]  # agreed, u = 1.0 + 0.0, Pareto-optimal
    assert {row[0] for row in human[3:]} == {"strong", "even1", r"\<b\>bold\</b\> & co"}
    even1 = next(row for row in human if row[0] == "even1")
    # some of even1's matches in gen0-s0 end on the dominated outcome (joint utility 0.9)
    assert 0 < float(even1[4]) < 1 and float(even1[3]) < 1.0


def test_report_deterministic(tmp_path):
    d = negotiation_fixture(tmp_path)
    write_report(d, seed=5, plots=False)
    first = (d / "summary.md").read_text(), (d / "report.html").read_text()
    write_report(d, seed=5, plots=False)
    assert ((d / "summary.md").read_text(), (d / "report.html").read_text()) == first
    assert "plots were turned off" in first[1] and "data:image" not in first[1]


def test_adventure_report_without_extras(tmp_path):
    d = tournament_dir(tmp_path, adventure_rows(6))
    md = write_report(d, plots=False)[1].read_text()
    assert "win rate" in md and "Negotiation" not in md
    assert [row[1] for row in md_tables(md)[0][2:]] == ["alpha", "beta", "gamma"]


def test_report_without_matplotlib(tmp_path):
    d = tournament_dir(tmp_path, adventure_rows(4))
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from pathlib import Path\nfrom game.tournament.report import write_report\n"
        f"h, m = write_report(Path({str(d)!r}))\n"
        "t = h.read_text(); assert 'matplotlib is not installed' in t and 'data:image' not in t\n"
        "print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_errors_have_hints(tmp_path):
    with pytest.raises(InputError, match="no such tournament directory") as e:
        write_report(tmp_path / "nope")
    assert e.value.hint
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no results yet") as e:
        write_report(tmp_path / "empty")
    assert "tournament" in e.value.hint
    (tmp_path / "empty" / "results.jsonl").write_text("\n")
    with pytest.raises(InputError, match="no finished matches") as e:
        write_report(tmp_path / "empty")
    assert e.value.hint
    d = tournament_dir(tmp_path, adventure_rows(2))
    (d / "scenarios.json").write_text("{oops")
    with pytest.raises(InputError, match=r"scenarios\.json:1:2"):
        write_report(d, plots=False)


def test_torn_line_noted_and_bad_scene_tolerated(tmp_path):
    rows = known_tournament(2)
    d = tournament_dir(
        tmp_path,
        rows,
        scenarios={"gen0-s0": {"scene": {"type": "negotiation"}, "human": {"agreement": False, "outcome": None}}},
    )
    with open(d / "results.jsonl", "a") as f:
        f.write('{"id": "zz", "kind": "nego')
    _, md_path = write_report(d, plots=False)
    md = md_path.read_text()
    assert "torn last line" in md and "scene not usable" in md
    human = next(t for t in md_tables(md) if t[0][0] == "who")
    assert human[2][:3] == ["humans", "1", "0.000"] and human[2][3] == "—"
