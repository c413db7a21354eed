"""The save schemas of agent memory and world-fact memory (``memory.state_schema``): every state
real games save validates, old shapes still load, and what the code reading a save assumes is
enforced: wrong types, unknown keys, misshapen tuples and ids that do not resolve are refused
with the path of the field."""

from __future__ import annotations

import copy
import json
import math
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from game.play.session import Game
from memory.state_schema import FactsState, MemoryState, check_links
from tests.conftest import ROOT, forge_save, parley

WORLDS = ROOT / "worlds"
# (save name, world, autopilot turns, memory options): MiniLM memory, a council, a trade
GAMES = (
    ("harbor", "harbor", 25, {"embedder": "minilm"}),
    ("council", "council", 40, {"embedder": "hash"}),
    ("bazaar", "bazaar", 60, {"embedder": "hash"}),
)


@pytest.fixture(scope="module")
def saves(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    """Real games played by the autopilot and saved; (saves folder, save.json by name)."""
    base = tmp_path_factory.mktemp("saves")
    out = {}
    for name, world, turns, memory in GAMES:
        game = Game(WORLDS / world, seed=0, memory=memory, player_kind="autopilot")
        for _ in range(turns):
            if game.engine.done:
                break
            game.play_turn()
        out[name] = json.loads((game.save(name, base) / "save.json").read_text())
    return base, out


def sections(data: dict) -> tuple[MemoryState | None, FactsState | None]:
    comps = data["components"]
    memory = MemoryState.model_validate(comps["memory"]) if "memory" in comps else None
    facts = FactsState.model_validate(comps["facts"]) if "facts" in comps else None
    check_links(memory, facts)
    return memory, facts


def plain(loc) -> tuple:
    """An error's path without union tags (``~7``) and pydantic's function markers."""
    return tuple(p for p in loc if not (isinstance(p, str) and (p.startswith(("~", "function-")) or "[" in p)))


def refused(model, state, path: tuple) -> list[dict]:
    """Validate ``state`` with ``model``, expect a refusal at ``path`` (or inside it); the errors."""
    with pytest.raises(ValidationError) as info:
        model.model_validate(state)
    errors = info.value.errors(include_url=False)
    assert any(plain(e["loc"])[: len(path)] == path for e in errors), (path, errors[:3])
    return errors


# --- real states ------------------------------------------------------------------------------


def test_every_state_real_games_save_validates(saves):
    _, data = saves
    for name, save in data.items():
        memory, facts = sections(save)
        assert memory is not None and facts is not None, name
        assert len(memory.bank.records) > 50, name
    harbor = data["harbor"]["components"]
    assert harbor["memory"]["embedder"] == "minilm"
    assert harbor["facts"]["gate"]["decisions"] and harbor["facts"]["records"]  # the gate decided, memory mirrors
    assert any(r["kind"] == "agreement" for r in data["bazaar"]["components"]["memory"]["bank"]["records"])
    assert any(r["kind"] == "rule" for r in data["council"]["components"]["memory"]["bank"]["records"])


def test_a_game_typed_at_the_real_cli_saves_a_state_that_validates(tmp_path):
    out = parley("play", "harbor", "--plain", "--saves-dir", str(tmp_path), input="look\nask ilse about key\nn\ns\n")
    assert out.returncode == 0, out.stderr
    (save,) = tmp_path.glob("*/save.json")
    memory, facts = sections(json.loads(save.read_text()))
    assert memory is not None and len(memory.bank.records) > 5 and facts is not None


def test_a_loaded_and_replayed_game_saves_a_state_that_still_validates(saves, tmp_path):
    base, _ = saves
    game = Game.load("harbor", base=base)
    for line in ("look", "n", "s"):
        game.submit(line)
    sections(json.loads((game.save("again", tmp_path) / "save.json").read_text()))


def test_old_shapes_the_loaders_still_read_validate_and_load(saves):
    """Keys ``set_state`` gives defaults to may be missing (saves from before they existed), a cache
    row may have 6 or 7 values, Σ-Mem's state may be version 1: the schema accepts what loads."""
    _, data = saves
    comps = copy.deepcopy(data["harbor"]["components"])
    mem, facts = comps["memory"], comps["facts"]
    for rec in mem["bank"]["records"]:
        for key in ("disputed", "tier", "superseded_by", "controversy", "novelty", "references"):
            rec.pop(key)
    for key in ("reflector", "witnesses", "priors", "quests_done"):
        mem.pop(key)
    for key in ("corrections", "access"):
        mem["bank"].pop(key)
    gate = facts["gate"]
    gate["cache"] = [row[:6] for row in gate["cache"]] + [row[:7] for row in gate["cache"]]
    for d in gate["decisions"]:
        d.pop("p"), d.pop("evidence"), d.pop("cached")
    for f in gate["facts"]:
        f.pop("jury"), f.pop("awaiting_jury")
    for key in ("claims", "judged", "records", "witness", "settled"):
        facts.pop(key)
    for key in ("next", "version", "judge_calls", "heard"):
        gate.pop(key)
    sections({"components": comps})
    game = Game(WORLDS / "harbor", seed=0, memory={"embedder": "minilm"})  # as the save was made
    game.memory.set_state(mem)
    game.facts.set_state(facts)
    sigma = copy.deepcopy(data["harbor"]["components"]["facts"]["sigma"])
    sigma["version"] = 1
    sigma.pop("declared")
    FactsState.model_validate({**data["harbor"]["components"]["facts"], "sigma": sigma})


def test_the_schemas_closed_vocabularies_are_the_codes():
    from memory import records, sigma_state, state_schema, state_schema_facts, state_schema_sigma
    from memory.embedder import KINDS
    from memory.gate_evidence import Bursts

    assert state_schema.EMBEDDERS == KINDS
    assert state_schema_facts.HEARD_SEP in Bursts.key(("a", "b", "c"), True)
    assert set(state_schema_facts.CLAIM_KINDS) >= {"claim", "observation"}
    assert tuple(sigma_state.SUPPORTED_VERSIONS) == state_schema_sigma.STATE_VERSIONS
    assert state_schema.RecordState.model_fields["kind"].annotation.__args__ == records.KINDS


# --- the findings -----------------------------------------------------------------------------


def first_claim(mem: dict) -> int:
    return next(i for i, r in enumerate(mem["bank"]["records"]) if r["triple"])


def test_a_fact_mirrored_into_a_memory_record_that_does_not_exist_is_refused(saves):
    _, data = saves
    comps = copy.deepcopy(data["harbor"]["components"])
    fid = next(iter(comps["facts"]["records"]))
    comps["facts"]["records"][fid] = "m909"
    memory, facts = MemoryState.model_validate(comps["memory"]), FactsState.model_validate(comps["facts"])
    with pytest.raises(ValidationError) as info:
        check_links(memory, facts)
    (err,) = info.value.errors()
    assert err["loc"] == ("components", "facts", "records", fid) and "m909" in err["msg"]
    with pytest.raises(ValidationError, match="no agent memory"):
        check_links(None, facts)
    comps["facts"]["records"] = {"f909": "m1"}  # a fact the gate does not hold
    refused(FactsState, comps["facts"], ("records", "f909"))


def test_a_mirrored_fact_must_name_a_world_fact_record(saves):
    _, data = saves
    comps = copy.deepcopy(data["harbor"]["components"])
    fid = next(iter(comps["facts"]["records"]))
    comps["facts"]["records"][fid] = "m1"  # an observation in the player's memory
    with pytest.raises(ValidationError, match="not a world fact"):
        sections({"components": comps})


TRIPLE = ("bank", "records", "*", "triple")


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda m, i: m["bank"]["records"][i].update(importance="high"), ("bank", "records", "*", "importance")),
        (lambda m, i: m["bank"]["records"][i].update(surprise=1), ("bank", "records", "*", "surprise")),
        (lambda m, i: m["bank"]["records"][i].update(triple=m["bank"]["records"][i]["triple"][:1]), TRIPLE),
        (lambda m, i: m["bank"]["records"][i].update(triple=[*m["bank"]["records"][i]["triple"], "x"]), TRIPLE),
        (lambda m, i: m["bank"].update(seq="lots"), ("bank", "seq")),
        (lambda m, i: m["bank"].update(seq=True), ("bank", "seq")),
        (lambda m, i: m["bank"]["records"][i].update(turn=1.5), ("bank", "records", "*", "turn")),
        (lambda m, i: m["bank"]["records"][i].update(anchor=1), ("bank", "records", "*", "anchor")),
        (lambda m, i: m["bank"]["records"][i].update(status="forgotten"), ("bank", "records", "*", "status")),
        (lambda m, i: m["bank"]["records"][i].update(kind="dream"), ("bank", "records", "*", "kind")),
        (lambda m, i: m["bank"]["records"][i].update(scope="everyone"), ("bank", "records", "*", "scope")),
        (lambda m, i: m["bank"]["records"][i].update(importance=math.nan), ("bank", "records", "*", "importance")),
        (lambda m, i: m["bank"]["records"][i].update(novelty=3.0), ("bank", "records", "*", "novelty")),
        (lambda m, i: m["config"].update(budget="400"), ("config", "budget")),
        (lambda m, i: m["config"]["mask"].update(soft_penalty="half"), ("config", "mask", "soft_penalty")),
        (lambda m, i: m.update(embedder="word2vec"), ("embedder",)),
        (lambda m, i: m["reflector"]["pressure"].update(player="lots"), ("reflector", "pressure", "player")),
        (
            lambda m, i: m.update(store_options={"host": "h", "port": "80", "collection": "c"}),
            ("store_options", "port"),
        ),
    ],
)
def test_a_wrongly_typed_memory_field_is_refused_with_its_path(saves, edit, path):
    """Importance "high" (``parley inspect`` crashed), an unknown record key (replay's TypeError), a
    one-element triple (replay's IndexError), seq "lots" (replay's ValueError), and their kin."""
    _, data = saves
    mem = copy.deepcopy(data["harbor"]["components"]["memory"])
    i = first_claim(mem)
    edit(mem, i)
    refused(MemoryState, mem, tuple(i if p == "*" else p for p in path))


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda f: f["gate"]["decisions"][0].update(score="very"), ("gate", "decisions", 0, "score")),
        (lambda f: f["gate"]["decisions"][0].update(outcome="maybe"), ("gate", "decisions", 0, "outcome")),
        (lambda f: f["gate"]["decisions"][0].update(credibility=2.0), ("gate", "decisions", 0, "credibility")),
        (
            lambda f: f["gate"]["decisions"][0]["candidate"].update(mood=1),
            ("gate", "decisions", 0, "candidate", "mood"),
        ),
        (lambda f: f["gate"]["decisions"][0].update(fact="f999"), ("gate", "decisions", 0, "fact")),
        (lambda f: f["gate"]["decisions"][0].update(seq=7), ("gate", "decisions", 0, "seq")),
        (lambda f: f["gate"]["facts"][0].update(status="rumoured"), ("gate", "facts", 0, "status")),
        (lambda f: f["gate"]["facts"][0].update(id="f99"), ("gate", "facts", 0, "id")),
        (lambda f: f["gate"].update(next="lots"), ("gate", "next")),
        (lambda f: f["gate"].update(judge_calls=-1), ("gate", "judge_calls")),
        (lambda f: f["gate"]["cache"].append([["a", "b", "c"], "s", "t", 0.5, 1, 999, True, None]), ("gate", "cache")),
        (lambda f: f["gate"]["cache"].append(["a", "b"]), ("gate", "cache")),
        (lambda f: f["gate"]["heard"].update(oops=[["ilse", 3]]), ("gate", "heard", "oops")),
        (lambda f: f.update(judged=[99]), ("judged", 0)),
        (lambda f: f.update(settled=[["a", "b", "c"]]), ("settled", 0)),
        (lambda f: f["sigma"]["M"][0].pop(), ("sigma", "M", 0)),
        (lambda f: f["sigma"]["S"][0].append(0.0), ("sigma", "S", 0)),
        (lambda f: f["sigma"]["c_num"].pop(), ("sigma", "c_num")),
        (lambda f: f["sigma"]["S"][0].__setitem__(0, math.inf), ("sigma", "S", 0, 0)),
        (lambda f: f["sigma"]["S"][0].__setitem__(0, 1e308), ("sigma", "S", 0, 0)),  # S's eigh would not converge
        (lambda f: f["sigma"]["peers"].append(f["sigma"]["peers"][0]), ("sigma", "peers")),
        (lambda f: f["sigma"].update(version=3), ("sigma", "version")),
        (lambda f: f["sigma"]["config"].update(gamma="0.9"), ("sigma", "config", "gamma")),
        (lambda f: f["witness"]["known"][0].update(truth="yes"), ("witness", "known", 0, "truth")),
    ],
)
def test_a_wrongly_typed_or_dangling_fact_field_is_refused_with_its_path(saves, edit, path):
    """A gate decision scored "very" (``parley trust --audit`` crashed formatting it) and its kin."""
    _, data = saves
    facts = copy.deepcopy(data["harbor"]["components"]["facts"])
    edit(facts)
    refused(FactsState, facts, path)


