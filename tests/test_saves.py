"""Saves: atomic writes, clear errors on damage (file left untouched), replay checks the state hash."""

from __future__ import annotations

import json

import pytest

from game.core.errors import SaveError
from game.play.episode import run_script, script_lines
from game.play.persistence import replay
from game.play.save_files import FORMAT_VERSION, list_saves, read_save, remove, resolve
from game.play.session import Game
from tests.conftest import ROOT, typed

MINI = ROOT / "tests" / "fixtures" / "mini"
SCRIPT = str(ROOT / "tests" / "fixtures" / "mini_win.txt")


def half_played(seed=0):
    game = Game(MINI, seed=seed)
    lines = script_lines(SCRIPT)
    run_script(game, lines[:10], SCRIPT)
    return game, lines


def test_save_load_continue_matches_uninterrupted(tmp_path):
    game, lines = half_played()
    folder = game.save("mid", tmp_path)
    assert (folder / "save.json").is_file() and (folder / "transcript.jsonl").is_file()
    data = read_save(folder)
    assert (
        data["format_version"] == FORMAT_VERSION
        and data["world"]["id"] == "mini-v1"
        and data["turn"] == game.engine.state.turn
    )
    assert "rng" in data["engine"]
    loaded = Game.load("mid", tmp_path)
    assert loaded.engine.state_hash() == game.engine.state_hash()
    run_script(game, lines[10:], SCRIPT)
    run_script(loaded, lines[10:], SCRIPT)
    assert loaded.engine.state_hash() == game.engine.state_hash()
    assert loaded.engine.state.won
    assert loaded.transcript.text() == game.transcript.text()


def test_replay_matches_and_detects_tampering(tmp_path):
    from tests.conftest import reseal_transcript

    game, _ = half_played()
    folder = game.save("r", tmp_path)
    ok, got, want = replay("r", tmp_path)
    assert ok and got == want
    tpath = folder / "transcript.jsonl"
    lines = tpath.read_text().splitlines()
    idx = next(i for i, ln in enumerate(lines) if '"verb":"take"' in ln)
    del lines[idx]
    text = "\n".join(lines) + "\n"
    tpath.write_text(text)
    with pytest.raises(SaveError, match="does not match save.json"):
        replay("r", tmp_path)  # a transcript edited on its own is caught by its digest
    reseal_transcript(folder, text)  # a consistent forgery: replay shows the state differs
    ok, got, want = replay("r", tmp_path)
    assert not ok and got != want


def test_missing_transcript_is_refused(tmp_path):
    game, _ = half_played()
    folder = game.save("t", tmp_path)
    (folder / "transcript.jsonl").unlink()
    with pytest.raises(SaveError, match="transcript.jsonl: missing"):
        Game.load("t", tmp_path)


def test_agent_state_is_covered_by_the_hash(tmp_path):
    from tests.conftest import WORLDS

    game = Game(WORLDS / "harbor", seed=1)
    assert game.agents, "harbor has NPCs that act"
    run_script(game, [(1, "wait"), (2, "wait")], "x")
    folder = game.save("h", tmp_path)
    data = json.loads((folder / "save.json").read_text())
    name, st = next((k, v) for k, v in data["components"]["agents"].items() if v)
    key = next(iter(st))
    st[key] = 12345 if not isinstance(st[key], dict) else {**st[key], "x": 1}
    (folder / "save.json").write_text(json.dumps(data))
    with pytest.raises(SaveError):
        Game.load("h", tmp_path)


