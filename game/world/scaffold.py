"""The starter worlds written by ``parley new-world NAME [--template KIND]``.

Three templates, each a small world that validates and can be won in a few
turns, with comments that show what else can be written:

* ``adventure`` (the default): two locations, a lamp to find, and a keeper who
  tells the truth about the lamp but lies about treasure (per-topic honesty);
* ``trade``: a merchant who sells a lantern through a negotiation scene that
  uses the player's default party (prefer a lower price);
* ``council``: a council scene with members, argument banks, and a ledger that
  persuades the undecided member.
"""

from __future__ import annotations

from game.core.errors import InputError, did_you_mean

TEMPLATES = ("adventure", "trade", "council")
"""The template names, the default first."""

WIN_SCRIPTS = {
    "adventure": ["look", "ask keeper about treasure", "north", "take lamp"],
    "trade": ["east", "talk to merchant", "trade with merchant", "offer 4", "accept"],
    "council": ["east", "take ledger", "west", "north", "give ledger to widow", "vote yes"],
}
"""A short script that wins each template (``parley run WORLD --script FILE``)."""


def scaffold_text(name: str, template: str = "adventure") -> str:
    """The world.toml of a new world called ``name`` (id ``NAME-v1``) from ``template``."""
    if template not in TEMPLATES:
        raise InputError(
            f"unknown world template {template!r}",
            hint=did_you_mean(template, TEMPLATES) or f"templates: {', '.join(TEMPLATES)}",
        )
    title = name.replace("-", " ").title()
    return {"adventure": _adventure, "trade": _trade, "council": _council}[template](name, title)


_HEAD = """#:schema ../schema/world.schema.json
# A new Parley world ({template} template). Validate with: parley validate worlds/{name}
# Play it with: parley play worlds/{name}
# Entries may also live in their own files: npcs/<id>.toml, items/<id>.toml,
# locations/<id>.toml, facts/<id>.toml, quests/<id>.toml, scenes/<id>.toml.
id = "{name}-v1"
title = "{title}"
"""


def _adventure(name: str, title: str) -> str:
    return (
        _HEAD.format(template="adventure", name=name, title=title)
        + f"""intro = "You arrive at the edge of {title}."
start = "gate"

[player]
name = "Traveller"
gold = 10

[locations.gate]
name = "Gate"
description = "A weathered gate. A path leads north."
exits = {{ north = "yard" }}

[locations.yard]
name = "Yard"
description = "A quiet yard. The gate is south."
exits = {{ south = "gate" }}
items = ["lamp"]
# A locked exit needs a key item:
# locked = {{ north = {{ key = "iron_key", name = "iron gate", message = "The iron gate is locked." }} }}

[items.lamp]
name = "brass lamp"
aliases = ["lamp"]
description = "A small brass lamp."
value = 3

# The keeper tells the truth about the lamp, and always lies about treasure:
# honesty is the chance of telling a true fact, by topic (default for the rest).
[npcs.keeper]
name = "the Keeper"
aliases = ["keeper"]
persona = "An old keeper who knows the yard, and likes to send treasure hunters down the well."
location = "gate"
knowledge = ["lamp_in_yard", "treasure_in_well", "treasure_is_lamp"]
honesty = {{ default = 1.0, topics = {{ treasure = 0.0 }} }}
greeting = "Welcome, traveller."
# How an NPC acts (parameters are checked per kind):
# agent = {{ kind = "wanderer", params = {{ moves = ["gate", "yard"], p = 0.3 }} }}
# agent = {{ kind = "patrol", params = {{ route = ["gate", "yard"] }} }}

[relations.located_in]
functional = true

[facts.lamp_in_yard]
subject = "lamp"
relation = "located_in"
object = "yard"
text = "The brass lamp is in the yard."
topic = "lamp"

[facts.treasure_is_lamp]
subject = "treasure"
relation = "located_in"
object = "yard"
text = "The only treasure here is the brass lamp in the yard."
topic = "treasure"

# A rumour that is false in this world: only a liar (or a fool) tells it.
[facts.treasure_in_well]
subject = "treasure"
relation = "located_in"
object = "well"
text = "A chest of gold lies at the bottom of the well."
topic = "treasure"
true = false

[quests.find_lamp]
title = "Find the lamp"
goal = [{{ kind = "has", item = "lamp" }}]
reward = {{ score = 10 }}
# Other goals: {{ kind = "at", location = "yard" }}, {{ kind = "item_at", item = "lamp", location = "gate" }},
# {{ kind = "gave", item = "lamp", npc = "keeper" }}, {{ kind = "opened", item = "chest" }},
# {{ kind = "scene", scene = "some_scene", outcome = "agreement" }}
"""
    )


