"""World sizes are bounded, a world file too deep says where, and a turn's work grows linearly
with the NPCs that act (counted in executed lines, never timed: timings live in
benchmarks/npc_scaling.py)."""

from __future__ import annotations

import shutil
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.npc_scaling import OWN
from benchmarks.npc_scaling import write_world as crowd_world
from game.core.types import PLAYER, Action, Verb
from game.play.worlds import collect_problems, load_world
from game.testing import standard_engine
from game.world import limits
from game.world.loader import MAX_DEPTH
from tests.conftest import ROOT, parley

HARBOR = ROOT / "worlds" / "harbor"


def harbor_copy(tmp_path, name="W"):
    folder = tmp_path / name
    shutil.copytree(HARBOR, folder)
    return folder


def messages(folder):
    world, problems = collect_problems(folder)
    assert world is None
    return [p.render() for p in problems]


def refused(folder, *args):
    """``parley validate`` and ``parley run`` both refuse the world with exit 2 and no traceback;
    returns validate's output."""
    out = parley("validate", str(folder))
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    ran = parley("run", str(folder), "--autopilot", "--turns", "1", "--no-memory", "--quiet", *args)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr
    return out.stdout


# --- nesting: where, by file, line and key path ------------------------------------------------


def test_a_deep_table_header_names_file_line_and_field_path(tmp_path):
    folder = harbor_copy(tmp_path)
    ilse = folder / "npcs" / "ilse.toml"
    text = ilse.read_text()
    ilse.write_text(text + "\n[agent.params" + ".x" * 300 + "]\ny = 1\n")
    line = (text + "\n").count("\n") + 1
    out = refused(folder)
    want = f"{ilse}:{line}: agent.params.x.x.x"
    assert want in out and f"more than {MAX_DEPTH} levels" in out, out


def test_brackets_too_deep_to_parse_name_their_line_and_key(tmp_path):
    folder = harbor_copy(tmp_path)
    ilse = folder / "npcs" / "ilse.toml"
    text = ilse.read_text().replace('[agent]\nkind = "idle"', '[agent]\nkind = "idle"\nparams = { x = ' + "[" * 5000)
    ilse.write_text(text + "]" * 5000 + " }\n")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("params = "))
    [msg] = messages(folder)
    assert msg.startswith(f"{ilse}:{line}: agent.params"), msg
    assert "nested too deeply" in msg


def test_inline_nesting_names_the_path_to_it(tmp_path):
    folder = harbor_copy(tmp_path)
    world = folder / "world.toml"
    world.write_text(world.read_text() + "\n[relations.deep]\ndescription = " + "[" * 40 + "]" * 40 + "\n")
    [msg] = messages(folder)
    assert "relations.deep.description[0][0]" in msg and f"more than {MAX_DEPTH} levels" in msg


# --- sizes -------------------------------------------------------------------------------------


def _npc_file(folder, nid, location="quay", extra=""):
    (folder / "npcs" / f"{nid}.toml").write_text(f'name = "N {nid}"\nlocation = "{location}"\n{extra}')


def test_too_many_npc_files_are_refused_before_reading_them(tmp_path):
    folder = harbor_copy(tmp_path)
    over = limits.MAX_NPCS + 1 - 7
    for i in range(over):
        _npc_file(folder, f"x{i}")
    (folder / "npcs" / "x0.toml").write_text("= not toml [")  # never read: no syntax error reported
    out = refused(folder)
    assert f"{folder / 'npcs'}: {limits.MAX_NPCS + 1:,} files in npcs/" in out
    assert f"at most {limits.MAX_NPCS:,} NPCs" in out and "syntax" not in out


def test_too_many_npcs_in_world_toml_are_refused(tmp_path):
    folder = harbor_copy(tmp_path)
    world = folder / "world.toml"
    tables = "".join(f'\n[npcs.z{i}]\nname = "Z"\nlocation = "quay"\n' for i in range(limits.MAX_NPCS))
    world.write_text(world.read_text() + tables)
    [msg] = messages(folder)
    assert msg.startswith(f"{world}: npcs: {limits.MAX_NPCS + 7:,} NPCs; a world holds at most"), msg


