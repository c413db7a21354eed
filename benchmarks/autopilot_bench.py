"""Autopilot benchmark: the honest autopilot against baselines.

Usage:  python -m benchmarks.autopilot_bench [--seeds 100-149] [--worlds harbor,bazaar,council,mini]
                                             [--variants 100-109] [--no-generated] [--quick] [--json FILE]

Every game is played headless with memory off: ``Game(world, seed, player_kind="autopilot")``,
trust on (the game's own Σ-Mem), the autopilot fed only ``game.player_inputs()`` (the
player's observation), until the game ends or ``max_turns``. The bench itself reads the
engine, for scoring only. Players:

* ``honest``      ``agents.autopilot.Autopilot``: models each merchant only from the
                  talks it has seen (``agents/autopilot_haggle.py``);
* ``first``       accepts the merchant's first offer it can pay for (opening, when it
                  must, with its own favourite affordable outcome);
* ``linear``      opens with its favourite affordable outcome and concedes linearly in
                  its own utility to its reservation at the deadline, offering the
                  outcome just above its target; accepts an offer worth at least its
                  next one, and any affordable offer at its last chance.
* ``brute``       ``agents.brute_player.BrutePlayer``: no plan, observation only; takes
                  everything, examines each item once, opens containers, tries every
                  held item on every shut lock, talks to everyone once, trades with
                  anyone open to trade (one price step more each move), votes once the
                  stances show a majority, else explores breadth-first.

Besides the project's worlds (``--worlds``; the default is every shipped world and the
test fixture ``mini``) it plays *generated* worlds the autopilot was not tuned on,
written to a temporary folder: the three ``parley new-world --template`` worlds
(``game/world/scaffold.py``), the trade template whose quest log only says "Have the tin
lantern" (``trade-hasonly``), and corridors with an oak hatch whose key is a "smooth
token" in a crate (``hatch-token``: no word shared with the lock), the same with a
"hatch key" decoy lying about that does not fit (``hatch-decoy``), and a fourteen-hall
corridor whose "oak key" matches (``hatch-long``).

``distinct``: how many different action sequences the seeds produced. Some worlds barely
depend on the seed (nothing in them is random but an NPC's walk or a liar's answer), so a
confidence interval over N seeds there is over far fewer than N independent games.

Figures per world and player: wins out of N with a 95% Wilson interval; turns to
finish (the turn the last quest completed; ``max_turns`` for a game not won):
mean, median, p90 (numpy ``percentile``, linear interpolation); per trade: the
price paid, the merchant's *reservation price* for the terms agreed (the lowest
price at which the merchant's utility of those terms reaches its reservation;
read from the world for scoring only), the regret (paid minus reservation price),
the player's own utility of the deal, and the number of sessions opened.

The merchants' negotiators are deterministic and do not depend on the seed, so
the seeds vary the walk (wandering NPCs, what liars say), not the haggling. The
haggling is therefore also played against *other* merchants (``--variants``
seeds): each trade world with every merchant's negotiator replaced by each rule
kind of ``agents.negotiators`` (``boulware``, ``linear``, ``conceder``,
``hardliner``, ``tit_for_tat``, ``aspiration``, ``random``), the honest player
against the ``linear`` baseline.

Seeds 0-49 were used to tune the autopilot; 100-149 (the default) are held out.

Deterministic: the engine, the NPCs and the autopilot draw from seeded
``numpy.random.Generator``s, so a seed range gives the same tables every time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.autopilot import TURN_COST, Autopilot, seeded_rng
from agents.autopilot_haggle import Table
from agents.brute_player import BrutePlayer
from benchmarks.lib.cli import seed_range, write_json
from benchmarks.lib.stats import wilson
from game.core.types import PLAYER, Action, Verb
from game.play.session import Game
from game.play.worlds import load_world

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ("honest", "first", "linear", "brute")
WORLD_PATHS = {"mini": ROOT / "tests" / "fixtures" / "mini"}
DEFAULT_WORLDS = "harbor,bazaar,council,mini"
KINDS = ("boulware", "linear", "conceder", "hardliner", "tit_for_tat", "aspiration", "random")


# --- baselines ---------------------------------------------------------------------------


class _SimpleHaggler(Autopilot):
    """Shared by the simple baselines: everything but the haggling is the honest autopilot's."""

    def _negotiate(self, sid: str, scene: Any, g: dict[str, Any]) -> Action:
        sim = Table(scene)
        if sim.turn != PLAYER:
            return self._do(Verb.WAIT)
        if sid not in self.trades or g["trade"].get(sid) != "agreement":
            return self._do(Verb.WALK_AWAY)
        gold = int(g["gold"])
        pays = self._pays(sid)
        opts = [o for o in self._outcomes(sid) if not pays or self._price(sid, o) <= gold]
        standing = sim.standing_offer if sim.standing_party not in (None, PLAYER) else None
        if standing is not None and pays and self._price(sid, standing) > gold:
            standing = None
        if not opts:
            return self._do(Verb.WALK_AWAY)
        return self._move(sid, sim, opts, standing)

    def _move(self, sid: str, sim: Any, opts: list[dict[str, str]], standing: dict[str, str] | None) -> Action:
        raise NotImplementedError


