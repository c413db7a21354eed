"""The world map: layout, PNG drawing (headless), `parley map`, and the live map's state file.
No window is ever opened here: the live window is tested through its state-file writer and
reader only."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from game.cli.main import main
from game.map import render as gmap
from game.play.worlds import load_world
from tests.conftest import ROOT, WORLDS, parley, write_world

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
pygame = pytest.importorskip("pygame")

MINI = ROOT / "tests" / "fixtures" / "mini"
WORLD_PATHS = [WORLDS / "harbor", WORLDS / "bazaar", WORLDS / "council", MINI]


@pytest.fixture(autouse=True)
def no_display(monkeypatch):
    """Whatever the machine, these tests can never open a window."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def _pixel(img, at) -> tuple[int, int, int]:
    return tuple(img.get_at((int(at[0]), int(at[1]))))[:3]


def _near_segment(p, a, b, within: float) -> bool:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.dist(p, (ax + t * dx, ay + t * dy)) <= within


def _check_picture(path: Path, state: dict) -> None:
    """Size as the geometry says; the room colour at every room's centre; the player's room
    outlined; the background wherever nothing is drawn."""
    geo = gmap.geometry(state)
    img = pygame.image.load(str(path))
    assert img.get_size() == geo.size
    for lid in state["rooms"]:
        assert _pixel(img, geo.centre(lid)) == gmap.ROOM, lid
    left, top, w, h = geo.rooms[state["player"]]
    assert _pixel(img, (left + 1, top + h // 2)) == gmap.HERE_EDGE
    segments = [(geo.centre(a), geo.centre(b)) for a, b, _ in state["exits"]]
    checked = 0
    for x in range(2, geo.size[0] - 2, 9):
        for y in range(gmap.TITLE_H, geo.legend_top, 9):
            if any(bl - 3 <= x <= bl + bw + 3 and bt - 3 <= y <= bt + bh + 3 for bl, bt, bw, bh in geo.rooms.values()):
                continue
            if any(_near_segment((x, y), a, b, 5) for a, b in segments):
                continue
            assert _pixel(img, (x, y)) == gmap.BACKGROUND, (x, y)
            checked += 1
    assert checked > 100
    assert _pixel(img, (1, 1)) == gmap.BACKGROUND


@pytest.mark.parametrize("world", WORLD_PATHS, ids=lambda p: p.name)
def test_png_of_each_world(world, tmp_path, capsys):
    out = tmp_path / f"{world.name}.png"
    assert main(["map", str(world), "--png", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    state = gmap.world_map_state(load_world(world))
    assert state["player"] == load_world(world).spec.player_start
    assert all(n["trust"] == "unknown" for n in state["npcs"])
    _check_picture(out, state)


def test_locked_exits_are_drawn_dashed_in_their_colour(tmp_path):
    state = gmap.world_map_state(load_world(MINI))
    assert ["vault", "yard", "locked"] in state["exits"] and ["hall", "yard", "open"] in state["exits"]
    out = gmap.save_png(state, tmp_path / "mini.png")
    img = pygame.image.load(str(out))
    geo = gmap.geometry(state)

    def colours(a, b):
        (ax, ay), (bx, by) = geo.centre(a), geo.centre(b)
        return {_pixel(img, (ax + (bx - ax) * t / 100, ay + (by - ay) * t / 100)) for t in range(101)}

    assert gmap.LOCKED_EXIT in colours("yard", "vault") and gmap.BACKGROUND in colours("yard", "vault")
    assert gmap.OPEN_EXIT in colours("yard", "hall") and gmap.LOCKED_EXIT not in colours("yard", "hall")


def _mini_with(tmp_path: Path, cells: dict[str, str]) -> Path:
    text = (MINI / "world.toml").read_text(encoding="utf-8")
    for lid, cell in cells.items():
        header = f"[locations.{lid}]\n"
        assert header in text
        text = text.replace(header, f"{header}map = {cell}\n")
    return write_world(tmp_path / "mapped", text)


def test_layout_honours_map_coordinates(tmp_path):
    folder = _mini_with(
        tmp_path, {"yard": "{ x = 4, y = 2 }", "shop": "{ x = 0, y = 0 }", "vault": "{ x = 4, y = 2 }"}
    )  # vault clashes with yard: moved
    world = load_world(folder)
    cells = gmap.layout(world.spec)
    assert cells["yard"] == (4, 2) and cells["shop"] == (0, 0)
    assert cells["vault"] != (4, 2) and max(abs(cells["vault"][0] - 4), abs(cells["vault"][1] - 2)) == 1
    assert cells["hall"] == (3, 2)  # no cell given: west of the yard, from its exit
    assert len(set(cells.values())) == len(cells)
    state = gmap.world_map_state(world)
    geo = gmap.geometry(state)
    assert geo.centre("shop")[0] < geo.centre("hall")[0] < geo.centre("yard")[0]
    assert geo.centre("shop")[1] < geo.centre("yard")[1]
    out = tmp_path / "mapped.png"
    assert main(["map", str(folder), "--png", str(out)]) == 0
    _check_picture(out, state)


def test_map_cells_are_validated(tmp_path):
    from game.core.errors import WorldError

    with pytest.raises(WorldError):
        load_world(_mini_with(tmp_path, {"yard": "{ x = 1, y = 2, z = 3 }"}))


def _tangled_world(tmp_path: Path) -> Path:
    """Exits that disagree (two rooms both north of the hub), one-way exits, up and down, and a
    part of the world no exit reaches."""
    rooms = {
        "hub": {"north": "a", "east": "b", "up": "c", "down": "d", "in": "e", "out": "f"},
        "a": {"south": "hub", "east": "g"},
        "b": {"north": "g", "west": "hub"},
        "g": {"north": "h"},
        "h": {},
        "c": {"north": "a"},
        "d": {},
        "e": {"north": "hub"},
        "f": {},
        "island": {"east": "islet"},
        "islet": {"west": "island"},
    }
    lines = ['id = "tangle-v1"', 'title = "Tangle"', 'start = "hub"', ""]
    for lid, exits in rooms.items():
        lines.append(f'[locations.{lid}]\nname = "{lid.title()}"\ndescription = "A room."')
        lines.append("exits = { " + ", ".join(f'{d} = "{to}"' for d, to in exits.items()) + " }\n")
    return write_world(tmp_path / "tangle", "\n".join(lines))


def test_layout_without_coordinates_is_deterministic_and_collision_free(tmp_path):
    for folder in [*WORLD_PATHS, _tangled_world(tmp_path)]:
        first = gmap.layout(load_world(folder).spec)
        again = gmap.layout(load_world(folder).spec)
        assert first == again
        assert set(first) == set(load_world(folder).spec.locations)
        assert len(set(first.values())) == len(first), folder.name
    harbor = gmap.layout(load_world(WORLDS / "harbor").spec)
    x, y = harbor["quay"]
    assert harbor["market_row"] == (x, y - 1) and harbor["harbormaster_office"] == (x + 1, y)
    assert harbor["net_sheds"] == (x - 1, y) and harbor["pier"] == (x, y + 1)
    tangle = gmap.layout(load_world(tmp_path / "tangle").spec)
    assert tangle["hub"] == (0, 0) and tangle["a"] == (0, -1) and tangle["b"] == (1, 0)
    assert tangle["island"][1] > max(y for lid, (_, y) in tangle.items() if lid not in ("island", "islet"))
    state = gmap.world_map_state(load_world(tmp_path / "tangle"))
    _check_picture(gmap.save_png(state, tmp_path / "tangle.png"), state)


@pytest.mark.embeddings
def test_a_save_made_with_default_settings_draws_as_it_loads(tmp_path):
    """`parley play` with no memory flags (the MiniLM embedder) makes the save; `parley map` reads
    it the way `--load` does, Σ-Mem's trust included."""
    saves = tmp_path / "saves"
    moves = "ask jory about strongbox\nnorth\nnorth\ndown\nexamine coffin\n"  # Jory's crypt story, then the coffin
    r = parley("play", "worlds/harbor", "--plain", "--seed", "0", input=moves, env={"PARLEY_SAVES": str(saves)})
    assert r.returncode == 0 and "Progress saved to" in r.stdout, r.stderr
    data = json.loads((saves / "autosave-harbor-v1" / "save.json").read_text())
    assert data["components"]["memory"]["embedder"] == "minilm"  # the default settings
    out = tmp_path / "now.png"
    assert main(["map", "autosave-harbor-v1", "--saves-dir", str(saves), "--png", str(out)]) == 0
    state, _world, _folder = gmap.save_map_state("autosave-harbor-v1", saves)
    assert state["player"] == "crypt" and state["turn"] == data["turn"] == 5
    assert {n["id"]: n["trust"] for n in state["npcs"]}["jory"] == "lying"
    _check_picture(out, state)


def _harbor_save(saves: Path) -> Path:
    from game.play.session import Game

    game = Game(WORLDS / "harbor", seed=0)
    game.submit("north")  # to Market Row
    game.facts.sigma.write("treasure", {"ilse": -1, "hobb": 1})
    return game.save("mapped", saves)


def test_a_save_shows_where_everyone_is_and_whom_to_trust(tmp_path):
    folder = _harbor_save(tmp_path / "saves")
    before = (folder / "save.json").read_bytes()
    out = tmp_path / "save.png"
    assert main(["map", "mapped", "--saves-dir", str(tmp_path / "saves"), "--png", str(out)]) == 0
    assert (folder / "save.json").read_bytes() == before  # read, never changed
    state, world, _ = gmap.save_map_state("mapped", tmp_path / "saves")
    saved = json.loads(before)["engine"]["state"]["where"]
    assert state["player"] == "market_row" == saved["player"] and state["turn"] == 1
    trust = {n["id"]: n["trust"] for n in state["npcs"]}
    assert trust["ilse"] == "lying" and trust["hobb"] == "trusted"
    assert {trust[n] for n in trust if n not in ("ilse", "hobb")} == {"unknown"}
    assert all(n["at"] == saved[n["id"]] for n in state["npcs"])
    _check_picture(out, state)
    img = pygame.image.load(str(out))
    found = {}
    for row in gmap.markers(state).values():
        for kind, ident, (x, y) in row:
            if kind == "npc":
                found[ident] = sum(
                    _pixel(img, (x + dx, y + dy)) == gmap.TRUST[trust[ident]]
                    for dx in range(-8, 9)
                    for dy in range(-8, 9)
                )
    assert set(found) == set(trust)
    assert all(count > 80 for count in found.values()), found
    # the same save by its folder, too
    assert main(["map", str(folder), "--png", str(tmp_path / "again.png")]) == 0


def test_bad_input_exit_codes(tmp_path, capsys):
    def run(*args: str) -> tuple[int, str]:
        code = main(["map", *args])
        return code, capsys.readouterr().err

    png = str(tmp_path / "m.png")
    assert run(str(tmp_path / "nowhere"), "--png", png)[0] == 2
    code, err = run("no-such-world-or-save", "--png", png, "--saves-dir", str(tmp_path))
    assert code == 2 and "no world or save" in err
    (tmp_path / "empty").mkdir()
    code, err = run(str(tmp_path / "empty"), "--png", png)
    assert code == 2 and "neither world.toml nor save.json" in err
    code, err = run(str(MINI), "--png", str(tmp_path))
    assert code == 2 and "is a folder" in err
    world_toml = MINI / "world.toml"
    text = world_toml.read_bytes()
    code, err = run(str(MINI), "--out", str(world_toml))
    assert code == 2 and world_toml.read_bytes() == text
    copy = write_world(tmp_path / "copy", text.decode("utf-8"))
    (copy / "map.png").write_bytes(b"not a picture")
    code, err = run(str(copy), "--png", str(copy / "map.png"))
    assert code == 2 and "would overwrite" in err and (copy / "map.png").read_bytes() == b"not a picture"
    code, err = run(str(MINI), "--png", str(tmp_path / "missing" / "m.png"))
    assert code == 2 and "no folder" in err
    broken = write_world(tmp_path / "broken", 'id = "broken-v1"\n')
    assert run(str(broken), "--png", png)[0] == 2
    folder = _harbor_save(tmp_path / "saves")
    data = json.loads((folder / "save.json").read_text(encoding="utf-8"))
    data["engine"]["state"]["score"] = 999
    (folder / "save.json").write_text(json.dumps(data), encoding="utf-8")
    code, err = run(str(folder), "--png", png)
    assert code == 2 and "hash" in err
    assert not Path(png).exists()
    with pytest.raises(SystemExit) as e:
        main(["map", str(MINI)])  # no --png
    assert e.value.code == 2


# --- the live map ---------------------------------------------------------------------


def test_state_file_writer_and_reader(tmp_path):
    from game.map.window import read_state, write_state

    state = gmap.world_map_state(load_world(MINI))
    path = tmp_path / "map.json"
    write_state(path, state)
    assert read_state(path) == json.loads(json.dumps(state))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.json"]  # no temporary file left
    assert read_state(tmp_path / "missing.json") is None
    (tmp_path / "half.json").write_text(json.dumps(state)[:40], encoding="utf-8")
    assert read_state(tmp_path / "half.json") is None
    (tmp_path / "other.json").write_text('{"rooms": []}', encoding="utf-8")
    assert read_state(tmp_path / "other.json") is None


def test_follower_keeps_the_state_file_up_to_date(tmp_path):
    from game.map.window import MapFollower, read_state
    from game.play.session import Game

    game = Game(MINI, seed=0)
    notes: list[str] = []
    follower = MapFollower(game, notes.append, window=False)
    try:
        assert follower.process is None
        assert read_state(follower.path)["player"] == "yard"
        reply = game.submit("north")
        follower(reply)
        state = read_state(follower.path)
        assert state["player"] == "shop" and state["turn"] == 1
        other = Game(MINI, seed=1)
        follower(None, other)  # after a load: the loaded game
        assert read_state(follower.path)["turn"] == 0
        follower.game.engine = None  # a state that cannot be built is reported once; the game goes on
        follower(None)
        follower(None)
        assert len(notes) == 1 and "could not be updated" in notes[0]
    finally:
        follower.close()
    assert not follower.path.exists() and not follower.folder.exists()


def test_no_display_means_no_map_and_the_game_goes_on(tmp_path):
    from game.map.window import map_follower, map_unavailable
    from game.play.session import Game

    assert "no display" in map_unavailable()
    notes: list[str] = []
    follower = map_follower(Game(MINI, seed=0), notes.append)
    assert follower(None) is None and len(notes) == 1 and "no display" in notes[0]


def test_console_calls_on_reply():
    from game.cli.console import run_console
    from game.play.session import Game

    lines = iter(["north", "look", "quit"])
    seen: list = []
    run_console(
        Game(MINI, seed=0),
        read=lambda _: next(lines),
        write=lambda _: None,
        on_reply=lambda reply, game=None: seen.append(reply.kind),
    )
    assert seen == ["turn", "turn", "meta"]


def test_play_with_map_and_no_display_plays_on(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PARLEY_SAVES"] = str(tmp_path)
    out = parley("play", str(MINI), "--plain", "--no-memory", "--map", input="north\nquit\n", env=env)
    assert out.returncode == 0, out.stderr
    assert "map: no display" in out.stderr


def test_map_modules_do_not_import_pygame():
    import subprocess
    import sys

    code = (
        "import sys, game.map.render, game.map.window, game.cli.map, game.cli.console, game.cli.commands; "
        "print('pygame' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_name_is_whole_and_inside_the_picture_and_markers_differ(tmp_path):
    """No room name or legend entry is cut ("Harbormaster's O..."), the picture holds every text's
    box, every NPC is in the legend under a marker letter no one else has (Old Hobb and Orla
    Gannet are not both "O"), and up/down exits are marked in the rooms they join."""
    for world in WORLD_PATHS:
        state = gmap.world_map_state(load_world(world))
        geo = gmap.geometry(state)
        texts = gmap.labels(state, geo)
        for lid, room in state["rooms"].items():
            assert " ".join(t for where, t, _ in texts if where == f"room:{lid}") == room["name"]
        for _, text, (left, top, w, h) in texts:
            assert "..." not in text, text
            assert 0 <= left and left + w <= geo.size[0] and 0 <= top and top + h <= geo.size[1], text
        legend = [t for where, t, _ in texts if where == "legend"]
        assert all(n["name"] in legend for n in state["npcs"]) and "up / down" in legend
        marks = [n["mark"] for n in state["npcs"]]
        assert len(set(marks)) == len(marks), marks
    harbor = gmap.world_map_state(load_world(WORLDS / "harbor"))
    marks = {n["name"]: n["mark"] for n in harbor["npcs"]}
    assert marks["Old Hobb"] != marks["Orla Gannet"]
    assert ["crypt", "chapel"] in harbor["levels"] and ["sea_cave", "shingle_beach"] in harbor["levels"]
    out = gmap.save_png(harbor, tmp_path / "harbor.png")
    img = pygame.image.load(str(out))
    geo = gmap.geometry(harbor)
    assert img.get_size() == geo.size
    for lid in ("crypt", "chapel", "sea_cave"):  # the arrow that says a way up or down is here
        left, top, w, h = geo.rooms[lid]
        area = [
            _pixel(img, (x, y)) for x in range(left + w - 32, left + w - 6) for y in range(top + h // 2, top + h - 20)
        ]
        assert gmap.STAIRS in area, lid
