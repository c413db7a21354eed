"""The one game API every front end uses: Game.submit -> Reply, Game.play_turn(seat),
play_episode(EpisodeConfig) -> EpisodeResult, player seats by name, TurnResult."""

from __future__ import annotations

import json
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

from game.core.errors import InputError
from game.core.types import PLAYER, Action, Decision, EventKind, TurnResult, Verb
from game.play.config import EpisodeConfig, GameConfig
from game.play.episode import EpisodeResult, play_episode
from game.play.session import Game
from tests.conftest import ROOT

MINI = str(ROOT / "tests" / "fixtures" / "mini")
MINI_WIN = str(ROOT / "tests" / "fixtures" / "mini_win.txt")


def always_north(prompt: str) -> str:
    """A text seat for the tests (named as tests.test_game_api:always_north)."""
    assert "Yard" in prompt or "Shop" in prompt
    return "I think I'll head off now.\nAction: go north"


def never_a_command(prompt: str) -> str:
    return "I would rather not say."


# --- Game.submit -------------------------------------------------------------------------------
def test_submit_plays_a_command_and_returns_what_the_player_sees():
    game = Game(MINI, seed=0, facts=False)
    reply = game.submit("take the brass key")
    assert reply.kind == "turn" and reply.typed and reply.action == Action(PLAYER, Verb.TAKE, obj="brass_key")
    assert reply.command == "take brass key" and reply.turn == 1
    assert reply.events and all(PLAYER in e.perceivers for e in reply.events)
    assert reply.lines == tuple(e.seen_by(PLAYER) for e in reply.events)
    assert any("brass key" in line.lower() for line in reply.lines)
    assert isinstance(reply.result, TurnResult)
    assert {e.seq for e in reply.events} <= {e.seq for e in reply.result.events}
    assert game.engine.state.item_at["brass_key"] == PLAYER


def test_submit_answers_questions_unknowns_and_meta_without_a_turn():
    game = Game(MINI, seed=0, facts=False)
    ask = game.submit("take key")  # an iron key and a brass key lie here
    assert ask.kind == "clarify" and ask.question and set(ask.options) == {"iron_key", "brass_key"}
    assert game.engine.state.turn == 0
    assert game.submit("brass").kind == "turn" and game.engine.state.item_at["brass_key"] == PLAYER
    unknown = game.submit("dance wildly")
    assert unknown.kind == "unknown" and "dance" in unknown.message and game.engine.state.turn == 1
    help_ = game.submit("help")
    assert help_.kind == "meta" and help_.meta == "help" and "Commands" in help_.text
    journal = game.submit("journal")
    assert journal.kind == "meta" and journal.journal is not None and journal.journal.empty
    save = game.submit("save my game")
    assert (save.kind, save.meta, save.arg) == ("meta", "save", "my game") and not save.lines
    assert (game.submit("quit").meta, game.engine.state.turn) == ("quit", 1)


def test_the_journal_is_data_the_console_draws_as_text():
    game = Game(MINI, seed=0)
    game.submit("ask lou about gem")
    journal = game.journal()
    assert not journal.empty
    titles = [t for t, _ in journal.sections]
    assert titles and all(entries for _, entries in journal.sections)
    from game.cli.console import journal as journal_text

    assert journal_text(game) == journal.text() and titles[0] in journal.text()


def test_submit_after_the_end_says_the_game_is_over():
    game = Game(MINI, seed=0, facts=False)
    from game.play.episode import run_script, script_lines

    run_script(game, script_lines(MINI_WIN), MINI_WIN)
    assert game.engine.done and game.engine.state.won
    reply = game.submit("look")
    assert reply.kind == "over" and reply.won and reply.done


