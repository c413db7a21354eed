"""A world's council scene, debated inside the adventure while the player attends.

When a council scene declares ``[scenes.X.debate]``, its NPC members do not read lines from their
argument banks: they debate through a :class:`CouncilSession`, each speaking from its own masked
memory of the debate (``masking`` mode, token ``budget``) as a :class:`ScriptedDebater`. The
player's part: words said in the chamber are heard by every member (they enter the transcript
the masks choose from), and an item that persuades a member (``persuaded_by``) becomes that
member's evidence, stated to the council at once, so it can sway the others too.

The debate's whole state in the game is a log of what happened (``ops``: statements with the
context tokens they read, round ends, words heard, items brought), kept in the scene's state and
so in saves. A :class:`SceneDebate` rebuilds the session from the log, which replays exactly; the
debaters are stateless between rounds (seeded by the game seed, the member and the round), so a
loaded game goes on as the unsaved one would have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from game.core.seeds import seed_tree
from game.council.context import Context, MaskingConfig
from game.council.debaters import DebaterConfig, ScriptedDebater, View, label
from game.council.runner import view_for
from game.council.session import CouncilConfig, CouncilError, CouncilSession, Reply, Statement
from game.council.tasks import Evidence
from game.world.council_tasks import PERSUADABLE, task_from_scene
from memory.debate_masking import Masker

if TYPE_CHECKING:
    from memory.embedder import Embedder

VOICED = 0.6  # the confidence of a member speaking in its own words (an LLM NPC)
WON = 0.9  # the stance of a member an item has persuaded
# a world member's items are its own arguments, not facts: once it takes a side it argues that side
ARGUE = DebaterConfig(concede=False)


class DebateLogError(ValueError):
    """A debate's log (in a save) that does not replay: which step, and what is wrong with it."""