def _trade(name: str, title: str) -> str:
    return (
        _HEAD.format(template="trade", name=name, title=title)
        + f"""intro = "The market of {title} is open. A merchant sells a lantern."
start = "square"

[player]
name = "Traveller"
gold = 12

[locations.square]
name = "Market Square"
description = "A cobbled square. A merchant's stall stands to the east."
exits = {{ east = "stall" }}

[locations.stall]
name = "Merchant's Stall"
description = "A stall hung with lanterns. The square is west."
exits = {{ west = "square" }}

[items.lantern]
name = "tin lantern"
aliases = ["lantern"]
description = "A tin lantern with a fresh wick."
value = 8

[npcs.merchant]
name = "Mira the merchant"
aliases = ["mira", "merchant"]
persona = "A brisk merchant who never sells below cost."
location = "stall"
inventory = ["lantern"]
trade = "buy_lantern"
greeting = "A fine lantern, friend. Make me an offer: trade with me."
# negotiator: boulware (concedes late), linear, conceder (concedes early), hardliner,
# tit_for_tat, aspiration or random; negotiator_params tune it, e.g. {{ exponent = 0.5 }}.
agent = {{ kind = "idle", params = {{ negotiator = "linear" }} }}

[scenes.buy_lantern]
type = "negotiation"
title = "the tin lantern"
issues = {{ price = [4, 6, 8, 10] }}  # numbers are fine: they read as "4", "6", ...
deadline = 6
trade = {{ item = "lantern", seller = "merchant", price_issue = "price" }}
# The player's party is left out, so it gets the default: the buyer prefers a lower price
# (utility 1 at the lowest price, 0 at the highest), any other issue is neutral (weight 0),
# reservation 0, and the player opens. Spell it out to change that:
# [[scenes.buy_lantern.parties]]
# id = "player"
# weights = {{ price = 1.0 }}
# values = {{ price = {{ 4 = 1.0, 6 = 0.66, 8 = 0.33, 10 = 0.0 }} }}
# reservation = 0.0

[[scenes.buy_lantern.parties]]
id = "merchant"
weights = {{ price = 1.0 }}
values = {{ price = {{ 4 = 0.0, 6 = 0.4, 8 = 0.7, 10 = 1.0 }} }}
reservation = 0.4  # no deal is worth 0.4 to her: she will not sell for 4

[quests.buy_lantern]
title = "Buy the lantern"
goal = [{{ kind = "scene", scene = "buy_lantern", outcome = "agreement" }}, {{ kind = "has", item = "lantern" }}]
reward = {{ score = 10 }}
"""
    )


def _council(name: str, title: str) -> str:
    """The council template: the village, its three councillors, then the bridge motion (``_COUNCIL_SCENE``)."""
    return (
        _HEAD.format(template="council", name=name, title=title)
        + f"""intro = "The council of {title} debates the old bridge. The miller's ledger may sway a doubter."
start = "square"

[player]
name = "Traveller"

[locations.square]
name = "Village Square"
description = "The village square. The council hall is north; the mill is east."
exits = {{ north = "hall", east = "mill" }}

[locations.hall]
name = "Council Hall"
description = "A long hall with benches. The square is south."
exits = {{ south = "square" }}

[locations.mill]
name = "Mill"
description = "A dusty mill. The square is west."
exits = {{ west = "square" }}
items = ["ledger"]

[items.ledger]
name = "mill ledger"
aliases = ["ledger"]
description = "The mill's ledger: every cart lost at the ford is written down."

[npcs.reeve]
name = "Reeve Aldo"
aliases = ["reeve", "aldo"]
location = "hall"
agent = {{ kind = "debater" }}

[npcs.miller]
name = "Miller Bran"
aliases = ["miller", "bran"]
location = "hall"
agent = {{ kind = "debater" }}

[npcs.widow]
name = "Widow Cole"
aliases = ["widow", "cole"]
location = "hall"
agent = {{ kind = "debater" }}

"""
        + _COUNCIL_SCENE
    )


_COUNCIL_SCENE = """[scenes.bridge]
type = "council"
title = "The bridge motion"
motion = "Rebuild the old bridge before winter."
location = "hall"  # the debate runs while you are in the hall; `vote yes` or `vote no` ends it
max_rounds = 3
majority = 0.5     # share of yes votes needed, strictly more

[[scenes.bridge.participants]]
id = "reeve"
role = "chair"
stance = "for"
arguments = ["The ford takes a cart a month.", "A bridge pays for itself in tolls."]

[[scenes.bridge.participants]]
id = "miller"
stance = "against"
arguments = ["The ford has served us for a hundred years."]

[[scenes.bridge.participants]]
id = "widow"
stance = "undecided"
arguments = ["Show me what the ford has cost us."]
converted = ["The ledger is plain: build the bridge."]  # what she says once persuaded
persuaded_by = ["ledger"]  # giving her this wins her vote

[[scenes.bridge.participants]]
id = "player"

[quests.pass_motion]
title = "Pass the bridge motion"
description = "Win the widow over with the mill's ledger, then vote yes."
goal = [{ kind = "scene", scene = "bridge", outcome = "passed" }]
reward = { score = 10 }
"""