# --- TurnResult ----------------------------------------------------------------------------------
def test_a_turn_result_carries_its_events_rewards_and_penalties():
    game = Game(MINI, seed=0, facts=False)
    result = game.engine.run_round(Action(PLAYER, Verb.GO, obj="east"))  # the iron gate is locked
    assert result.penalties == 1 and result.reward(PLAYER) == pytest.approx(-0.1)
    assert any(e.kind is EventKind.INVALID for e in result)
    assert len(result) == len(result.events) and result[0] is result.events[0]
    fallback = game.engine.run_round(Decision(Action(PLAYER, Verb.WAIT), fallback="it mumbled"))
    assert fallback.penalties == 1 and any("it mumbled" in e.text for e in fallback)
    assert game.engine.totals[PLAYER] == pytest.approx(-0.2)
    assert game.engine.state.invalid[PLAYER] == 2


def test_the_engine_refuses_an_event_kind_it_does_not_know():
    game = Game(MINI, seed=0, facts=False)
    with pytest.raises(ValueError):
        game.engine.emit("teleport", PLAYER, "whoosh")


# --- seats ----------------------------------------------------------------------------------------
def test_a_callable_seat_by_dotted_name_plays_through_the_one_parser():
    game = Game(MINI, seed=0, facts=False, player_kind="tests.test_game_api:always_north")
    reply = game.play_turn()
    assert reply.action == Action(PLAYER, Verb.GO, obj="north") and not reply.typed
    assert reply.said.endswith("Action: go north") and reply.command == "go north"
    assert game.engine.state.where[PLAYER] == "shop"


def test_a_seat_reply_without_a_command_is_asked_again_then_penalised():
    from game.envs.textarena.agents import ParleyPlayer

    prompts = []

    def fn(prompt: str) -> str:
        prompts.append(prompt)
        return "I would rather not say."

    game = Game(MINI, seed=0, facts=False)
    reply = game.play_turn(ParleyPlayer(fn, max_repairs=2))
    assert len(prompts) == 3 and "not usable" in prompts[1] and "not usable" not in prompts[0]
    assert reply.action.verb is Verb.WAIT and reply.fallback and "no usable command" in reply.fallback
    assert game.engine.state.invalid == {PLAYER: 1}


@pytest.mark.parametrize(
    "kind,hint",
    [
        ("robot", "seats:"),
        ("nosuchmodule_xyz:f", "importable"),
        ("tests.test_game_api:missing", "has no"),
        ("llm", "--llm"),
    ],
)
def test_unknown_seats_are_input_errors(kind, hint):
    game = Game(MINI, seed=0, facts=False, player_kind=kind)
    with pytest.raises(InputError) as e:
        game.play_turn()
    assert hint in e.value.render()


def test_a_human_seat_plays_only_through_submit():
    game = Game(MINI, seed=0, facts=False)
    assert game.seat is None
    with pytest.raises(ValueError, match="submit"):
        game.play_turn()


# --- episodes -----------------------------------------------------------------------------------------
def test_an_adventure_episode_with_a_script_seat_wins_and_prints_nothing(capsys):
    cfg = EpisodeConfig(game=GameConfig(world=MINI, seed=0, player=f"script:{MINI_WIN}", facts=False), transcript=True)
    result = play_episode(cfg)
    assert capsys.readouterr() == ("", "")
    assert result.status == "won" and result.won and result.winner == PLAYER
    assert result.quests_total == len(result.quests_done) and result.turns > 0
    assert result.transcript and result.transcript.count("\n") > result.turns
    again = play_episode(cfg)
    assert again.state_hash == result.state_hash and again.transcript == result.transcript


def test_an_adventure_episode_with_the_autopilot_and_a_turn_limit():
    cfg = EpisodeConfig(game=GameConfig(world=MINI, seed=3, player="autopilot"), turns=4)
    seen = []
    result = play_episode(cfg, on_turn=seen.append)
    assert result.turns == 4 == len(seen) and result.status in ("stopped", "won")
    assert all(r.kind == "turn" and r.command for r in seen)
    assert result.rewards[PLAYER] == pytest.approx(sum(r.result.reward(PLAYER) for r in seen))