def _share(x: Any) -> float:
    """A stance, confidence or persuadability from the log: a number in [0, 1]."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0.0 <= float(x) <= 1.0:
        raise ValueError(f"{x!r} is not a number from 0 to 1")
    return float(x)


def _text(x: Any) -> str:
    if not isinstance(x, str):
        raise ValueError(f"{x!r} is not text")
    return x


class SceneDebate:
    """The debate of council scene ``scene_id`` in ``spec``, replayed from ``log`` (a list kept in
    the scene's state; this object appends to it)."""

    def __init__(
        self,
        spec: Any,
        scene_id: str,
        seed: int,
        log: list[dict[str, Any]] | None,
        embedder: Embedder | None = None,
        names: dict[str, str] | None = None,
        keep: Callable[[list[dict[str, Any]]], None] | None = None,
    ):
        """``log``: the debate so far (None: not begun); ``keep(log)`` stores a new log in the
        scene's state when the first thing happens (reading a debate never changes the game)."""
        self.spec = spec
        self.scene = spec.scenes[scene_id]
        cfg = self.scene.debate
        if cfg is None:
            raise ValueError(f"council scene {scene_id!r} declares no debate")
        self.seed = int(seed)
        self._debaters = seed_tree(self.seed).child("council", "scene", scene_id, "debater")
        self.log: list[dict[str, Any]] = [] if log is None else log
        self._keep = keep if log is None else None
        self.names = names or {}
        self.masking = MaskingConfig(mode=cfg.masking, budget=cfg.budget)
        # the council debates all its rounds (the player calls the vote): no early consensus stop
        self.config = CouncilConfig(
            max_rounds=self.scene.max_rounds,
            min_rounds=self.scene.max_rounds,
            speaker_policy=cfg.speaker_policy,
            crux_guard=False,
            seed=self.seed,
        )
        self._embedder = embedder
        self._masker: Masker | None = None
        self.session = CouncilSession(task_from_scene(spec, scene_id), self.config)
        if not isinstance(self.log, list):
            raise DebateLogError(f"scenes.{scene_id}.debate: a list of steps, not {type(self.log).__name__}")
        for i, op in enumerate(self.log):
            try:
                self._apply(op)
            except (CouncilError, KeyError, TypeError, ValueError) as e:
                why = f"missing {e}" if isinstance(e, KeyError) else str(e)
                raise DebateLogError(f"scenes.{scene_id}.debate[{i}]: {why}") from None

    # --- the log ------------------------------------------------------------------------------

    def _apply(self, op: dict[str, Any]) -> Statement | None:
        s = self.session
        if not isinstance(op, dict):
            raise TypeError(f"a step is a table, not {type(op).__name__}")
        kind = op["op"]
        if kind == "say":
            r = op["reply"]
            return s.say(
                op["member"],
                Reply(
                    _text(r["kind"]),
                    _text(r["text"]),
                    _share(r["stance"]),
                    _share(r["confidence"]),
                    r.get("evidence"),
                    r.get("target"),
                    r.get("aspect"),
                ),
                int(op.get("tokens", 0)),
            )
        if kind == "end":
            s.end_round()
            return None
        if kind == "hear":
            return s.hear(_text(op["speaker"]), _text(op["text"]))
        if kind == "bring":
            p = op.get("persuadability")
            return s.bring(
                op["member"],
                Evidence.model_validate(op["evidence"]),
                _share(op["stance"]),
                op.get("text"),
                None if p is None else _share(p),
            )
        raise ValueError(f"unknown debate op {kind!r}")

    def _do(self, op: dict[str, Any]) -> Statement | None:
        st = self._apply(op)
        self.log.append(op)
        if self._keep is not None:
            self._keep(self.log)
            self._keep = None
        return st

    # --- reading ------------------------------------------------------------------------------

    @property
    def masker(self) -> Masker:
        if self._masker is None:
            if self._embedder is None:
                from memory.embedder import get_embedder

                self._embedder = get_embedder("hash")
            self._masker = Masker(self.masking, self._embedder)
        return self._masker

    def labels(self) -> dict[str, str]:
        return {m: label(p) for m, p in self.session.stances.items()}

    def context(self, member: str) -> Context:
        """What ``member``'s masked memory of the debate holds now."""
        return self.masker.context(self.session, member)

    def contexts(self) -> dict[str, Context]:
        """What each member's masked memory of the debate holds now."""
        return {m: self.context(m) for m in self.session.members}

    # --- moves --------------------------------------------------------------------------------

    def play_round(self, voice: Callable[[str, View], str | None] | None = None) -> list[Statement]:
        """Every member the chair calls speaks once; then the round closes. Returns the round's
        statements, the chair's question (if it broke a stalemate) last. Nothing once it is over.

        ``voice(member, view)``: the words of a member who speaks for itself (an LLM NPC), given
        its view (its masked context included), said as an argument at its current stance (only
        evidence handed over moves such a member); None or empty words: the scripted debater
        speaks for it."""
        s = self.session
        if not s.is_open:
            return []
        start = len(s.history)
        for member in s.speakers():
            view = view_for(s, member, self.masker)
            words = ((voice(member, view) if voice is not None else None) or "").strip()
            if words:
                reply = Reply("argument", words, s.stances[member], VOICED)
            else:
                debater = ScriptedDebater(ARGUE, seed=self._debaters.child(member, s.round), names=self.names)
                reply = debater.respond(view)
            self._do(
                {
                    "op": "say",
                    "member": member,
                    "tokens": view.context.tokens,
                    "reply": {
                        "kind": reply.kind,
                        "text": reply.text,
                        "stance": reply.stance,
                        "confidence": reply.confidence,
                        "evidence": reply.evidence,
                        "target": reply.target,
                        "aspect": reply.aspect,
                    },
                }
            )
        self._do({"op": "end"})
        return s.history[start:]

    def hear(self, speaker: str, text: str) -> Statement | None:
        """``speaker`` (not a member) speaks in the chamber; ignored once the debate is over."""
        if not self.session.is_open or not text.strip():
            return None
        return self._do({"op": "hear", "speaker": speaker, "text": text.strip()})

    def bring(self, member: str, item: str, name: str, description: str) -> Statement | None:
        """Item ``item`` persuades ``member``: it becomes its evidence for the motion and it says so."""
        s = self.session
        eid = f"item:{item}"
        if not s.is_open or member not in s.members or eid in s.task.by_id():
            return None
        said = f"I have seen the {name} myself: {description}" if description else f"I have seen the {name} myself."
        ev = Evidence(
            id=eid,
            aspect=f"the {name}",
            direction=1,
            weight=self.scene.debate.evidence_weight,
            text=f"The {name}: {description}" if description else f"The {name}",
            gist=(description or name)[:60],
        )
        # a member won over by evidence is as firm as one who took a side from the start
        return self._do(
            {
                "op": "bring",
                "member": member,
                "stance": WON,
                "persuadability": PERSUADABLE["for"],
                "evidence": ev.model_dump(),
                "text": said,
            }
        )
