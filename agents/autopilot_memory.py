"""What the autopilot remembers, learnt only from its observations (mixed into ``Autopilot``).

Every turn ``_perceive`` reads the player's ``Observation``: the room (``location``,
``exits``, the parser ``scope``: items, people and locked exits here, with their names
and aliases), the events it perceived (``recent``: its own moves and their refusals,
what NPCs said, trade moves, persuasions, ...) and the open scene. From them it keeps,
as JSON-able data: the map it walked (``edges``: exits it took and where they led), the
locks it met and what it learnt about them (their names, the refusal and examine texts,
the keys that failed or fitted), where it last saw each item and NPC, what it examined,
the NPCs it talked to (their topics, whether they trade), the trades it opened (their
public terms and its own party) and every move of them, the councils it sat in (members
and stances), the claims it heard and the places they named.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from game.core.types import PLAYER, Action, Observation

STATE_VERSION = 5  # 5: words only from what is displayed (4 also read ids); older states are refused
_WORD = re.compile(r"[a-z]+")
_STOP = frozenset(
    "the and with its you your for has have not this that there here into from any all one "
    "but out are was will can key keys lock locked unlock closed open door".split()
)
TRADE_HINT = "open to trade"
# how the quest log names an objective's item (the rest of the line names a person or place)
_OBJECTIVE_ITEM = re.compile(r"^(?:have|open|leave|give) the (.+?)(?: at .*| to .*)?$", re.IGNORECASE)


def words(text: str) -> set[str]:
    """Content words of a text (lowercase, three letters or more, common words dropped)."""
    return {w for w in _WORD.findall(text.lower().replace("_", " ")) if len(w) >= 3 and w not in _STOP}


class MemoryMixin:
    """The autopilot's memory and how it perceives (see the module docstring)."""

    rng: Any

    def _reset_memory(self) -> None:
        self.visited: dict[str, int] = {}  # location -> last turn stood there
        self.places: list[str] = []  # locations in the order it learnt of them
        self.exits: dict[str, list[str]] = {}  # location -> its exits (directions)
        self.edges: dict[str, dict[str, str]] = {}  # location -> direction -> where it led
        self.locks: dict[str, dict[str, Any]] = {}  # "loc:dir" or container id -> what it knows of the lock
        self.tried: list[list[str]] = []  # [lock, item] that did not fit
        self.fits: dict[str, str] = {}  # lock -> the item that opened it
        self.words: dict[str, list[str]] = {}  # id -> the words of its displayed name and aliases
        self.names: dict[str, str] = {}  # id -> its displayed name (items and NPCs in reach)
        self.kinds: dict[str, str] = {}  # id -> "item" | "npc"
        self.examined: list[str] = []
        self.fixed: list[str] = []  # items that would not budge
        self.seen_items: dict[str, str] = {}  # item -> location it was last seen lying in
        self.seen_npcs: dict[str, str] = {}  # npc -> location last seen
        self.talked: dict[str, dict[str, Any]] = {}  # npc -> {"topics": [...], "trade": bool}
        self.merchants: dict[str, str] = {}  # npc -> the trade scene it opens
        self.no_trade: list[str] = []  # npcs that refused to trade
        self.trades: dict[str, dict[str, Any]] = {}  # scene -> public terms and the player's own party
        self.councils: dict[str, dict[str, Any]] = {}  # scene -> {"loc", "members", "majority", "status"}
        self.hints: dict[str, list[str]] = {}  # thing -> places someone said it is
        self.sellers: dict[str, str] = {}  # thing -> the NPC said to sell it
        self.wants: list[list[str]] = []  # [npc, item] someone said the npc wants
        self.gave: list[str] = []  # "item>npc" given
        self.asked: list[list[str]] = []  # [npc, thing] pairs already asked
        self.neg: dict[str, dict[str, Any]] = {}  # scene -> {"tries": sessions opened, "log": sessions seen}
        self.claims: list[list[str]] = []  # [speaker, subject, relation, object, topic] heard
        self.followed: list[list[Any]] = []  # [thing, place, steps]: leads it walked toward
        self.pending: dict[str, Any] | None = None  # its last action (to read a refusal)
        self.here = ""
        self.turn = 0
        self.actions = 0
        self.invalid = 0
        self.last_turn = -1

    _SAVED = (
        "visited",
        "places",
        "exits",
        "edges",
        "locks",
        "tried",
        "fits",
        "words",
        "names",
        "kinds",
        "examined",
        "fixed",
        "seen_items",
        "seen_npcs",
        "talked",
        "merchants",
        "no_trade",
        "trades",
        "councils",
        "hints",
        "sellers",
        "wants",
        "gave",
        "asked",
        "neg",
        "claims",
        "followed",
        "pending",
        "here",
        "turn",
        "actions",
        "invalid",
        "last_turn",
    )

    def get_state(self) -> dict[str, Any]:
        out = {k: copy.deepcopy(getattr(self, k)) for k in self._SAVED}
        return {"version": STATE_VERSION, **out, "rng": self.rng.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        if state.get("version") != STATE_VERSION:
            raise ValueError(
                f"autopilot state version {state.get('version')!r} is not {STATE_VERSION}: states "
                f"before {STATE_VERSION} held what the world file says, not what was seen"
            )
        missing = [k for k in self._SAVED if k not in state]
        if missing:
            raise ValueError(f"autopilot state lacks {', '.join(missing)}")
        for k in self._SAVED:
            setattr(self, k, copy.deepcopy(state[k]))
        self.rng.bit_generator.state = state["rng"]

    # --- perceiving ----------------------------------------------------------------------
    def _perceive(self, obs: Observation) -> None:
        here = obs.location
        self.here, self.turn = here, obs.turn
        self._place(here)
        self.visited[here] = obs.turn
        self.exits[here] = list(obs.exits)
        for ev in obs.recent:
            self._event(ev)
        self.pending = None
        self._scope(obs)
        self._scene(obs.scene)
        for q in obs.quests:  # the quest log names items too ("Have the storm lantern")
            for o in q.objectives:
                if o.item and o.item not in self.words:  # (the id is a handle: the words are the text's)
                    m = _OBJECTIVE_ITEM.match(o.text.strip().rstrip("."))
                    self.words[o.item] = sorted(set(_WORD.findall((m.group(1) if m else "").lower())))
                    self.kinds.setdefault(o.item, "item")

    def _place(self, loc: str) -> None:
        if loc and loc not in self.places:
            self.places.append(loc)

    def _scope(self, obs: Observation) -> None:
        """The nouns in scope: items and NPCs here (and where they are), the locks here."""
        here = obs.location
        items_here: list[str] = []
        npcs_here: list[str] = []
        nouns = obs.scope.nouns if obs.scope is not None else ()
        for n in nouns:
            if n.kind == "scenery":  # to look at, never a thing to fetch or a person to ask
                continue
            self.words[n.id] = sorted(set(_WORD.findall(" ".join((n.name, *n.aliases)).lower())))
            if n.kind == "exit":
                d = n.id.split(":", 1)[1]
                lock = self.locks.setdefault(f"{here}:{d}", {"name": n.name, "text": "", "open": False, "read": False})
                lock["name"] = n.name
                continue
            self.kinds[n.id] = n.kind
            self.names[n.id] = n.name
            if n.kind == "npc":
                npcs_here.append(n.id)
            elif n.where in ("room", "container"):
                items_here.append(n.id)
        for i, where in list(self.seen_items.items()):
            if where == here and i not in items_here:
                del self.seen_items[i]
        for i in items_here:
            self.seen_items[i] = here
        for i in obs.inventory:
            self.seen_items.pop(i, None)
        for n, where in list(self.seen_npcs.items()):
            if where == here and n not in npcs_here:
                del self.seen_npcs[n]
        for n in npcs_here:
            self.seen_npcs[n] = here

    def _scene(self, scene: dict[str, Any] | None) -> None:
        """The open negotiation (its public terms, the player's own party, the moves so far) or the
        council sitting here (members and stances)."""
        if not scene:
            return
        sid = str(scene.get("id"))
        if scene.get("type") == "council":
            self.councils[sid] = {
                "loc": self.here,
                "majority": float(scene.get("majority", 0.5)),
                "status": str(scene.get("status", "debating")),
                "members": {str(m["id"]): str(m.get("stance", "undecided")) for m in scene.get("members", ())},
            }
            return
        trade = scene.get("trade") or {}
        you = scene.get("you") or {}
        parties = [str(p) for p in scene.get("parties", ())]
        self.trades[sid] = {
            "issues": {k: [str(v) for v in vs] for k, vs in scene.get("issues", {}).items()},
            "deadline": int(scene.get("deadline", 1)),
            "parties": parties,
            "first": str(scene.get("first") or (parties[0] if parties else PLAYER)),
            "other": next((p for p in parties if p != PLAYER), ""),
            "item": trade.get("item"),
            "seller": trade.get("seller"),
            "price_issue": trade.get("price_issue"),
            "you": {
                "weights": dict(you.get("weights", {})),
                "values": {k: dict(v) for k, v in you.get("values", {}).items()},
                "reservation": float(you.get("reservation", 0.0)),
            },
        }
        other = self.trades[sid]["other"]
        if other:
            self.merchants[other] = sid
        log = self.neg.setdefault(sid, {"tries": 1, "log": []}).setdefault("log", [])
        if not log or log[-1]["status"] != "open":
            log.append({"status": "open", "history": []})
        log[-1]["history"] = [dict(r) for r in scene.get("history", ())]

    # --- events --------------------------------------------------------------------------
    def _event(self, ev: Any) -> None:
        kind, data = str(ev.kind), ev.data or {}
        if ev.actor == PLAYER:
            if kind == "invalid":
                self.invalid += 1
                self._refused(ev.text)
            elif kind == "move" and data.get("from") and data.get("to"):
                self._place(str(data["to"]))
                self.edges.setdefault(str(data["from"]), {})[str(data["dir"])] = str(data["to"])
            elif kind == "unlock":
                lock = str(data["item"]) if data.get("item") else f"{self.here}:{data.get('exit')}"
                self.fits[lock] = str(data.get("key"))
                info = self.locks.setdefault(lock, {"name": "", "text": "", "open": False, "read": True})
                if data.get("item"):
                    info["locked"] = False  # a container unlocked is not yet open
                else:
                    info["open"] = True
            elif kind in ("open", "examine"):
                self._container(str(data.get("item") or data.get("obj") or ""), kind, ev.text)
            elif kind == "give" and data.get("to"):
                self.gave.append(f"{data.get('item')}>{data['to']}")
            elif kind == "trade_open" and data.get("scene"):
                self.merchants[str(data.get("with"))] = str(data["scene"])
                self.neg.setdefault(str(data["scene"]), {"tries": 1, "log": []}).setdefault("log", []).append(
                    {"status": "open", "history": []}
                )
        if kind == "talk" and data.get("npc"):
            self.talked[str(data["npc"])] = {
                "topics": [str(t) for t in data.get("topics", ())],
                "trade": TRADE_HINT in str(data.get("view", "")),
            }
        if kind in ("offer", "accept", "reject", "walk_away") and data.get("scene"):
            self._talk_move(str(data["scene"]), ev.actor, kind, data.get("terms"))
        elif kind in ("agreement", "no_agreement") and data.get("scene"):
            log = self.neg.get(str(data["scene"]), {}).get("log") or []
            if log:
                log[-1]["status"] = kind  # (its "metrics" are not read: they hold the merchant's utility)
        elif kind == "persuaded" and data.get("scene") in self.councils:
            self.councils[data["scene"]]["members"][ev.actor] = "for"
        elif kind == "council_result" and data.get("scene") in self.councils:
            self.councils[data["scene"]]["status"] = str(data.get("outcome", "closed"))
        for c in data.get("claims") or ():
            self._heard(c if isinstance(c, dict) else c.to_dict())

    def _talk_move(self, sid: str, party: str, kind: str, terms: Any) -> None:
        log = self.neg.setdefault(sid, {"tries": 1, "log": []}).setdefault("log", [])
        if not log or log[-1]["status"] != "open":
            log.append({"status": "open", "history": []})
        hist = log[-1]["history"]
        deadline = int(self.trades.get(sid, {}).get("deadline", 10**6))
        rec: dict[str, Any] = {"round": min(len(hist) // 2 + 1, deadline), "party": party, "kind": kind}
        if kind == "offer" and terms:
            rec["terms"] = {str(k): str(v) for k, v in dict(terms).items()}
        hist.append(rec)

    def _container(self, item: str, kind: str, text: str) -> None:
        if not item:
            return
        if kind == "examine" and item not in self.examined:
            self.examined.append(item)
        if kind == "open" or "Inside:" in text or "It is empty." in text:
            self.locks.setdefault(item, {"name": "", "text": "", "read": True})["open"] = True
            self.locks[item]["container"] = True
        elif "It is closed." in text:
            lock = self.locks.setdefault(item, {"name": "", "text": "", "open": False, "read": True})
            lock["container"] = True
            lock["locked"] = "It is locked." in text
            lock["text"] = text

    def _refused(self, text: str) -> None:
        """Learn from a refusal of its last action."""
        a = Action.from_dict(self.pending) if self.pending else None
        if a is None:
            return
        verb = a.verb.value
        if verb == "unlock" and a.obj and a.target:
            lock = f"{self.here}:{a.obj[5:]}" if a.obj.startswith("exit:") else a.obj
            self.tried.append([lock, a.target])
        elif verb == "go" and f"{self.here}:{a.obj}" in self.locks:
            lock = self.locks[f"{self.here}:{a.obj}"]
            lock["text"], lock["read"] = text, True
        elif verb == "take" and a.obj:
            self.fixed.append(a.obj)
        elif verb == "open" and a.obj and "locked" in text:
            self.locks.setdefault(a.obj, {"name": "", "text": "", "open": False, "read": True})["locked"] = True
        elif verb == "trade" and a.obj:
            self.no_trade.append(a.obj)

    def _heard(self, c: dict[str, Any]) -> None:
        heard = [str(c.get(k) or "") for k in ("speaker", "subject", "relation", "object", "topic")]
        if heard not in self.claims:
            self.claims.append(heard)
        subject, obj = heard[1], heard[3]
        if self.kinds.get(obj) == "npc" or obj in self.talked:
            self.sellers.setdefault(subject, obj)  # "X is sold by / kept by <someone>"
        elif self.kinds.get(subject) == "npc" and heard[2] == "wants":
            if [subject, obj] not in self.wants:
                self.wants.append([subject, obj])
        else:
            places = self.hints.setdefault(subject, [])
            if obj not in places:
                places.append(obj)