class FirstOfferAutopilot(_SimpleHaggler):
    """Accepts the merchant's first affordable offer; opens with its own favourite."""

    def _move(self, sid, sim, opts, standing):
        if standing is not None:
            return self._do(Verb.ACCEPT)
        me = self._me(sid)
        return self._do(Verb.OFFER, terms=max(opts, key=me))


class LinearAutopilot(_SimpleHaggler):
    """Concedes linearly in its own utility from its favourite affordable outcome to its reservation."""

    def _move(self, sid, sim, opts, standing):
        me = self._me(sid)
        top = max(me(o) for o in opts)
        total = 2 * sim.deadline
        last = sim.moves_made + 2 >= total  # no later move of ours: take what is on the table

        def target(moves: int) -> float:
            t = min(moves / max(total - 1, 1), 1.0)
            return top - (top - me.reservation) * t

        mine = min((o for o in opts if me(o) >= target(sim.moves_made) - 1e-9), key=me, default=max(opts, key=me))
        if standing is not None and (last or me(standing) >= me(mine) - 1e-9):
            return self._do(Verb.ACCEPT)
        return self._do(Verb.OFFER, terms=mine)


PILOTS = {"honest": Autopilot, "first": FirstOfferAutopilot, "linear": LinearAutopilot, "brute": BrutePlayer}


# --- generated worlds (not tuned on) ----------------------------------------------------------


def hatch_text(key_id: str, key_name: str, halls: int = 6, decoy: bool = False) -> str:
    """A corridor of ``halls`` halls running east; the last has an oak hatch north to a vault with
    the gem the quest wants. The key lies in a crate half way; trinkets (and a decoy) about."""
    lock = (
        f'locked = {{ north = {{ key = "{key_id}", name = "oak hatch", '
        f'message = "The oak hatch will not budge." }} }}\n'
    )
    lying = {1: ["rope"] + (["hatch_key"] if decoy else []), halls // 2: ["crate", "pebble"], halls - 2: ["bell"]}
    parts = [f'id = "hatch-v1"\ntitle = "The hatch"\nstart = "h0"\nmax_turns = {60 + 20 * halls}\n']
    for i in range(halls):
        exits = ([f'west = "h{i - 1}"'] if i else []) + [f'east = "h{i + 1}"' if i < halls - 1 else 'north = "vault"']
        things = ", ".join(f'"{t}"' for t in lying.get(i, ()))
        parts.append(
            f'[locations.h{i}]\nname = "Hall {i + 1}"\ndescription = "A bare hall."\n'
            f"exits = {{ {', '.join(exits)} }}\n"
            + (lock if i == halls - 1 else "")
            + (f"items = [{things}]\n" if things else "")
        )
    parts.append(
        f'[locations.vault]\nname = "Vault"\ndescription = "A small vault."\n'
        f'exits = {{ south = "h{halls - 1}" }}\nitems = ["gem"]\n'
    )
    items = {
        key_id: key_name,
        "gem": "green gem",
        "rope": "coil of rope",
        "pebble": "round pebble",
        "bell": "brass bell",
        **({"hatch_key": "hatch key"} if decoy else {}),
    }
    for iid, name in items.items():
        parts.append(f'[items.{iid}]\nname = "{name}"\naliases = ["{name.split()[-1]}"]\n')
    parts.append(
        f'[items.crate]\nname = "wooden crate"\naliases = ["crate"]\nportable = false\n'
        f'container = true\ncontents = ["{key_id}"]\n'
    )
    parts.append(
        '[quests.gem]\ntitle = "Get the gem"\ngoal = [{ kind = "has", item = "gem" }]\nreward = { score = 10 }\n'
    )
    return "\n".join(parts)


def generated_worlds(folder: Path) -> dict[str, Path]:
    """Write the generated worlds (see the module docstring) under ``folder``; name -> path."""
    from game.world.scaffold import TEMPLATES, scaffold_text

    texts = {f"tpl-{t}": scaffold_text(f"tpl-{t}", t) for t in TEMPLATES}
    texts["trade-hasonly"] = texts["tpl-trade"].replace(
        '{ kind = "scene", scene = "buy_lantern", outcome = "agreement" }, ', ""
    )
    texts["hatch-token"] = hatch_text("token", "smooth token")
    texts["hatch-decoy"] = hatch_text("token", "smooth token", decoy=True)
    texts["hatch-long"] = hatch_text("oak_key", "oak key", halls=14)
    out = {}
    for name, text in texts.items():
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name / "world.toml").write_text(text)
        out[name] = folder / name
    return out