def test_a_crowd_in_one_starting_location_is_refused(tmp_path):
    folder = harbor_copy(tmp_path)
    for i in range(limits.MAX_NPCS_PER_LOCATION):
        _npc_file(folder, f"c{i:03d}", "tavern")
    msgs = messages(folder)
    assert msgs == [
        f"{folder / 'npcs' / 'c000.toml'}: npcs.c000.location: {limits.MAX_NPCS_PER_LOCATION + 1} NPCs start in "
        f"location 'tavern'; at most {limits.MAX_NPCS_PER_LOCATION} may start in one ({limits.DOC}) "
        "(spread them over more locations)"
    ]


@pytest.mark.parametrize(
    ("field", "value", "limit"),
    [
        ("aliases", [f"a{i}" for i in range(limits.MAX_ALIASES + 1)], limits.MAX_ALIASES),
        ("knowledge", ["storm_tonight"] * (limits.MAX_HELD + 1), limits.MAX_HELD),
    ],
)
def test_a_list_in_an_entry_over_its_limit_names_its_field(tmp_path, field, value, limit):
    folder = harbor_copy(tmp_path)
    ilse = folder / "npcs" / "ilse.toml"
    lines = [ln for ln in ilse.read_text().splitlines() if not ln.startswith(f"{field} =")]
    ilse.write_text(f"{field} = {value!r}\n".replace("'", '"') + "\n".join(lines) + "\n")
    [msg] = messages(folder)
    assert f"{ilse}: npcs.ilse.{field}: {len(value):,} entries; at most {limit:,}" in msg, msg


def test_any_array_over_the_entry_limit_is_refused_with_its_path(tmp_path):
    folder = harbor_copy(tmp_path)
    dray = folder / "npcs" / "dray.toml"
    text = dray.read_text().replace("route = [", "route = [" + '"quay", ' * limits.MAX_ENTRIES)
    dray.write_text(text)
    [msg] = messages(folder)
    assert f"{dray}:" in msg and "agent.params.route" in msg and f"at most {limits.MAX_ENTRIES:,}" in msg, msg


def test_npcs_times_items_and_topics_are_bounded(tmp_path):
    folder = crowd_world(tmp_path / "W", 400)
    world = folder / "world.toml"
    world.write_text(world.read_text() + "".join(f'\n[items.junk{i}]\nname = "junk {i}"\n' for i in range(700)))
    [msg] = messages(folder)
    assert msg.startswith(f"{world}: npcs: 407 NPCs × (713 items + 4 fact topics) = 291,819 give and ask actions")
    assert f"at most {limits.MAX_PAIRS:,}" in msg


def test_shipped_worlds_sit_far_inside_the_limits():
    for name in ("harbor", "bazaar", "council"):
        spec = load_world(ROOT / "worlds" / name).spec
        for section, (limit, _what) in limits.SECTIONS.items():
            assert len(getattr(spec, section)) * 10 <= limit


# --- a turn's work is linear in the NPCs that act ---------------------------------------------


def lines_per_turn(tmp_path, extra: int, turns: int = 2) -> int:
    """Python lines executed by ``turns`` rounds (player waits, every NPC acts) on a harbor copy
    with ``extra`` NPCs, 10 to a room, after two rounds that fill the recent-event queues."""
    from agents.registry import npc_agents

    world = load_world(crowd_world(tmp_path / f"n{extra}", extra))
    engine = standard_engine(world, seed=0, actors=npc_agents(world, 0))
    for _ in range(2):
        engine.run_round(Action(PLAYER, Verb.WAIT))

    def play():
        for _ in range(turns):
            engine.run_round(Action(PLAYER, Verb.WAIT))

    return lines_run(play)