def test_remove_only_touches_saves(tmp_path):
    outside = tmp_path / "victim"
    outside.mkdir()
    (outside / "save.json").write_text("{}")
    (outside / "notes.txt").write_text("keep me")
    saves = tmp_path / "saves"
    saves.mkdir()
    for ref in (str(outside), "../victim", ".."):
        with pytest.raises(SaveError):
            remove(ref, saves)
    assert (outside / "notes.txt").read_text() == "keep me"
    game, _ = half_played()
    folder = game.save("mine", saves)
    (folder / "extra.txt").write_text("user file")
    remove("mine", saves)
    assert not (folder / "save.json").exists() and (folder / "extra.txt").exists()


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "missing_key", "wrong_type", "version"])
def test_damaged_save_is_reported_and_untouched(tmp_path, damage):
    game, _ = half_played()
    folder = game.save("bad", tmp_path)
    path = folder / "save.json"
    text = path.read_text()
    data = json.loads(text)
    if damage == "truncate":
        text = text[: len(text) // 2]
    elif damage == "garbage":
        text = "\x00\x01 not json"
    elif damage == "empty":
        text = ""
    elif damage == "missing_key":
        del data["engine"]
        text = json.dumps(data)
    elif damage == "wrong_type":
        data["turn"] = "seven"
        text = json.dumps(data)
    else:
        data["format_version"] = 99
        text = json.dumps(data)
    path.write_text(text)
    with pytest.raises(SaveError) as ei:
        Game.load("bad", tmp_path)
    assert "save.json" in ei.value.message and ei.value.exit_code == 2
    assert path.read_text() == text  # left exactly as it was


def test_edited_state_fails_hash_check(tmp_path):
    game, _ = half_played()
    folder = game.save("edit", tmp_path)
    data = json.loads((folder / "save.json").read_text())
    data["engine"]["state"]["score"] = 999
    (folder / "save.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match="state hash mismatch"):
        Game.load("edit", tmp_path)


def test_atomic_write_keeps_old_file_on_failure(tmp_path, monkeypatch):
    import os

    game, _ = half_played()
    folder = game.save("atom", tmp_path)
    before = (folder / "save.json").read_text()

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    run_script(game, [(1, "wait")], "x")
    with pytest.raises(OSError):
        game.save("atom", tmp_path)
    assert (folder / "save.json").read_text() == before
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == []


def test_write_atomic_text_bytes_mode_and_folders(tmp_path):
    import os
    import stat

    from game.core.files import open_dir, write_atomic

    text = tmp_path / "new" / "deeper" / "a.txt"
    assert write_atomic(text, "é\r\nline\n") == text  # missing folders are made
    assert text.read_bytes() == "é\r\nline\n".encode()  # no newline translation
    write_atomic(text, "é", encoding="latin-1")
    assert text.read_bytes() == b"\xe9"
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "b.bin", b"\x00\xff", mode=0o640)
        write_atomic(tmp_path / "c.txt", "plain")
    finally:
        os.umask(old)
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    assert stat.S_IMODE((tmp_path / "b.bin").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "c.txt").stat().st_mode) == 0o644  # as open() makes it
    with open_dir(tmp_path) as dfd:  # a caller that holds the folder open (as a save does)
        write_atomic(tmp_path / "c.txt", "again", dir_fd=dfd)
    assert (tmp_path / "c.txt").read_text() == "again"
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_write_atomic_failure_keeps_the_old_file_and_names_it(tmp_path):
    from game.core.files import write_atomic

    target = tmp_path / "busy"
    (target / "inside").mkdir(parents=True)  # replacing a folder that holds files fails for real
    with pytest.raises(OSError) as info:
        write_atomic(target, "text")
    assert info.value.filename == str(target) and ".tmp" not in str(info.value)
    assert (target / "inside").is_dir() and sorted(p.name for p in tmp_path.iterdir()) == ["busy"]
    kept = tmp_path / "kept.txt"
    kept.write_text("old")
    with pytest.raises(UnicodeEncodeError):  # nothing is written when the text does not encode
        write_atomic(kept, "\ud800")
    assert kept.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["busy", "kept.txt"]