# --- playing and scoring -------------------------------------------------------------------


def reservation_price(scene: Any, merchant: str, terms: dict[str, str]) -> int | None:
    """The lowest price at which the merchant's utility of ``terms`` (other issues as agreed)
    reaches its reservation (the truth, read for scoring only)."""
    from game.negotiation.utility import utilities_for

    them = utilities_for(scene)[merchant]
    issue = scene.trade.price_issue
    prices = sorted(scene.issues[issue], key=float)
    ok = [int(float(p)) for p in prices if them({**terms, issue: p}) >= them.reservation - 1e-12]
    if not ok:
        return None
    return min(ok) if scene.trade.seller == merchant else max(ok)


def play(world: Any, seed: int, player: str, kind: str | None = None, turn_cost: float = TURN_COST) -> dict[str, Any]:
    """One game; the autopilot sees only the player's observations, the scoring reads the engine."""
    from game.negotiation.utility import utilities_for
    from game.world.spec import NegotiationScene

    game = Game(world, seed=seed, player_kind="autopilot")
    if kind is not None:
        from agents.negotiators import from_kind

        game.engine.scenes.factory = lambda scene, party, utility, params: from_kind(kind, utility)
    sigma = game.facts.sigma if game.facts is not None else None
    if player == "brute":
        pilot: Any = BrutePlayer(seed)
    else:
        pilot = PILOTS[player](seeded_rng(seed), sigma=sigma, turn_cost=turn_cost)
    n_quests, finished, sequence = len(game.spec.quests), None, []
    while not game.engine.done and game.engine.state.turn < game.spec.max_turns:
        decision = pilot.act(*game.player_inputs())
        sequence.append(json.dumps(decision.action.to_dict() if decision.action else None, sort_keys=True))
        game.engine.run_round(decision)
        if finished is None and len(game.engine.state.quests_done) == n_quests:
            finished = game.engine.state.turn
    st = game.engine.state
    deals = []
    for sid, scene in game.spec.scenes.items():
        sess = st.scenes.get(sid, {}).get("session") or {}
        terms = sess.get("agreement")
        if not isinstance(scene, NegotiationScene) or not terms or scene.trade is None:
            continue
        merchant = next(p.id for p in scene.parties if p.id != PLAYER)
        paid = int(float(terms[scene.trade.price_issue]))
        rp = reservation_price(scene, merchant, terms)
        log = getattr(pilot, "neg", {}).get(sid, {}).get("log", ())
        moves = sum(1 for h in log for r in h["history"] if r["party"] == PLAYER) + len(log)
        deals.append(
            {
                "scene": sid,
                "paid": paid,
                "reservation_price": rp,
                "moves": moves,
                "regret": None if rp is None else (paid - rp if scene.trade.seller == merchant else rp - paid),
                "utility": float(utilities_for(scene)[PLAYER](terms)),
                "sessions": len(log),
            }
        )
    return {
        "seed": seed,
        "won": bool(st.won),
        "turns": int(finished if (st.won and finished is not None) else game.spec.max_turns),
        "invalid": int(st.invalid.get(PLAYER, 0)),
        "deals": deals,
        "moves": hashlib.sha256("\n".join(sequence).encode()).hexdigest()[:16],
    }