def lines_run(fn) -> int:
    """Python lines executed by calling ``fn()``."""
    count = 0

    def line(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return line

    sys.settrace(lambda frame, event, arg: line)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def test_work_per_turn_grows_linearly_with_the_npcs(tmp_path):
    small, large = 40, 160
    a, b = lines_per_turn(tmp_path, small), lines_per_turn(tmp_path, large)
    npcs = (large + 7) / (small + 7)
    assert b / a <= 1.25 * npcs, (a, b, b / a, npcs)  # quadratic work would be about npcs² = 12x


# --- fuzz: the loader never raises on any nesting or text ---------------------------------------

_keys = st.text(alphabet="abcxyz._-\"' ", min_size=1, max_size=6)
_values = st.recursive(
    st.integers(-5, 5) | st.text(max_size=8) | st.booleans(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("abxy", min_size=1, max_size=3), inner),
    max_leaves=12,
)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return "{ " + ", ".join(f'"{k}" = {_toml_value(x)}' for k, x in v.items()) + " }"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    header=st.lists(_keys, min_size=1, max_size=60), depth=st.integers(0, 80), value=_values, junk=st.text(max_size=40)
)
def test_fuzzed_nesting_never_raises(tmp_path_factory, header, depth, value, junk):
    folder = harbor_copy(tmp_path_factory.mktemp("fz"))
    nested = "[" * depth + _toml_value(value) + "]" * depth
    text = f"[agent.params.{'.'.join(header)}]\nv = {nested}\n{junk}\n"
    (folder / "npcs" / "fuzz.toml").write_text('name = "F"\nlocation = "quay"\n' + text)
    world, problems = collect_problems(folder)
    assert world is None or not problems
    for p in problems:
        assert p.file and p.render()


# --- the who-is-where index agrees with a scan ------------------------------------------------