def test_the_bank_counter_must_be_past_every_record(saves):
    """A new record is ``m<seq + 1>``: a counter behind the records would overwrite one."""
    _, data = saves
    mem = copy.deepcopy(data["harbor"]["components"]["memory"])
    mem["bank"]["seq"] = 5
    errors = refused(MemoryState, mem, ("bank", "records", 5, "seq"))
    assert "overwrite" in errors[0]["msg"]
    mem = copy.deepcopy(data["harbor"]["components"]["memory"])
    mem["bank"]["records"][3]["references"] = ["m99999"]
    refused(MemoryState, mem, ("bank", "records", 3, "references", 0))
    mem = copy.deepcopy(data["harbor"]["components"]["memory"])
    mem["bank"]["access"]["player"]["m99999"] = 3
    refused(MemoryState, mem, ("bank", "access", "player", "m99999"))


def test_a_superseded_memory_names_a_newer_record_that_exists():
    """A real bank where corrections and restated prices superseded older memories (contexts show
    "superseded at turn N" from the record ``superseded_by`` names)."""
    from memory.embedder import get_embedder
    from memory.memo import Memo
    from memory.state_schema import BankState

    memo = Memo(embedder=get_embedder("hash"))
    memo.add("The night ferry to Skarr leaves at dawn from pier four.", turn=2, speaker="hobb", kind="utterance")
    memo.add("Gulls wheel over the harbour.", turn=3)
    memo.add("Change of plan: the night ferry to Skarr now sails at dusk.", turn=9, speaker="hobb", kind="utterance")
    for p in (110, 100, 95):
        memo.add(f"Vessa offers the orrery for {p} crowns.", turn=10, speaker="vessa", kind="utterance")
    memo.context("bob", 12, budget=200, focus="When can I get a boat to Skarr?")
    bank = json.loads(json.dumps(memo.bank.get_state()))
    gone = [i for i, r in enumerate(bank["records"]) if r["status"] == "superseded"]
    assert len(gone) >= 2
    BankState.model_validate(bank)
    i = gone[0]
    for value, why in ((None, "names the record"), (bank["records"][0]["id"], "not newer"), ("m777", "no record")):
        broken = copy.deepcopy(bank)
        broken["records"][i]["superseded_by"] = value
        errors = refused(BankState, broken, ("records", i, "superseded_by"))
        assert why in errors[0]["msg"]