def summarise(games: list[dict[str, Any]]) -> dict[str, Any]:
    turns = np.array([g["turns"] for g in games], dtype=np.float64)
    wins = sum(g["won"] for g in games)
    deals = [d for g in games for d in g["deals"]]
    regrets = [d["regret"] for d in deals if d["regret"] is not None]
    per_scene: dict[str, dict[str, Any]] = {}
    for d in deals:
        s = per_scene.setdefault(
            d["scene"], {"n": 0, "paid": [], "rp": [], "regret": [], "utility": [], "sessions": [], "moves": []}
        )
        s["n"] += 1
        for k, key in (
            ("paid", "paid"),
            ("rp", "reservation_price"),
            ("regret", "regret"),
            ("utility", "utility"),
            ("sessions", "sessions"),
            ("moves", "moves"),
        ):
            if d[key] is not None:
                s[k].append(d[key])
    return {
        "n": len(games),
        "wins": int(wins),
        "wilson95": wilson(int(wins), len(games)),
        "distinct": len({g["moves"] for g in games}),
        "turns_mean": float(turns.mean()),
        "turns_median": float(np.median(turns)),
        "turns_p90": float(np.percentile(turns, 90)),
        "regret_mean": float(np.mean(regrets)) if regrets else None,
        "invalid_mean": float(np.mean([g["invalid"] for g in games])),
        "scenes": {
            sid: {
                "deals": s["n"],
                "paid_mean": float(np.mean(s["paid"])),
                "reservation_price_mean": float(np.mean(s["rp"])) if s["rp"] else None,
                "regret_mean": float(np.mean(s["regret"])) if s["regret"] else None,
                "utility_mean": float(np.mean(s["utility"])),
                "sessions_mean": float(np.mean(s["sessions"])),
                "moves_mean": float(np.mean(s["moves"])),
            }
            for sid, s in per_scene.items()
        },
    }


def _table(world: Any, seeds: range, players: tuple[str, ...], turn_cost: float) -> dict[str, Any]:
    out = {}
    for player in players:
        t0 = time.perf_counter()
        games = [play(world, s, player, turn_cost=turn_cost) for s in seeds]
        out[player] = summarise(games) | {"seconds": time.perf_counter() - t0, "games": games}
    return out


def run(
    worlds: list[str],
    seeds: range,
    players: tuple[str, ...],
    variants: range | None,
    turn_cost: float = TURN_COST,
    generated: bool = True,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seeds": [seeds.start, seeds.stop - 1],
        "worlds": {},
        "variants": {},
        "generated": {},
        "turn_cost": turn_cost,
    }
    if generated:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            for name, path in generated_worlds(Path(tmp)).items():
                out["generated"][name] = _table(load_world(path), seeds, players, turn_cost)
    for name in worlds:
        world = load_world(WORLD_PATHS.get(name, ROOT / "worlds" / name))
        out["worlds"][name] = _table(world, seeds, players, turn_cost)
        if variants is None or not any(getattr(sc, "trade", None) for sc in world.spec.scenes.values()):
            continue
        out["variants"][name] = {}
        for kind in KINDS:
            out["variants"][name][kind] = {
                p: summarise([play(world, s, p, kind, turn_cost) for s in variants]) for p in ("honest", "linear")
            }
    if variants is not None:
        out["variant_seeds"] = [variants.start, variants.stop - 1]
    return out


def _fmt(x: float | None, spec: str = ".2f") -> str:
    return "n/a" if x is None else format(x, spec)


def _rows(tables: dict[str, Any]) -> list[str]:
    head = (
        f"{'world':<14} {'player':<7} {'wins':>6} {'95% CI':>13} {'distinct':>8} {'turns mean':>10} "
        f"{'median':>7} {'p90':>6} {'regret':>7} {'invalid':>7}"
    )
    lines = [head, "-" * len(head)]
    for name, rows in tables.items():
        for player, r in rows.items():
            lo, hi = r["wilson95"]
            lines.append(
                f"{name:<14} {player:<7} {r['wins']:>3}/{r['n']:<2} {f'[{lo:.2f}, {hi:.2f}]':>13} "
                f"{r['distinct']:>8} {r['turns_mean']:>10.2f} {r['turns_median']:>7.1f} "
                f"{r['turns_p90']:>6.1f} {_fmt(r['regret_mean']):>7} {r['invalid_mean']:>7.2f}"
            )
    return lines


