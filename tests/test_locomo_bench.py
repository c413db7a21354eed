"""The LoCoMo benchmark on a tiny invented sample in LoCoMo's formats (tests/data/locomo_sample.json):
the reader (zip, directory, locomo10.json list), its errors, the greedy fill, MEMO's arm and the
whole run with the real MiniLM embedder."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from benchmarks.locomo.data import CATEGORIES, LocomoDataError, load, parse_evidence
from benchmarks.locomo.methods import fill, memo_config, parse_overrides

SAMPLE = Path(__file__).parent / "data" / "locomo_sample.json"


def _per_conversation_files(folder: Path) -> list[Path]:
    """The sample as the zip lays it out: one file per conversation, the conversation's keys at the top."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for n, item in enumerate(json.loads(SAMPLE.read_text()), start=1):
        path = folder / f"{n * 10}.json"
        path.write_text(json.dumps({**item["conversation"], "qa": item["qa"]}))
        out.append(path)
    return out


def _key(convs):
    return [([t.line for t in c.turns], [(q.question, q.category, q.evidence) for q in c.questions]) for c in convs]


def test_the_three_layouts_read_the_same(tmp_path):
    listed = load(SAMPLE)
    files = _per_conversation_files(tmp_path / "data" / "multimodal_dialog" / "locomo10_v2")
    folder = load(tmp_path / "data")
    archive = tmp_path / "locomo10.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in files:
            zf.write(f, f.relative_to(tmp_path).as_posix())
        zf.writestr("__MACOSX/data/._10.json", "not json")  # skipped
    zipped = load(archive)
    assert [c.id for c in listed] == ["conv-a", "conv-b"]
    assert [c.id for c in folder] == [c.id for c in zipped] == ["10", "20"]
    assert _key(listed) == _key(folder) == _key(zipped)


def test_lines_questions_and_evidence():
    a, b = load(SAMPLE)
    assert a.speakers == ("Rosa", "Tomas") and len(a.turns) == 10 and len(b.turns) == 8
    assert a.turns[0].line.startswith("[3 March 2023] Rosa: Hi Tomas!")
    assert a.turns[2].line.endswith("[photo: a photo of a grey cat on a windowsill]")  # the caption, not the query
    assert "grey cat window" not in a.turns[2].line
    assert a.turns[5].line.startswith("[20 April 2023] Tomas:") and a.turns[5].dia_id == "D2:1"
    multi = a.questions[2]
    assert multi.category_name == "multi-hop" and multi.evidence == (6, 8)  # "D2:2; D2:4" split
    assert a.questions[4].category_name == "adversarial" and a.questions[4].answer == "Pepper"
    assert a.questions[5].evidence == ()  # every id bad: kept, left out of recall
    assert len(a.scored()) == 5 and len(b.scored()) == 4
    assert a.dropped.malformed == ["D:1:1"] and a.dropped.unknown == ["D9:9"] and a.dropped.split == 1
    assert b.questions[1].evidence == (3,)  # "(D1:4)"
    assert b.questions[3].evidence == (3,) and b.dropped.unknown == ["D2:6"]  # one good id of two
    assert set(CATEGORIES) == {1, 2, 3, 4, 5}