def test_a_negotiation_episode_between_two_npcs():
    cfg = EpisodeConfig(
        game=GameConfig(world="worlds/bazaar", seed=0, facts=False), kind="negotiation", scene="camel_hire"
    )
    result = play_episode(cfg)
    assert result.kind == "negotiation" and result.status in ("agreement", "no_agreement")
    assert set(result.utilities) and result.history and result.metrics["utilities"] == result.utilities
    assert result.won == (result.agreement is not None)
    with pytest.raises(InputError, match="no negotiation scene"):
        play_episode(cfg.model_copy(update={"scene": "camel_hir"}))


def test_a_council_episode_ends_with_the_vote():
    cfg = EpisodeConfig(
        game=GameConfig(world="worlds/council", seed=0, player="autopilot"),
        kind="council",
        scene="weir_council",
        turns=80,
    )
    result = play_episode(cfg)
    assert result.kind == "council" and result.status in ("passed", "failed", "debating")
    if result.status != "debating":
        assert result.won == (result.status == "passed")
    with pytest.raises(InputError, match="no council scene"):
        play_episode(cfg.model_copy(update={"scene": "nope"}))


def test_episode_config_and_result_cross_process_boundaries():
    cfg = EpisodeConfig(game=GameConfig(world=MINI, seed=1, player=f"script:{MINI_WIN}", facts=False))
    assert EpisodeConfig.model_validate_json(cfg.model_dump_json()) == cfg
    assert pickle.loads(pickle.dumps(cfg)) == cfg
    with ProcessPoolExecutor(max_workers=1) as pool:
        remote = pool.submit(play_episode, cfg).result(timeout=120)
    local = play_episode(cfg)
    assert isinstance(remote, EpisodeResult)
    assert remote.model_dump(exclude={"wall_time"}) == local.model_dump(exclude={"wall_time"})
    assert EpisodeResult.model_validate(json.loads(remote.model_dump_json())) == remote


def test_a_human_seat_cannot_play_an_episode():
    with pytest.raises(InputError, match="seat"):
        play_episode(EpisodeConfig(game=GameConfig(world=MINI)))


# --- what the player's side hears and sees -------------------------------------------------------
def test_world_fact_memory_hears_only_what_the_player_hears():
    game = Game(MINI, seed=0)
    claim = {
        "subject": "gem",
        "relation": "located_at",
        "object": "vault",
        "topic": "gem",
        "speaker": "liar",
        "turn": 0,
    }
    far = next(loc for loc in game.spec.locations if loc != game.engine.state.where[PLAYER])
    game.engine.emit("say", "liar", 'Lou says: "The gem is in the vault."', location=far, data={"claims": [claim]})
    assert game.facts.claims == [] and game.journal().empty
    game.engine.emit(
        "say",
        "liar",
        'Lou says: "The gem is in the vault."',
        data={"claims": [claim]},
        location=game.engine.state.where[PLAYER],
    )
    assert len(game.facts.claims) == 1 and not game.journal().empty


def test_someone_elses_move_shows_its_direction_not_where_it_leads():
    game = Game("worlds/harbor", seed=0)
    seen = []
    for _ in range(12):
        obs = game.engine.observe(PLAYER)
        seen += [e for e in obs.recent if e.kind is EventKind.MOVE and e.actor != PLAYER]
        game.submit("wait")
    assert seen, "nobody walked past the player in 12 turns"
    for ev in seen:
        assert "to" not in ev.data and "from" not in ev.data and "view" not in ev.data and "dir" in ev.data
    recorded = [r for r in map(json.loads, game.transcript.records) if r.get("kind") == "move"]
    assert any("to" in r["data"] and r["actor"] != PLAYER for r in recorded)  # the transcript keeps them
    mine = game.submit("go north")
    own = [e for e in game.engine.observe(PLAYER).recent if e.kind is EventKind.MOVE and e.actor == PLAYER]
    assert mine.kind == "turn" and own and "view" in own[0].data  # its own move keeps its view