def report(res: dict[str, Any]) -> str:
    lines = [
        f"seeds {res['seeds'][0]}..{res['seeds'][1]} (memory off, trust on); distinct: different "
        "action sequences among the seeds (the CI is over that many independent games at most)",
        "",
    ]
    lines += _rows(res["worlds"])
    if res.get("generated"):
        lines += ["", "generated worlds (not tuned on):"] + _rows(res["generated"])
    lines += [
        "",
        "trades: price paid / merchant's reservation price for the terms agreed, regret, "
        "player's utility, haggling moves (its own moves and trade openings), sessions",
    ]
    for name, rows in res["worlds"].items():
        for player, r in rows.items():
            for sid, s in r["scenes"].items():
                lines.append(
                    f"  {name:<8} {player:<7} {sid:<15} paid {s['paid_mean']:6.2f}  "
                    f"reservation {_fmt(s['reservation_price_mean']):>6}  regret "
                    f"{_fmt(s['regret_mean']):>6}  utility {s['utility_mean']:.3f}  "
                    f"moves {s['moves_mean']:5.2f}  sessions {s['sessions_mean']:.2f}  ({s['deals']} deals)"
                )
    if res.get("variants"):
        a, b = res["variant_seeds"]
        lines += [
            "",
            f"other merchants (every merchant's negotiator replaced; seeds {a}..{b}): "
            "wins, turns mean, regret mean, honest vs linear",
        ]
        for name, kinds in res["variants"].items():
            for kind, rows in kinds.items():
                h, o = rows["honest"], rows["linear"]
                lines.append(
                    f"  {name:<8} {kind:<12} honest {h['wins']:>2}/{h['n']:<2} {h['turns_mean']:6.1f} "
                    f"{_fmt(h['regret_mean']):>6}   linear {o['wins']:>2}/{o['n']:<2} "
                    f"{o['turns_mean']:6.1f} {_fmt(o['regret_mean']):>6}"
                )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--seeds",
        type=seed_range,
        default=range(100, 150),
        help="game seeds A-B (default 100-149, held out: tuning used 0-49)",
    )
    ap.add_argument("--worlds", default=DEFAULT_WORLDS, help=f"project worlds (default {DEFAULT_WORLDS})")
    ap.add_argument("--no-generated", action="store_true", help="skip the generated worlds")
    ap.add_argument("--players", default=",".join(PLAYERS))
    ap.add_argument(
        "--variants",
        type=seed_range,
        default=range(100, 110),
        help="seeds for the other-merchant table (default 100-109)",
    )
    ap.add_argument("--no-variants", action="store_true", help="skip the other-merchant table")
    ap.add_argument(
        "--turn-cost",
        type=float,
        default=TURN_COST,
        help=f"utility every player gives up per extra haggling move (default {TURN_COST})",
    )
    ap.add_argument("--quick", action="store_true", help="10 seeds, 3 variant seeds")
    ap.add_argument("--json", metavar="FILE", help="write every figure to FILE as JSON")
    args = ap.parse_args(argv)
    seeds, variants = args.seeds, None if args.no_variants else args.variants
    if args.quick:
        seeds = range(seeds.start, seeds.start + 10)
        variants = None if variants is None else range(variants.start, variants.start + 3)
    players = tuple(p for p in args.players.split(",") if p)
    unknown = [p for p in players if p not in PILOTS]
    if unknown:
        ap.error(f"unknown player {unknown[0]!r}; players are {', '.join(PILOTS)}")
    t0 = time.perf_counter()
    res = run(
        [w for w in args.worlds.split(",") if w],
        seeds,
        players,
        variants,
        args.turn_cost,
        generated=not args.no_generated,
    )
    print(report(res))
    print(f"\n{time.perf_counter() - t0:.0f} s")
    if args.json:
        write_json(args.json, res)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