# --- any leaf, any wrong type -----------------------------------------------------------------

# mappings whose keys are names (agents, records, facts), not fields: any key is allowed there
TABLES = re.compile(r"^(bank\.access(\.[^.]+)?|priors|witnesses|reflector\.(pressure|tried)|records|gate\.heard)$")


def nodes(value, path=()):
    """(path, value) of every node under ``value`` but the root."""
    if path:
        yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from nodes(v, (*path, i))


def pattern(path: tuple) -> str:
    return ".".join("*" if isinstance(p, int) else p for p in path)


def by_pattern(state: dict) -> dict[str, list[tuple]]:
    """Every node's path grouped by its pattern (list indices as ``*``; table keys as ``?``), so
    the rare fields are drawn as often as Σ-Mem's thousands of matrix entries."""
    out: dict[str, list[tuple]] = {}
    for path, _ in nodes(state):
        shown = []
        for p in path:
            shown.append("?" if TABLES.match(".".join(shown)) else "*" if isinstance(p, int) else p)
        out.setdefault(".".join(shown), []).append(path)
    return out


def wrong(value, pick: int):
    """A value of another type than ``value`` that no field typed after it accepts."""
    if isinstance(value, bool):
        options = ["yes", 1, 0.0]
    elif isinstance(value, int):
        options = ["lots", True, {"n": value}]
    elif isinstance(value, float):
        options = ["high", True, math.nan]
    elif isinstance(value, str):
        options = [7, True, [value]]
    elif value is None:
        options = [{"x": 1}, [{"x": 1}]]
    else:
        options = ["lots", 7]
    return options[pick % len(options)]


