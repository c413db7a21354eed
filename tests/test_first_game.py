"""What a first-time player meets on the shipped worlds: unknown verbs are never guessed to be
save, load or quit; score and quests answer without a turn; 'use X'; a word that names scenery
here and a thing carried; ways that open by a key, by carrying or by light; NPCs telling what
they know about themselves in their own voice; thanks for a wanted gift."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.cli.console import run_console
from game.core.types import PLAYER
from game.engine.parser import Clarify, Command, Parser, Unknown
from game.play.session import Game
from game.play.worlds import load_world
from game.testing import standard_engine
from tests.conftest import WORLDS, typed

HARBOR = WORLDS / "harbor"
NEVER_GUESSED = {"save", "load", "restore", "quit", "exit", "q", "undo"}
_ENGINE = standard_engine(load_world(HARBOR), seed=0)


def harbor(where: str | None = None, carry: tuple[str, ...] = ()) -> Game:
    game = Game(HARBOR, seed=0)
    for item in carry:
        game.engine.state.item_at[item] = PLAYER
    if where is not None:
        game.engine.state.where[PLAYER] = where
    return game


# --- a. unknown verbs, score, quests, use --------------------------------------------------------


@pytest.mark.parametrize("typed", ["quests", "score", "use", "quite", "restor", "sav", "lod", "exitt", "undoo"])
def test_an_unknown_verb_is_never_guessed_to_be_save_load_or_quit(typed):
    got = Parser().parse(typed, _ENGINE.scope())
    hint = re.search(r"Did you mean '([^']+)'", getattr(got, "message", "") or "")
    assert hint is None or hint.group(1) not in NEVER_GUESSED, (typed, got)


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"[a-z]{2,9}", fullmatch=True))
def test_no_word_is_ever_answered_with_a_guess_of_save_load_or_quit(word):
    got = Parser().parse(word, _ENGINE.scope())
    if isinstance(got, Unknown):
        hint = re.search(r"Did you mean '([^']+)'", got.message)
        assert hint is None or hint.group(1) not in NEVER_GUESSED, (word, got.message)


def test_score_and_quests_answer_without_a_turn():
    game = harbor()
    game.engine.state.score = 10
    game.engine.state.quests_done.append("light_in_the_dark")
    score = game.submit("score")
    quests = game.submit("quests")
    assert game.engine.state.turn == 0
    assert score.kind == quests.kind == "meta"
    assert (
        score.lines[0].startswith("You have 10 of ")
        and "Quests done: 1 of 3 (A Light Against the Dark)" in (score.lines[0])
    )
    text = quests.lines[0]
    assert "The Gannet's Strongbox: Find the drowned captain's strongbox" in text and "[ ] Open the strongbox" in text
    assert text.endswith("Done: A Light Against the Dark.")
    from game.core.phrasing import HELP_TEXT
    from tests.conftest import ROOT

    guide = (ROOT / "docs" / "guide" / "playing.md").read_text()
    assert "score (your points" in HELP_TEXT and "quests (" in HELP_TEXT and "`score`, `quests`" in guide


def test_score_and_quests_in_the_line_console():
    out: list[str] = []
    run_console(harbor(), read=typed(["score", "quest", "quit"]), write=out.append)
    text = "\n".join(out)
    assert "You have 0 of " in text and "Quests done: 0 of 3." in text
    assert "A Promise Kept: Captain Gannet swore" in text


def test_use_lights_a_light_source_and_says_what_else_can_be_done():
    game = harbor("shingle_beach", carry=("lantern", "brass_key"))
    assert game.submit("use lantern").lines[0] == "You light the storm lantern. It burns bright."
    said = game.submit("use brass key").lines[0]
    assert said.startswith("Say how to use the brass key. You can: examine brass key, drop brass key")
    assert game.engine.state.turn == 1


# --- b. a word for scenery here and for a thing carried -------------------------------------------


def test_a_word_names_the_thing_here_called_so_before_the_carried_alias():
    game = harbor("lighthouse", carry=("lantern",))
    assert game.submit("x lamp").lines[0].startswith("The great lamp is cold")
    assert game.submit("x lantern").lines[0].startswith("A brass storm lantern")
    assert game.submit("light lamp").lines[0] == "You light the storm lantern. It burns bright."


def test_scenery_here_and_a_thing_carried_that_answer_alike_are_asked_about():
    """Neither named so by its own name: the parser asks which, and the answer picks."""
    from game.engine.nouns import Noun, Scope

    scope = Scope(
        nouns=(
            Noun("scenery:lamp", "great beacon", ("lamp",), kind="scenery", portable=False),
            Noun("lantern", "storm lantern", ("lamp",), where="inventory"),
        )
    )
    parser = Parser()
    question = parser.parse("x lamp", scope)
    assert isinstance(question, Clarify) and question.question == "Which lamp: the great beacon or the storm lantern?"
    picked = parser.parse("storm", scope)
    assert isinstance(picked, Command) and picked.action.obj == "lantern"
    # a thing lying here still wins over the scenery of its name
    here = Scope(nouns=(scope.nouns[0], Noun("lantern", "storm lantern", ("lamp",), where="room")))
    got = Parser().parse("x lamp", here)
    assert isinstance(got, Command) and got.action.obj == "lantern"


# --- c. ways that open by a key, by carrying, by light --------------------------------------------


def test_open_on_a_way_says_whether_it_is_open_and_what_opens_it():
    game = harbor("shingle_beach")
    assert game.submit("open cleft").lines[0] == "There is no going down without a light."
    assert game.submit("open door").lines[0] == (
        "The lighthouse door won't open. It is locked: unlock the lighthouse door with its key."
    )
    for item in ("lantern", "lighthouse_key", "brass_key"):
        game.engine.state.item_at[item] = PLAYER
    assert "Your storm lantern is not lit: try 'light storm lantern'." in game.submit("open cleft").lines[0]
    assert game.submit("unlock cleft with brass key").lines[0] == (
        "The brass key gives no light to go down by. There is no going down without a light."
    )
    assert game.submit("light lantern").lines[0] == "You light the storm lantern. It burns bright."
    for line in ("open cleft", "unlock cleft with lantern"):
        said = game.submit(line).lines[0]
        assert said == "Your storm lantern lights the way down: go down.", line
        assert "key" not in said
    game.submit("unlock door with lighthouse key")
    assert game.submit("open door").lines[0] == "The lighthouse door is open: go up."
    assert game.submit("d").lines[0].startswith("The Sea Cave.")


def test_a_way_opened_by_carrying_says_so(tmp_path):
    import shutil

    folder = tmp_path / "harbor"
    shutil.copytree(HARBOR, folder)
    text = (folder / "world.toml").read_text()
    (folder / "world.toml").write_text(
        text.replace('name = "lighthouse door"', 'name = "lighthouse door"\nopens = "carry"')
    )
    game = Game(folder, seed=0)
    game.engine.state.where[PLAYER] = "shingle_beach"
    assert game.submit("open door").lines[0] == (
        "The lighthouse door won't open. It lets by only whoever carries the right thing."
    )
    game.engine.state.item_at["lighthouse_key"] = PLAYER
    assert game.submit("open door").lines[0] == "The lighthouse door is open: go up."


# --- d. NPCs speak of themselves in the first person ----------------------------------------------


def test_an_npc_tells_a_fact_about_itself_in_the_first_person_and_the_fact_keeps_its_words():
    game = Game(HARBOR, seed=0)
    game.engine.state.where[PLAYER] = "chandlery"
    said = game.submit("ask mara about supplies").lines[0]
    assert said == 'Mara Voss says: "I sell storm lanterns at the chandlery. I ask too much, but I\'ll haggle."'
    text = game.spec.facts["lantern_at_chandlery"].text
    assert text.startswith("Mara Voss sells storm lanterns")
    gate = game.facts.gate
    assert any(f.text == text for f in gate.facts.values())  # the gate and the journal read the fact's words
    assert any(e.text == text for _, entries in game.journal().sections for e in entries)


@pytest.mark.parametrize(
    ("text", "names", "said"),
    [
        (
            "The lighthouse key hangs on a nail in the net sheds. Hobb left it there the day they pensioned him off.",
            ["Old Hobb", "Hobb"],
            "The lighthouse key hangs on a nail in the net sheds. I left it there the day they pensioned me off.",
        ),
        (
            "Gannet trusted no bank. He left his spare brass key up in the lighthouse, where Hobb used to keep the lamp.",
            ["Old Hobb", "Hobb"],
            "Gannet trusted no bank. He left his spare brass key up in the lighthouse, where I used to keep the lamp.",
        ),
        (
            "Gannet trusted no bank. He left his spare brass key up in the lighthouse.",
            ["Orla Gannet", "Orla"],
            "Gannet trusted no bank. He left his spare brass key up in the lighthouse.",
        ),
        (
            "The best saffron in Qirath is Ozra's, on Spice Row.",
            ["Ozra Nayl", "Ozra"],
            "The best saffron in Qirath is mine, on Spice Row.",
        ),
        (
            "Kesh dreads promising repairs more than she loves gold. Let her off the warranty and she'll bend.",
            ["Kesh Aldane", "Kesh"],
            "I dread promising repairs more than I love gold. Let me off the warranty and I'll bend.",
        ),
        (
            "Kesh on Copper Lane has a fine astrolabe hanging in her doorway.",
            ["Kesh Aldane", "Kesh"],
            "I, on Copper Lane, have a fine astrolabe hanging in my doorway.",
        ),
        (
            "Hesper's caravan leaves at first light tomorrow. She has never waited for anyone.",
            ["Hesper Vane", "Hesper"],
            "My caravan leaves at first light tomorrow. I have never waited for anyone.",
        ),
        ("Kesh cheated Ozra. She never forgave her.", ["Kesh"], "I cheated Ozra. She never forgave her."),
    ],
)
def test_in_own_voice(text, names, said):
    from game.core.speech import in_own_voice

    assert in_own_voice(text, names, others=["Ozra Nayl", "Tavish Orme"]) == said


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Kesh", "Kesh's", "she", "her", "She'll", "has", "on", "Lane", ".", ","]) | st.text(max_size=8)
    )
)
def test_in_own_voice_never_raises_and_leaves_a_text_without_the_name_alone(parts):
    from game.core.speech import in_own_voice

    text = " ".join(parts)
    said = in_own_voice(text, ["Kesh Aldane", "Kesh"], others=["Ozra Nayl"])
    assert isinstance(said, str)
    if not re.search(r"(?<![\w'])Kesh(?![\w])", text):
        assert said == text
    else:
        assert not re.search(r"(?<![\w'])Kesh(?![\w])", said.replace("\x00", ""))


@pytest.mark.parametrize("world", ["harbor", "bazaar", "council"])
def test_no_npc_names_itself_when_telling_what_it_knows(world):
    from agents.npc import Voice

    spec = load_world(WORLDS / world).spec
    for nid, npc in spec.npcs.items():
        voice = Voice(spec, nid, 0)
        short = [w for w in npc.name.split() if w.lower() in {a.lower() for a in npc.aliases}]
        for fid in npc.knowledge:
            told = voice.told(fid)
            for name in (npc.name, *short):
                assert not re.search(rf"\b{re.escape(name)}\b", told), (nid, told)


# --- e. thanks for a wanted gift -----------------------------------------------------------------


def test_a_wanted_gift_is_thanked_in_the_npcs_own_words():
    game = harbor("tavern", carry=("rum_flask",))
    said = game.submit("give rum to hobb").lines[0]
    assert said.startswith('You give the flask of rum to Old Hobb. Old Hobb says: "Ahh.')
    game = harbor("chapel", carry=("widows_pearl",))
    said = game.submit("give pearl to orla").lines[0]
    assert 'Orla Gannet says: "He kept his promise' in said and "Just what I needed" not in said


def test_thanks_for_an_item_not_wanted_is_refused_at_load(tmp_path):
    import shutil

    from game.testing import check_world

    folder = tmp_path / "harbor"
    shutil.copytree(HARBOR, folder)
    hobb = folder / "npcs" / "hobb.toml"
    hobb.write_text(hobb.read_text().replace("thanks = { rum_flask", "thanks = { captains_coat"))
    problems = [str(p) for p in check_world(folder)]
    assert any("npcs.hobb.thanks.captains_coat" in p and "does not want" in p for p in problems), problems


# --- g. the end of a game speaks to the player -------------------------------------------------------


def test_the_end_of_a_game_says_what_is_kept_in_player_terms(tmp_path):
    from game.play.autosave import farewell

    bank = tmp_path / "insights.json"
    from memory.insights import InsightBank

    game = Game(HARBOR, seed=0, memory={"embedder": "hash"}, insights=InsightBank(bank))
    for line in ("n", "w", "take rum", "ask hobb about keys"):
        game.submit(line)
    game.engine.state.done = True
    out: list[str] = []
    farewell(game, str(tmp_path), out.append)
    assert out[0].startswith("Score 0, quests 0/3")
    assert re.fullmatch(r"The people of this world will remember this game next time \(\d+ lessons? kept\)\.", out[1])
    assert not any("insights" in line or str(tmp_path) in line for line in out), out
    assert bank.is_file()


# --- h. no help text or guide page gives a walkthrough away ------------------------------------------


def winning_moves() -> set[str]:
    """The lines of the shipped walkthroughs that do something to a thing or a person: not a bare
    move ("go east", "n"), a one-word command or a vote (both ways are listed everywhere)."""
    from tests.conftest import ROOT

    moves: set[str] = set()
    for path in sorted((ROOT / "tests" / "scripts").glob("*_win.txt")):
        for line in path.read_text().splitlines():
            said = " ".join(line.lower().split())
            if said and not said.startswith("#") and len(said.split()) > 1 and said.split()[0] not in ("go", "vote"):
                moves.add(said)
    return moves


def help_texts() -> dict[str, str]:
    import argparse

    from game.cli.arguments import build_parser

    parser = build_parser()
    texts = {"parley --help": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                texts[f"parley {name} --help"] = sub.format_help()
    return texts


def test_no_help_text_or_guide_page_quotes_a_winning_move():
    from tests.conftest import ROOT

    moves = winning_moves()
    assert len(moves) > 15 and "open strongbox" in moves
    pages = {str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "docs" / "guide").glob("*.md"))}
    found = []
    for where, text in {**help_texts(), **pages}.items():
        flat = " ".join(text.lower().split())
        found += [(where, m) for m in moves if re.search(rf"(?<![\w=-]){re.escape(m)}(?![\w=-])", flat)]
    assert not found, found
    for where, text in {**help_texts(), "docs/guide/playing.md": pages["docs/guide/playing.md"]}.items():
        assert not re.search(r"\w+_win\.txt", text.replace("mini_win.txt", "")), where
