"""The starter world written by ``parley new-world NAME``."""

from __future__ import annotations


def scaffold_text(name: str) -> str:
    title = name.replace("-", " ").title()
    return f'''#:schema ../schema/world.schema.json
# A new Parley world. Validate with: parley validate worlds/{name}
id = "{name}-v1"
title = "{title}"
intro = "You arrive at the edge of {title}."
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

[items.lamp]
name = "brass lamp"
aliases = ["lamp"]
description = "A small brass lamp."
value = 3

[npcs.keeper]
name = "the Keeper"
aliases = ["keeper"]
persona = "An old keeper who knows the yard."
location = "gate"
knowledge = ["lamp_in_yard"]
greeting = "Welcome, traveller."

[relations.located_in]
functional = true

[facts.lamp_in_yard]
subject = "lamp"
relation = "located_in"
object = "yard"
text = "The brass lamp is in the yard."
topic = "lamp"

[quests.find_lamp]
title = "Find the lamp"
goal = [{{ kind = "has", item = "lamp" }}]
reward = {{ score = 10 }}
'''