def set_at(state, path, value):
    for p in path[:-1]:
        state = state[p]
    state[path[-1]] = value


@pytest.fixture(scope="module")
def leaf_index(saves):
    _, data = saves
    return {
        (name, sec): (save["components"][sec], by_pattern(save["components"][sec]))
        for name, save in data.items()
        for sec in ("memory", "facts")
    }


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_field_given_a_wrong_type_is_refused_with_its_path(leaf_index, data):
    name, sec = data.draw(st.sampled_from(sorted(leaf_index)))
    state, patterns = leaf_index[name, sec]
    group = data.draw(st.sampled_from(sorted(patterns)))
    path = data.draw(st.sampled_from(patterns[group]))
    broken = copy.deepcopy(state)
    node = broken
    for p in path:
        node = node[p]
    set_at(broken, path, wrong(node, data.draw(st.integers(0, 2))))
    refused(MemoryState if sec == "memory" else FactsState, broken, path)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_an_unknown_key_in_any_saved_object_is_refused_with_its_path(leaf_index, data):
    name, sec = data.draw(st.sampled_from(sorted(leaf_index)))
    state, patterns = leaf_index[name, sec]
    objects = sorted(g for g, paths in patterns.items() if isinstance(_at(state, paths[0]), dict) and "?" not in g)
    objects = [g for g in objects if not TABLES.match(g)]
    group = data.draw(st.sampled_from(["", *objects]))
    path = data.draw(st.sampled_from(patterns[group])) if group else ()
    broken = copy.deepcopy(state)
    _at(broken, path)["zz_unknown"] = 0
    refused(MemoryState if sec == "memory" else FactsState, broken, (*path, "zz_unknown"))


