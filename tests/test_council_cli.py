"""``parley debate``: a council debate from the command line, from a generated hidden-profile task
or a world's council scene, with clear errors (exit 2) for what cannot be debated."""

from __future__ import annotations

import json

import pytest

from game.council.from_world import task_from_scene
from game.errors import InputError
from game.world.loader import load_world
from tests.conftest import ROOT, parley

COUNCIL = ROOT / "worlds" / "council"


def test_a_generated_task_debates_to_a_vote_with_metrics():
    r = parley("debate", "--task-seed", "3", "--masking", "memo", "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["masking"] == "memo" and m["decision"] in (True, False) and m["correct"] in (True, False)
    assert m["rounds"] >= 1 and m["flow"] and set(m["flow"][0]) >= {"m0", "m1"}
    assert 0 <= m["redundancy"] <= 1 and 0 <= m["effective_ratio"] <= 1


def test_masking_modes_change_what_members_see_on_the_same_task():
    out = {mode: json.loads(parley("debate", "--task-seed", "5", "--masking", mode, "--json").stdout)
           for mode in ("none", "memo")}
    assert out["none"]["tokens_per_member_round"] > 0 and out["memo"]["tokens_per_member_round"] > 0
    assert out["none"]["flow"] != out["memo"]["flow"] or out["none"]["rounds"] != out["memo"]["rounds"]


def test_a_world_council_is_debated_by_its_npcs_and_the_flow_plot_is_written(tmp_path):
    plot = tmp_path / "flow.png"
    r = parley("debate", str(COUNCIL), "--rounds", "3", "--plot", str(plot))
    assert r.returncode == 0, r.stderr
    assert "The motion" in r.stdout and plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    spec = load_world(COUNCIL).spec
    task = task_from_scene(spec)
    npcs = [p.id for p in next(iter(s for s in spec.scenes.values() if s.type == "council")).participants
            if p.id != "player"]
    assert [m.id for m in task.members] == npcs and task.truth is None
    assert all(any(line.startswith(f"[1] {m}:") for line in r.stdout.splitlines()) for m in npcs[:1])


@pytest.mark.parametrize("args, says", [
    (("debate", "worlds/harbor"), "has no council scene"),
    (("debate", str(COUNCIL), "--scene", "weir_councill"), "did you mean 'weir_council'"),
    (("debate", "--masking", "everything"), "invalid choice"),
    (("debate", "--rounds", "0"), "must be at least 1"),
    (("debate", "--budget", "3"), "at least 16 tokens"),
    (("debate", str(COUNCIL), "--task-seed", "4"), "does not apply to a world's scene"),
])
def test_what_cannot_be_debated_is_an_input_error(args, says):
    r = parley(*args)
    assert r.returncode == 2 and says in r.stderr, r.stderr


def test_a_scene_id_must_be_a_council_scene():
    spec = load_world(ROOT / "worlds" / "bazaar").spec
    with pytest.raises(InputError):
        task_from_scene(spec)