# --- seats that misbehave ----------------------------------------------------------------------------
def raises(prompt: str) -> str:
    raise RuntimeError("the seat broke")


def exits(prompt: str) -> str:
    raise SystemExit(3)


def test_a_seat_cannot_move_for_an_npc():
    from game.play.session import Game as G

    game = G(MINI, seed=0, facts=False)

    class Puppeteer:
        uses_context, passive = False, False

        def act(self, observation, context=None):
            return Decision(Action("liar", Verb.GO, obj="north"))

        def get_state(self):
            return {}

        def set_state(self, state):
            return None

    where = game.engine.state.where["liar"]
    reply = game.play_turn(Puppeteer())
    assert reply.action == Action(PLAYER, Verb.WAIT) and "cannot be made for" in reply.fallback
    assert game.engine.state.where["liar"] == where and game.engine.state.invalid == {PLAYER: 1}


@pytest.mark.parametrize(
    "seat,needle",
    [("tests.test_game_api:raises", "RuntimeError: the seat broke"), ("tests.test_game_api:exits", "SystemExit")],
)
def test_a_seat_that_crashes_is_a_seat_error_that_names_it(seat, needle):
    from game.play.session import SeatError

    game = Game(MINI, seed=0, facts=False, player_kind=seat)
    with pytest.raises(SeatError, match=needle):
        game.play_turn()
    assert game.engine.state.turn == 0


def test_an_agent_that_returns_an_action_instead_of_a_decision_is_told_so():
    from agents.basic import Scripted
    from game.play.session import SeatError

    class Old(Scripted):
        def act(self, observation, context=None):
            return Action(PLAYER, Verb.WAIT)

    with pytest.raises(SeatError, match="not a game.core.types.Decision"):
        Game(MINI, seed=0, facts=False).play_turn(Old(PLAYER, []))


def test_a_crashing_seat_exits_2_at_the_cli(tmp_path):
    from tests.conftest import parley

    r = parley("run", MINI, "--no-memory", "--player", "tests.test_game_api:raises")
    assert r.returncode == 2 and "the seat broke" in r.stderr and "Traceback" not in r.stderr


def test_the_out_file_never_overwrites_a_script_seat(tmp_path):
    from tests.conftest import parley

    script = tmp_path / "s.txt"
    script.write_text("look\n")
    r = parley("run", MINI, "--no-memory", "--player", f"script:{script}", "--out", str(tmp_path / "." / "s.txt"))
    assert r.returncode == 2 and "overwrite the script" in r.stderr and script.read_text() == "look\n"


def test_a_script_seat_played_turn_by_turn_stops_with_quit():
    from agents.seats import ScriptSeat

    game = Game(MINI, seed=0, facts=False)
    seat = ScriptSeat([(1, "take brass key"), (2, "save x"), (3, "north")], "s")
    kinds = [game.play_turn(seat) for _ in range(4)]
    assert [(r.kind, r.meta) for r in kinds] == [("turn", None), ("meta", "save"), ("turn", None), ("meta", "quit")]
    assert game.engine.state.invalid == {}


@pytest.mark.parametrize(
    "fields,needle",
    [
        ({"kind": "negotiation"}, "needs scene"),
        ({"kind": "adventure", "scene": "camel_hire"}, "for negotiation or council"),
        ({"kind": "council", "scene": "x", "negotiators": ["linear"]}, "for negotiation episodes"),
        ({"kind": "negotiation", "scene": "camel_hire", "turns": 3}, "for adventure and council"),
    ],
)
def test_episode_configs_that_do_not_fit_their_kind_are_refused(fields, needle):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=needle):
        EpisodeConfig(game=GameConfig(world=MINI), **fields)


def test_game_config_refuses_what_cannot_work():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        GameConfig(world=MINI, seed=-1)
    with pytest.raises(ValidationError, match="insights needs memory"):
        GameConfig(world=MINI, insights="x.json")
    with pytest.raises(TypeError, match="not both"):
        Game(MINI, seed=3, config=GameConfig(world=MINI))