def _at(state, path):
    for p in path:
        state = state[p]
    return state


def test_validation_changes_nothing_that_is_hashed(saves):
    """The schemas read the sections as saved: the state hash over them is the same after."""
    from game.play.persistence import save_hash, save_header

    _, data = saves
    for save in data.values():
        before = copy.deepcopy(save)
        sections(save)
        assert save == before
        assert save_hash(save["engine"], save["components"], save_header(save)) == save["state_hash"]


# --- speed ------------------------------------------------------------------------------------


def test_a_bank_of_5000_records_validates_fast(saves):
    """The figure the docs quote: 5,000 memory records (real ones, renumbered) and 2,000 gate decisions."""
    _, data = saves
    comps = copy.deepcopy(data["harbor"]["components"])
    real = comps["memory"]["bank"]["records"]
    recs = []
    for i in range(5000):
        r = dict(real[i % len(real)], id=f"m{i + 1}", seq=i + 1, references=[], superseded_by=None)
        recs.append(r)
    comps["memory"]["bank"].update(records=recs, seq=5000, access={}, corrections=[])
    gate = comps["facts"]["gate"]
    gate["decisions"] = [dict(gate["decisions"][i % len(gate["decisions"])], seq=i + 1) for i in range(2000)]
    comps["facts"]["records"] = {}
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        sections({"components": comps})
        runs.append(time.perf_counter() - start)
    best = min(runs)
    print(f"5,000 records + 2,000 decisions validated in {best * 1000:.0f} ms")
    assert best < 1.0


