"""Parley worlds and negotiation scenes as TextArena environments (``textarena==0.7.4``).

Importing this module registers, in TextArena's registry (``textarena.envs.registration``):

* ``Parley-Harbor-v1``, ``Parley-Bazaar-v1``, ``Parley-Council-v1`` -- one per shipped world
  (``worlds/<name>``, the id from the world's own ``id``): a one-player game; the agent's reply is
  read by Parley's reply reader (``Game.read_reply``: ``[take lamp]``, ``Action: take lamp``, a
  fenced block, the last line), so an agent may reason before its command. A reply with no
  command is Parley's penalised invalid move (a ``wait``), reported in the next observation.
  Reward 1 for a win, else the share of quests done. ``max_turns`` caps the game (default 300).
* ``Parley-Negotiation-v0`` -- two players negotiate a multi-issue scene from Parley's seeded
  generator (``game.negotiation.generate.random_scenes``; ``reset(seed=...)`` picks the scene).
  Each player sees its own utilities only. Moves, read by Parley's parser from the reply:
  ``offer i0=v1 i1=v2``, ``accept``, ``reject``, ``walk away`` (brackets or ``Action:`` allowed).
  An unusable or illegal move is TextArena's invalid move (one retry). Rewards: each player's
  utility of the agreement (its reservation value without one).

``import game`` does not import textarena; ``import game.envs.textarena.worlds`` (or ``register()``) does.

    import textarena as ta, game.envs.textarena.worlds
    env = ta.make("Parley-Harbor-v1"); env.reset(num_players=1, seed=0)
    done = False
    while not done:
        pid, obs = env.get_observation()
        done, info = env.step(my_agent(obs))   # "I should look around first... [look]"
    rewards, game_info = env.close()
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.core.extras import require
from game.core.types import PLAYER

if TYPE_CHECKING:
    from game.play.session import Game

require("textarena", "the TextArena environments (game.envs.textarena.worlds)")

import textarena as ta  # noqa: E402
from textarena.wrappers.ObservationWrappers.llm_observation_wrapper import (  # noqa: E402
    FirstLastObservationWrapper,
    LLMObservationWrapper,
)

SHIPPED = ("harbor", "bazaar", "council")  # in this order: the default world first
HOW_TO_REPLY = (
    "Reply with one command (look, go north, take lamp, ask mara about the strongbox, "
    "offer price=12, accept, ...). You may think first; then put the command in brackets "
    "at the end, e.g. 'I should look around first. [look]', or on a line 'Action: look'."
)


class _Reply:
    """The action string as a text seat, for ``Game.read_reply``."""

    uses_context, max_repairs = False, 0

    def __init__(self, text: str):
        self.text = text

    def respond(self, observation: Any, context: Any = None, problem: str | None = None) -> str:
        return self.text


class ParleyWorldEnv(ta.Env):
    """A Parley world as a one-player TextArena game (see the module docstring)."""

    def __init__(self, world: str | Path, max_turns: int = 300, **options: Any):
        self.world, self.max_turns, self.options = str(world), max_turns, options
        self.game: Game | None = None

    def reset(self, num_players: int = 1, seed: int | None = None) -> None:
        if num_players != 1:
            raise ValueError(f"a Parley world is a one-player game, got num_players={num_players}")
        from game.play.session import Game

        self.game = Game(self.world, seed=int(seed or 0), **self.options)
        self.state = ta.SinglePlayerState(num_players=1, seed=seed, max_turns=self.max_turns)
        self.state.reset(game_state={"world": self.world}, player_prompt_function=self._prompt)

    def _view(self) -> str:
        from game.envs.textarena.agents import render

        return render(*self.game.player_inputs())

    def _prompt(self, player_id: int, game_state: dict[str, Any]) -> str:
        from game.engine.parser import HELP_TEXT

        # save/load/help/quit are the console's, not moves: a reply with one is a penalised wait here
        commands = "\n".join(ln for ln in HELP_TEXT.splitlines() if "save [name]" not in ln)
        return f"{self.game.intro()}\n\n{HOW_TO_REPLY}\n\n{commands}\n\n{self._view()}"

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        game = self.game
        self.state.add_observation(from_id=0, message=action, observation_type=ta.ObservationType.PLAYER_ACTION)
        reply = game.play_turn(_Reply(str(action)))  # read by Game.read_reply, played as one turn
        if reply.outage is not None:
            raise reply.outage
        lines = (
            [f"Your reply held no usable command ({reply.fallback}); you wait, and it counts as an invalid move."]
            if reply.fallback
            else []
        )
        # the view's "Since your last turn" holds the turn's events; the last turn shows them plainly
        lines += [ln for ln in reply.lines if ln] if reply.done else [self._view()]
        self.state.add_observation(message="\n".join(lines), observation_type=ta.ObservationType.GAME_MESSAGE)
        self.state.step_info = {"command": reply.command, "invalid": bool(reply.fallback), "score": reply.score}
        if reply.done or (self.max_turns and game.engine.state.turn >= self.max_turns):
            self._finish()
        return self.state.step()

    def _finish(self) -> None:
        st, quests = self.game.engine.state, self.game.spec.quests
        reward = 1.0 if st.won else (len(st.quests_done) / len(quests) if quests else 0.0)
        why = "won" if st.won else "lost" if st.done else f"out of turns ({self.max_turns})"
        self.state.set_outcome(
            reward=reward, reason=f"{self.game.spec.title}: {why}; quests done: {', '.join(st.quests_done) or 'none'}"
        )

    def get_board_str(self) -> str:
        return self._view()


class ParleyNegotiationEnv(ta.Env):
    """A generated multi-issue negotiation scene as a two-player TextArena game."""

    def __init__(self, deadline: int = 10, scenes: list[Any] | None = None):
        self.deadline, self.scenes = deadline, scenes

    def reset(self, num_players: int = 2, seed: int | None = None) -> None:
        from game.negotiation.generate import random_scenes
        from game.negotiation.session import Negotiation
        from game.negotiation.utility import utilities_for

        if num_players != 2:
            raise ValueError(f"a negotiation is a two-player game, got num_players={num_players}")
        s = int(seed or 0)
        self.scene = self.scenes[s % len(self.scenes)] if self.scenes else random_scenes(1, s, self.deadline)[0]
        self.utilities = utilities_for(self.scene)
        self.session = Negotiation(self.scene, utilities=self.utilities)
        self.parties = list(self.session.parties)
        self.state = ta.TwoPlayerState(num_players=2, seed=seed, max_turns=2 * self.scene.deadline)
        self.state.reset(game_state={"scene": self.scene.title}, player_prompt_function=self._prompt)
        self.state.manually_set_current_player_id(self.parties.index(self.session.turn))

    def _prompt(self, player_id: int, game_state: dict[str, Any]) -> str:
        u = self.utilities[self.parties[player_id]]
        prefs = "\n".join(
            f"- {i} (weight {u.weights[i]:.2f}): " + ", ".join(f"{v}={u.value_utility(i, v):.2f}" for v in vals)
            for i, vals in self.scene.issues.items()
        )
        example = " ".join(f"{i}={vals[0]}" for i, vals in self.scene.issues.items())
        return (
            f"You are Player {player_id} in a Parley negotiation ({self.scene.title}) with Player "
            f"{1 - player_id}. Player {self.parties.index(self.session.first)} opens; you take turns for at "
            f"most {self.scene.deadline} rounds.\nYour private utilities (a deal is worth the weighted sum):\n"
            f"{prefs}\nNo deal is worth {u.reservation:.2f} to you.\nMoves: 'offer {example}' (a value for "
            "every issue), 'accept' (their standing offer), 'reject', 'walk away'. You may reason "
            "first; put the move last, in brackets: [offer ...]."
        )

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        from game.engine.nouns import Scope
        from game.engine.parser import Command, Parser
        from game.negotiation.session import NegotiationError

        pid = self.state.current_player_id
        party = self.parties[pid]
        self.state.add_observation(from_id=pid, message=action, observation_type=ta.ObservationType.PLAYER_ACTION)
        scope = Scope(actor=PLAYER, negotiation={k: tuple(v) for k, v in self.scene.issues.items()})
        parsed = Parser().parse_reply(str(action), scope)
        if not isinstance(parsed, Command):
            self.state.set_invalid_move(reason=getattr(parsed, "message", "no move in the reply"))
            return self.state.step()
        act = parsed.action
        kind = act.verb.value if act.verb.value != "walk_away" else "walk_away"
        try:
            self.session.play(party, kind, dict(act.terms) if kind == "offer" else None)
        except NegotiationError as e:
            self.state.set_invalid_move(reason=e.message)
            return self.state.step()
        said = kind.replace("_", " ") + (" " + ", ".join(f"{k}={v}" for k, v in act.terms) if kind == "offer" else "")
        self.state.add_observation(
            message=f"Player {pid}: {said}.", observation_type=ta.ObservationType.GAME_ACTION_DESCRIPTION
        )
        if not self.session.is_open:
            self._finish()
        return self.state.step()

    def _finish(self) -> None:
        deal = self.session.agreement
        got = {
            pid: (self.utilities[p](deal) if deal is not None else self.utilities[p].reservation)
            for pid, p in enumerate(self.parties)
        }
        self.state.rewards = got
        why = f"agreement {deal}" if deal is not None else self.session.status.replace("_", " ")
        for pid in (0, 1):
            self.state.game_info[pid]["reason"] = f"{why}; utilities {got}"
        self.state.done = True

    def get_board_str(self) -> str:
        return repr(self.session)


def env_id(world_id: str) -> str:
    """``Parley-Harbor-v1`` for the world whose id is ``harbor-v1``."""
    name, _, version = world_id.rpartition("-")
    return f"Parley-{name.title()}-{version}"


def register() -> list[str]:
    """Register the Parley environments (idempotent); returns their ids."""
    from textarena.envs.registration import ENV_REGISTRY

    from game.world.shipped import shipped_worlds

    by_folder = {folder.name: (wid, folder) for wid, folder in shipped_worlds().items()}
    ids = []
    for world in SHIPPED:
        wid, folder = by_folder[world]
        eid = env_id(wid)
        if eid not in ENV_REGISTRY:
            ta.register(
                id=eid, entry_point=ParleyWorldEnv, default_wrappers=[FirstLastObservationWrapper], world=str(folder)
            )
        ids.append(eid)
    if "Parley-Negotiation-v0" not in ENV_REGISTRY:
        ta.register(
            id="Parley-Negotiation-v0", entry_point=ParleyNegotiationEnv, default_wrappers=[LLMObservationWrapper]
        )
    return ids + ["Parley-Negotiation-v0"]


ENV_IDS = register()