_ops = st.lists(
    st.tuples(
        st.sampled_from(["set", "del", "update", "pop", "setdefault"]),
        st.sampled_from("abcdef"),
        st.sampled_from("xyz"),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(ops=_ops)
def test_the_placement_index_lists_what_a_scan_finds_in_key_order(ops):
    import copy
    import pickle

    from game.engine.state import GameState

    state = GameState(where={"p": "x", "q": "y"})
    plain = dict(state.where)
    for op, key, holder in ops:
        for d in (state.where, plain):
            if op == "set":
                d[key] = holder
            elif op == "del" and key in d:
                del d[key]
            elif op == "update":
                d.update({key: holder})
            elif op == "pop":
                d.pop(key, None)
            else:
                d.setdefault(key, holder)
    for copied in (state.where, copy.deepcopy(state.where), pickle.loads(pickle.dumps(state.where))):
        assert list(copied.items()) == list(plain.items())
        for holder in "xyz":
            assert copied.members(holder) == [k for k, v in plain.items() if v == holder]
    state.where = dict(plain)  # a plain dict assigned is indexed too
    assert state.entities_at("x") == [k for k, v in plain.items() if v == "x"]


# --- lifting the limits: a library switch for benchmarks and tests only -------------------------


def test_lifted_limits_load_a_world_past_them_and_no_world_file_or_flag_reaches_it(tmp_path):
    folder = crowd_world(tmp_path / "big", limits.MAX_NPCS - 6)  # 1,001 NPCs with the harbor's 7
    (folder / "world.toml").write_text(
        (folder / "world.toml").read_text() + "\n[limits]\nlifted = true\nnpcs = 100000\n"
    )
    out = refused(folder)  # the keys are refused, and so are the NPCs
    assert f"at most {limits.MAX_NPCS:,} NPCs" in out, out
    (folder / "world.toml").write_text((folder / "world.toml").read_text().split("\n[limits]")[0])
    assert f"at most {limits.MAX_NPCS:,} NPCs" in refused(folder)
    with limits.lifted():
        assert limits.are_lifted()
        world = load_world(folder)
    assert len(world.spec.npcs) == limits.MAX_NPCS + 1
    assert len(load_world(HARBOR).spec.npcs) == OWN  # what the benchmark's sizes count
    assert not limits.are_lifted()
    assert any(f"at most {limits.MAX_NPCS:,} NPCs" in m for m in messages(folder))  # only inside the block
    users = [ROOT / "game", ROOT / "agents", ROOT / "memory"]
    reached = sorted(
        str(p.relative_to(ROOT))
        for top in users
        for p in top.rglob("*.py")
        if "lifted(" in p.read_text(encoding="utf-8") or "_LIFTED" in p.read_text(encoding="utf-8")
    )
    assert reached == ["game/world/limits.py", "game/world/loader.py"], reached
    assert "lift" not in parley("validate", "--help").stdout + parley("run", "--help").stdout


# --- the full game path (world-fact memory, autopilot) is linear in the NPCs too --------------


def game_lines(tmp_path, extra: int, turns: int = 2) -> int:
    """Python lines executed building a ``Game`` as ``parley run W --autopilot --no-memory`` does
    (world-fact memory on: the consistency gate and Σ-Mem) and playing ``turns`` autopilot turns."""
    from game.play.config import GameConfig
    from game.play.session import Game

    world = load_world(crowd_world(tmp_path / f"g{extra}", extra))
    config = GameConfig(world=str(world.folder), seed=0, player="autopilot", memory=None)

    def play():
        game = Game(world, config=config)
        seat = game.seat
        for _ in range(turns):
            game.play_turn(seat)

    return lines_run(play)


def test_building_and_playing_a_game_grows_linearly_with_the_npcs(tmp_path):
    small, large = 60, 240
    a, b = game_lines(tmp_path, small), game_lines(tmp_path, large)
    npcs = (large + 7) / (small + 7)
    assert b / a <= 1.1 * npcs, (a, b, b / a, npcs)


def test_moving_npcs_share_one_map_of_exits(tmp_path):
    """A wanderer or patrol reads the world's exits; one map is built per world, not one per NPC
    (NPCs × locations work and memory when a world's agents are built)."""
    from agents.registry import npc_agents

    world = load_world(crowd_world(tmp_path / "m", 30))
    agents = npc_agents(world, 0)
    maps = {id(a.body.exits) for a in agents.values() if getattr(a.body, "exits", None)}
    assert len(maps) == 1, len(maps)
    [exits] = {id(a.body.exits): a.body.exits for a in agents.values() if getattr(a.body, "exits", None)}.values()
    assert exits == {lid: dict(loc.exits) for lid, loc in world.spec.locations.items()}


def test_a_sigma_write_rescales_only_the_judged_peers_rows(tmp_path):
    import tracemalloc

    import numpy as np

    from memory.sigma import SigmaMem

    peers = [f"p{i}" for i in range(2_000)]
    mem = SigmaMem.for_world(peers, ["harbour", "prices"])
    rng = np.random.default_rng(0)
    for _ in range(20):  # p7 judged with others: its row and column of S hold evidence
        judged = [7, *rng.choice(np.arange(8, 50), size=2, replace=False)]
        mem.write("harbour", {peers[i]: int(rng.choice([-1, 1])) for i in judged})
    assert np.count_nonzero(mem.S()[7]) > 3
    before = mem.S()
    mem.write("prices", {"p7": 1})  # one judged peer: S only decays
    d = np.ones(len(peers))
    d[7] = np.sqrt(mem._gamma_g)
    assert np.array_equal(mem.S(), before * (d[:, None] * d[None, :]))  # the dense D S D, bit for bit
    tracemalloc.start()
    try:
        mem.write("harbour", {"p1": 1, "p2": -1, "p3": 1})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(peers) ** 2 * 8 / 50, peak  # never a peers × peers temporary (32 MB here)