# --- the real CLI (once the save schema is wired into the commands that open a save) ---------


@pytest.fixture(scope="module")
def cli_save(tmp_path_factory):
    """A harbor game with hash memory, 25 autopilot turns: decisions, mirrored facts, claims."""
    pytest.importorskip("game.play.save_schema")  # the commands check saves with these schemas
    base = tmp_path_factory.mktemp("cli")
    game = Game(WORLDS / "harbor", seed=0, memory={"embedder": "hash"}, player_kind="autopilot")
    for _ in range(25):
        game.play_turn()
    return game.save("victim", base)


def forged(cli_save, tmp_path, edit) -> Path:
    folder = tmp_path / "victim"
    folder.mkdir()
    for f in cli_save.iterdir():
        if f.is_file():
            (folder / f.name).write_bytes(f.read_bytes())
    forge_save(folder, edit)
    return folder


def _mem(d):
    return d["components"]["memory"]


def _pending(d) -> dict:
    """The bank with a statement still to check at the next flush (as a save made mid-turn has), so
    a replay restores the saved memory rather than hashing it as it stands."""
    bank = _mem(d)["bank"]
    bank["corrections"] = [next(r["id"] for r in bank["records"] if r["kind"] == "utterance")]
    return bank


def _claim(d):
    return _mem(d)["bank"]["records"][first_claim(_mem(d))]


def _ilses(d) -> int:
    """A record Ilse's context reads (her own or shared)."""
    return next(i for i, r in enumerate(_mem(d)["bank"]["records"]) if r["scope"] == "private:ilse")


CLI_FINDINGS = [
    (
        ("play", "--load", "victim", "--plain"),
        lambda d: d["components"]["facts"].update(records={"f1": "m909"}),
        "components.facts.records.f1",
    ),
    (
        ("inspect", "victim", "--agent", "ilse"),
        lambda d: _mem(d)["bank"]["records"][_ilses(d)].update(importance="high"),
        "].importance",
    ),
    (("replay", "victim"), lambda d: _pending(d)["records"][3].update(surprise=1), "bank.records[3].surprise"),
    (
        ("replay", "victim"),
        lambda d: _pending(d) and _claim(d).update(triple=_claim(d)["triple"][:1]),
        ".triple[1]: missing (the list has 1 item)",
    ),
    (("replay", "victim"), lambda d: _pending(d).update(seq="lots"), "components.memory.bank.seq"),
    (
        ("trust", "victim", "--audit"),
        lambda d: d["components"]["facts"]["gate"]["decisions"][0].update(score="very"),
        "components.facts.gate.decisions[0].score",
    ),
]


@pytest.mark.parametrize(("args", "edit", "where"), CLI_FINDINGS)
def test_the_cli_refuses_a_forged_memory_section_with_its_path(cli_save, tmp_path, args, edit, where):
    folder = forged(cli_save, tmp_path, edit)
    before = {f.name: f.read_bytes() for f in folder.iterdir() if f.is_file()}
    out = parley(*args, "--saves-dir", str(tmp_path), input="look\nn\ns\n")
    assert out.returncode == 2, (out.stdout[-500:], out.stderr[-2000:])
    assert "Traceback" not in out.stderr and where in out.stderr, out.stderr
    assert {f.name: f.read_bytes() for f in folder.iterdir() if f.is_file()} == before


def test_the_schemas_load_without_numpy_or_the_game():
    """The commands that check a save import the schemas before anything else: they stay light."""
    import subprocess
    import sys

    code = (
        "import sys, memory.state_schema\n"
        "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith(('game.play', 'game.engine'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