def test_list_resolve_remove(tmp_path):
    game, _ = half_played()
    game.save("one", tmp_path)
    game.save("Two Words", tmp_path)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "save.json").write_text("{")
    infos = {i.slug: i for i in list_saves(tmp_path)}
    assert set(infos) == {"one", "two-words", "broken"}
    assert infos["broken"].world_id == "(corrupt)" and infos["one"].world_id == "mini-v1"
    with pytest.raises(SaveError) as ei:
        resolve("onee", tmp_path)
    assert ei.value.hint == "did you mean 'one'?"
    remove("one", tmp_path)
    assert not (tmp_path / "one").exists()


def test_world_changed_since_save_is_refused(tmp_path):
    import shutil

    wcopy = tmp_path / "mini"
    shutil.copytree(MINI, wcopy)
    game = Game(wcopy, seed=0)
    game.save("s", tmp_path / "saves")
    with open(wcopy / "world.toml", "a") as fh:
        fh.write("\n# edited\n")
    with pytest.raises(SaveError, match="changed since this save"):
        Game.load("s", tmp_path / "saves")


# --- crash-safe layout, hash coverage, names, overwrite question, confined load ---------------


def console(game, saves, lines):
    """Run the line console on ``lines``; returns everything it wrote and the prompts it asked."""
    from game.cli.console import run_console

    out, prompts = [], []
    read = typed(lines, prompts)

    run_console(game, saves_base=str(saves), read=read, write=out.append)
    return "\n".join(out), prompts


@pytest.mark.parametrize("field", ["seed", "seed_everywhere", "world_hash", "turn"])
def test_edited_seed_turn_or_world_is_refused(tmp_path, field):
    game, _ = half_played()
    folder = game.save("e", tmp_path)
    data = json.loads((folder / "save.json").read_text())
    if field == "seed":
        data["seed"] += 1  # the NPC agents are seeded from it
        match = "seed 1 does not match"
    elif field == "seed_everywhere":
        data["seed"] += 1
        data["engine"]["seed"] += 1
        match = "state hash mismatch"
    elif field == "world_hash":
        data["world"]["hash"] = "0" * len(data["world"]["hash"])
        match = "state hash mismatch"
    else:
        data["turn"] += 1
        data["engine"]["state"]["turn"] += 1
        match = "state hash mismatch"
    (folder / "save.json").write_text(json.dumps(data))
    for attempt in (lambda: Game.load("e", tmp_path), lambda: replay("e", tmp_path)):
        with pytest.raises(SaveError, match=match) as ei:
            attempt()
        assert ei.value.hint and "save.json" in ei.value.message


def test_a_save_hashed_the_old_way_still_loads(tmp_path):
    """Saves made before the hash covered seed, turn and world keep loading."""
    from game.play.persistence import save_hash

    game, _ = half_played()
    folder = game.save("old", tmp_path)
    data = json.loads((folder / "save.json").read_text())
    data["state_hash"] = save_hash(data["engine"], data["components"])
    (folder / "save.json").write_text(json.dumps(data))
    assert Game.load("old", tmp_path).engine.state_hash() == game.engine.state_hash()
    assert replay("old", tmp_path)[0]