def test_evidence_parsing_is_lenient_but_counts_what_it_drops():
    ids = {(1, 3): 0, (10, 5): 1, (2, 1): 2}
    got, dropped = parse_evidence(["D1:03", "D10:5 D2:1", "D", "D7:7", 12], ids)
    assert got == (0, 1, 2)
    assert dropped.split == 1 and dropped.malformed == ["D", "12"] and dropped.unknown == ["D7:7"]


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ('"text"', "expected a JSON object or list"),
        ('[{"sample_id": "x"}]', "expected an object with a 'conversation' object"),
        ('{"speaker_a": "A", "speaker_b": "B", "qa": []}', "no 'session_N' turn list"),
        (
            '{"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "dia_id": "D1:1"}], "qa": []}',
            "session_1 turn 0: missing or non-text 'text'",
        ),
        (
            '{"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}], '
            '"qa": [{"question": "q?", "category": 9, "evidence": []}]}',
            "qa 0: category 9 is not one of",
        ),
        (
            '{"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}',
            "missing 'qa' list",
        ),
    ],
)
def test_malformed_files_name_the_file_and_the_fault(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(LocomoDataError) as err:
        load(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_bad_paths(tmp_path):
    with pytest.raises(LocomoDataError, match="no such file or directory"):
        load(tmp_path / "missing.zip")
    (tmp_path / "empty").mkdir()
    with pytest.raises(LocomoDataError, match="holds no .json file"):
        load(tmp_path / "empty")
    fake = tmp_path / "locomo10.zip"
    fake.write_text("not a zip")
    with pytest.raises(LocomoDataError, match="not a valid zip file"):
        load(fake)


def test_fill_skips_what_does_not_fit_and_goes_on():
    costs = [5, 50, 20, 10, 3]
    assert fill([1, 2, 0, 3, 4], costs, 40) == [2, 0, 3, 4]  # 50 skipped, then 20+5+10+3 = 38
    assert fill([1, 0], costs, 4) == []
    assert fill([3, 2, 1], costs, 100) == [3, 2, 1]


def test_memo_settings_from_the_command_line():
    over = parse_overrides(["w_recency=0.1", "mask.redundancy_drop=0.9", "kinds=null"])
    assert over == {"w_recency": 0.1, "mask.redundancy_drop": 0.9, "kinds": None}
    cfg = memo_config(over)
    assert cfg.w_recency == 0.1 and cfg.mask.redundancy_drop == 0.9
    with pytest.raises(KeyError, match="no MEMO setting 'mask.nope'"):
        memo_config({"mask.nope": 1})
    with pytest.raises(ValueError):
        memo_config({"budget": 3})  # below MemoConfig's minimum
    with pytest.raises(ValueError, match="expected key=value"):
        parse_overrides(["w_recency"])


def test_cli_exits_2_on_bad_data_or_arguments(tmp_path, capsys):
    from benchmarks.locomo_bench import main

    out = tmp_path / "page.md"
    assert main(["--locomo", str(tmp_path / "nope.json"), "--out", str(out)]) == 2
    assert "nope.json: no such file or directory" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    assert main(["--locomo", str(bad), "--out", str(out)]) == 2
    assert f"{bad} item 0" in capsys.readouterr().err
    assert main(["--locomo", str(SAMPLE), "--memo-set", "w_nothing=1", "--out", str(out)]) == 2
    assert "no MEMO setting 'w_nothing'" in capsys.readouterr().err
    assert main(["--locomo", str(SAMPLE), "--tune-conversations", "0-1", "--out", str(out)]) == 2
    assert "nothing is held out" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.embeddings
def test_memo_arm_and_the_whole_run(tmp_path):
    """The real MiniLM embedder (cached on disk), MEMO through memory.memo.Memo, tables written."""
    from benchmarks.locomo.methods import CachedEmbedder, memo_arm
    from benchmarks.locomo_bench import main

    conv = load(SAMPLE)[0]
    emb = CachedEmbedder(tmp_path / "cache")
    run = memo_arm(
        [(t.line, t.speaker) for t in conv.turns], [q.question for q in conv.scored()], [64, 400], embedder=emb
    )
    assert set(run.shown) == {(q, b) for q in range(5) for b in (64, 400)}
    for (_, budget), shown in run.shown.items():
        assert shown.tokens <= budget and set(shown.turns) <= set(range(len(conv.turns)))
    assert len(run.shown[(0, 400)].turns) == len(conv.turns)  # the whole conversation fits in 400 tokens
    assert run.shown[(0, 400)].verbatim == len(conv.turns)  # each line word for word
    assert run.superseded == []

    assert emb.save() > 0
    again = CachedEmbedder(tmp_path / "cache")
    vecs = again([conv.turns[0].line])
    assert again._new == 0 and vecs.shape == (1, 384)

    out = tmp_path / "locomo.md"
    args = ["--locomo", str(SAMPLE), "--budgets", "32", "64", "--tune-conversations", "0", "--boot", "50"]
    args += ["--out", str(out), "--cache-dir", str(tmp_path / "cache"), "--memo-set", "recent_turns=1"]
    assert main(args) == 0
    page = out.read_text()
    assert "## Held-out conversations (conv-b): the headline" in page
    assert "| **MEMO** |" in page and "MMR lambda = " in page and "MEMO − best baseline" in page
    assert "dropped as naming no turn: D9:9, D2:6" in page
    assert "{'recent_turns': 1}" in page
    assert "rendered tokens within the budget in 18 of 18" in page
    # a subset of the methods, every conversation held out (no tuning)
    args = ["--locomo", str(SAMPLE), "--budgets", "48", "--tune-conversations", "none", "--boot", "50"]
    args += ["--out", str(out), "--cache-dir", str(tmp_path / "cache"), "--methods", "dense", "MEMO"]
    assert main(args) == 0
    page = out.read_text()
    assert "| dense |" in page and "| BM25 |" not in page and " vs dense" in page and "Not tuned" in page


def test_a_rewrite_keeps_the_hand_written_notes(tmp_path):
    from benchmarks.locomo_bench import NOTES, _write

    out = tmp_path / "page.md"
    _write(out, f"old tables\n{NOTES[0]}\nKEEP ME\n{NOTES[1]}\n")
    _write(out, f"new tables\n{NOTES[0]}\n(placeholder)\n{NOTES[1]}\n")
    assert out.read_text() == f"new tables\n{NOTES[0]}\nKEEP ME\n{NOTES[1]}\n"
