"""``parley debate``: a council debate from the command line, from a generated hidden-profile task
or a world's council scene, with clear errors (exit 2) for what cannot be debated."""

from __future__ import annotations

import json

import pytest

from game.core.errors import InputError
from game.play.worlds import load_world
from game.world.council_tasks import task_from_scene
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
    out = {
        mode: json.loads(parley("debate", "--task-seed", "5", "--masking", mode, "--json").stdout)
        for mode in ("none", "memo")
    }
    assert out["none"]["tokens_per_member_round"] > 0 and out["memo"]["tokens_per_member_round"] > 0
    assert out["none"]["flow"] != out["memo"]["flow"] or out["none"]["rounds"] != out["memo"]["rounds"]


def test_a_world_council_is_debated_by_its_npcs_and_the_flow_plot_is_written(tmp_path):
    plot = tmp_path / "flow.png"
    r = parley("debate", str(COUNCIL), "--rounds", "3", "--plot", str(plot))
    assert r.returncode == 0, r.stderr
    assert "The motion" in r.stdout and plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    spec = load_world(COUNCIL).spec
    task = task_from_scene(spec)
    npcs = [
        p.id
        for p in next(iter(s for s in spec.scenes.values() if s.type == "council")).participants
        if p.id != "player"
    ]
    assert [m.id for m in task.members] == npcs and task.truth is None
    assert all(any(line.startswith(f"[1] {m}:") for line in r.stdout.splitlines()) for m in npcs[:1])


@pytest.mark.parametrize(
    "args, says",
    [
        (("debate", "worlds/harbor"), "has no council scene"),
        (("debate", str(COUNCIL), "--scene", "weir_councill"), "did you mean 'weir_council'"),
        (("debate", "--masking", "everything"), "invalid choice"),
        (("debate", "--rounds", "0"), "must be at least 1"),
        (("debate", "--budget", "3"), "at least 16 tokens"),
        (("debate", str(COUNCIL), "--task-seed", "4"), "does not apply to a world's scene"),
        (("debate", "--masking", "subjective"), "needs LLM members"),
        (("debate", "--model", "m"), "need --llm URL"),
    ],
)
def test_what_cannot_be_debated_is_an_input_error(args, says):
    r = parley(*args)
    assert r.returncode == 2 and says in r.stderr, r.stderr


def test_a_scene_id_must_be_a_council_scene():
    spec = load_world(ROOT / "worlds" / "bazaar").spec
    with pytest.raises(InputError):
        task_from_scene(spec)


def test_llm_members_debate_from_the_cli_over_http(serve):
    """--llm: every member is an LLM debater (the scripted server plays them), subjective masking on."""
    from game.council.tasks import hidden_profile_task
    from tests.test_council_llm import Model

    model = Model(hidden_profile_task(3), labels=lambda n, c: True)
    s = serve(responder=model)
    r = parley(
        "debate",
        "--task-seed",
        "3",
        "--masking",
        "subjective",
        "--rounds",
        "3",
        "--json",
        "--llm",
        s.base_url,
        "--model",
        "council",
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["masking"] == "subjective" and out["rounds"] >= 1
    members = {m.id for m in hidden_profile_task(3).members}
    assert set(model.said) == members  # every member labelled its peers' statements
    assert len(s.requests) >= out["rounds"] * len(members)  # and spoke through the endpoint


def test_the_council_benchmark_runs_llm_members_over_http(serve, capsys):
    """``council_bench.py --llm``: every mode an LLM council can use, on the same held-out tasks,
    against the scripted server (this proves the wiring, not any model's accuracy)."""
    from benchmarks import council_bench
    from game.council.tasks import hidden_profile_task
    from tests.test_council_llm import Model

    class Any3:
        """The scripted model for whichever task a prompt comes from (tasks 1000 and 1001)."""

        def __init__(self):
            self.models = [Model(hidden_profile_task(s), labels=lambda n, c: n % 2 == 0) for s in (1000, 1001)]

        def __call__(self, body):
            text = "\n".join(m["content"] for m in body["messages"])
            return self.models[0](body) if hidden_profile_task(1000).motion in text else self.models[1](body)

    s = serve(responder=Any3())
    assert council_bench.main(["--llm", s.base_url, "--model", "m", "--llm-tasks", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["llm"] and out["n"] == 2
    assert set(out["modes"]) == {"none", "window", "dedupe", "memo", "subjective"}
    assert "memo - subjective" in out["paired"] and "memo - none" in out["paired"]
    assert len(s.requests) >= 2 * 5 * 3  # every mode, every task, at least a round of three members