@pytest.mark.parametrize("name", [".", "..", "...", "-", "_", "/", "./", "?!", "  ", ""])
def test_names_without_a_letter_or_digit_are_refused(tmp_path, name):
    from game.core.errors import InputError
    from game.play.save_files import slugify

    with pytest.raises(InputError) as ei:
        slugify(name)
    assert "not a usable save name" in ei.value.message and "letter or digit" in ei.value.hint
    game, _ = half_played()
    with pytest.raises(InputError):
        game.save(name, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_save_dots_in_the_console_is_refused_not_a_quicksave(tmp_path):
    game, _ = half_played()
    out, _ = console(game, tmp_path, ["save .", "save ..", "save ...", "quit"])
    assert out.count("is not a usable save name") == 3 and "letter or digit" in out
    assert not (tmp_path / "quicksave").exists()
    out, _ = console(game, tmp_path, ["save", "quit"])  # no name at all still means quicksave
    assert (tmp_path / "quicksave" / "save.json").is_file()


def test_overwriting_a_save_asks_and_no_keeps_it(tmp_path):
    game, _ = half_played()
    other = Game(MINI, seed=0)
    other.save("slot", tmp_path)
    before = (tmp_path / "slot" / "save.json").read_text()
    out, prompts = console(game, tmp_path, ["save slot", "n", "quit"])
    assert "Overwrite save 'slot' (mini-v1, turn 0)? [y/N] " in prompts
    assert "Not saved" in out and (tmp_path / "slot" / "save.json").read_text() == before
    for answer in ("", "nope", "yes please"):  # anything but y/yes keeps it
        console(game, tmp_path, ["save slot", answer, "quit"])
        assert (tmp_path / "slot" / "save.json").read_text() == before
    console(game, tmp_path, ["save slot"])  # the question at the end of input: kept too
    assert (tmp_path / "slot" / "save.json").read_text() == before
    out, prompts = console(game, tmp_path, ["save slot", "Y", "wait", "save slot", "save slot", "quit"])
    assert sum(p.startswith("Overwrite") for p in prompts) == 1, "its own saves are not asked about again"
    assert out.count("Saved to") == 3
    assert Game.load("slot", tmp_path).engine.state.turn == game.engine.state.turn


def test_autosave_never_asks(tmp_path):
    game, _ = half_played()
    Game(MINI, seed=0).save("autosave-mini-v1", tmp_path)
    out, prompts = console(game, tmp_path, ["wait"])
    assert not any(p.startswith("Overwrite") for p in prompts) and "Progress saved" in out
    assert Game.load("autosave-mini-v1", tmp_path).engine.state.turn == game.engine.state.turn


def test_load_in_the_game_stays_inside_the_saves_folder(tmp_path):
    saves = tmp_path / "saves"
    elsewhere, _ = half_played()
    outside = elsewhere.save("outside", tmp_path / "elsewhere")
    game = Game(MINI, seed=0)
    game.save("inside", saves)
    lines = [f"load {outside}", "load ../elsewhere/outside", "load ..", "load ~/x", "load ...", "quit"]
    out, _ = console(game, saves, lines)
    assert out.count("not a path") == 4 and "parley play --load PATH" in out
    assert "is not a usable save name" in out and "Loaded" not in out
    out, _ = console(game, saves, ["load inside", "quit"])
    assert "Loaded. Turn 0." in out
    # a path given on the command line may point anywhere
    assert Game.load(outside).engine.state_hash() == elsewhere.engine.state_hash()
    assert Game.load(str(outside / "save.json")).engine.state.turn == elsewhere.engine.state.turn


def test_load_by_the_name_that_was_saved(tmp_path):
    game, _ = half_played()
    game.save("Slot Two", tmp_path)
    assert Game.load("Slot Two", tmp_path, inside=True).engine.state_hash() == game.engine.state_hash()
    remove("Slot Two", tmp_path)
    assert not (tmp_path / "slot-two").exists()


def test_leftovers_are_cleaned_on_load_and_save_and_others_files_kept(tmp_path):
    from game.play.save_files import pending_name, read_save, transcript_digest

    game, _ = half_played()
    folder = game.save("lo", tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == [".lock", "save.json", "transcript.jsonl"]
    junk = [
        ".save.json.k3j4h5.tmp",
        ".transcript.jsonl.aaaa.tmp",
        ".transcript-0123456789abcdef.jsonl.b.tmp",
        "transcript-0123456789abcdef.jsonl",
    ]
    mine = ["notes.txt", "transcript-notes.jsonl", ".hidden.tmp", "transcript-0123.jsonl", "save.json.bak"]
    for name in junk + mine:
        (folder / name).write_text("x")
    Game.load("lo", tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted([".lock", "save.json", "transcript.jsonl", *mine])
    for name in junk:
        (folder / name).write_text("x")
    run_script(game, [(1, "wait")], "x")
    game.save("lo", tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted([".lock", "save.json", "transcript.jsonl", *mine])
    # a save stopped between its commit and the rename: the transcript is under its digest
    tpath = folder / "transcript.jsonl"
    data = read_save(folder)
    tpath.rename(folder / pending_name(data["transcript"]))
    (folder / "transcript.jsonl").write_text("the older transcript\n")
    assert replay("lo", tmp_path)[0]  # reads the pending file, then renames it into place
    assert transcript_digest(tpath.read_text()) == data["transcript"]
    assert not (folder / pending_name(data["transcript"])).exists()
    remove("lo", tmp_path)  # rm takes our files, pending ones included, and leaves the rest
    for name in junk:
        (folder / name).write_text("x")
    assert sorted(p.name for p in folder.iterdir()) == sorted([*junk, *mine])


def test_remove_takes_generation_files_too(tmp_path):
    from game.play.save_files import pending_name, read_save

    game, _ = half_played()
    folder = game.save("g", tmp_path)
    (folder / pending_name(read_save(folder)["transcript"])).write_text("pending\n")
    (folder / ".save.json.zz.tmp").write_text("{")
    remove("g", tmp_path)
    assert not folder.exists()


def test_lone_surrogates_and_unicode_line_breaks_in_the_state_save_and_replay(tmp_path):
    """Was: UnicodeEncodeError in state_hash; and text with \\x85 or \\u2028 split a transcript
    record in two on load."""
    from game.core.types import PLAYER, Action, Verb
    from game.engine.state import canonical_json, state_hash

    game, _ = half_played()
    for text in ("bad \udcff\udcfe bytes", "split \ud83d\ude00 pair", "next\x85line\u2028and\u2029para"):
        game.act(Action(PLAYER, Verb.SAY, text=text))
    folder = game.save("odd", tmp_path)
    folder.joinpath("transcript.jsonl").read_text(encoding="utf-8")  # strict UTF-8 on disk
    loaded = Game.load("odd", tmp_path)
    assert loaded.engine.state_hash() == game.engine.state_hash()
    assert loaded.transcript.records == game.transcript.records
    assert replay("odd", tmp_path)[0]
    assert canonical_json({"a": "plain é 😀"}) == '{"a":"plain é 😀"}'  # ordinary text: as before
    assert state_hash("\ud83d\ude00") == state_hash("😀")


def test_a_continued_autosave_is_cleared_when_its_game_ends_and_the_hint_names_the_folder(tmp_path):
    """Quit mid-game (autosave), continue it, win: the autosave held the game before its end, so
    it is cleared and the next start offers nothing to continue. The line that says how to go on
    names the saves folder the game used."""
    from tests.conftest import ROOT, parley

    world, saves = ROOT / "tests" / "fixtures" / "mini", str(tmp_path / "s")
    lines = [x for x in (ROOT / "tests" / "fixtures" / "mini_win.txt").read_text().splitlines() if x and x[0] != "#"]
    first = parley(
        "play", str(world), "--plain", "--no-memory", "--saves-dir", saves, input="\n".join(lines[:3]) + "\n"
    )
    assert first.returncode == 0, first.stderr
    assert f"continue with: parley play --load autosave-mini-v1 --saves-dir {saves}" in first.stdout
    assert (tmp_path / "s" / "autosave-mini-v1" / "save.json").is_file()
    rest = "\n".join(lines[3:]) + "\n"
    won = parley("play", "--load", "autosave-mini-v1", "--plain", "--no-memory", "--saves-dir", saves, input=rest)
    assert won.returncode == 0, won.stderr
    assert "autosave it continued (autosave-mini-v1) is cleared" in won.stdout
    assert not (tmp_path / "s" / "autosave-mini-v1").exists()
