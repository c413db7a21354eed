"""Phrasing families for the context benchmark's synthetic logs.

Four families, each a complete set of wordings and names for the settings:

* ``A`` (a harbour town; gold, a town council, buried things): the tune family,
  used for the tune seed range;
* ``B`` (a desert caravan city; dinars, a weavers' guild, a space station's
  hiding places): the first held-out family. It is no longer blind: the
  memory code's correction cues were extended after its wordings were seen;
* ``C`` (other places, other voices; see the tables below): a held-out
  family, no longer blind: its wordings were read while the memory code was
  tuned. Do not quote them in reports;
* ``D`` (benchmarks/context/family_d.py, registered below): the blind
  held-out family the goals are judged on. Do not read its wordings while
  changing the memory code, and do not quote them anywhere: they stay blind
  only as long as nobody tunes against them.

The ``ledger`` setting's wordings are in benchmarks/context/ledger.py (family
D's in family_d.py).

No template string is shared by two families and the entity pools are
disjoint, so held-out figures do not reward wordings seen while tuning. Every
family has the same keys, so the generators in benchmarks/context/logs.py work unchanged.
Every role has several templates. Placeholders: ``{s}`` seller, ``{item}``,
``{v}`` the needed value, ``{p}`` a price that is not needed, ``{cur}`` currency,
``{m}`` council member, ``{o}`` one-time speaker, ``{prop}`` a proposal's
name, ``{para}`` a paraphrase of it, ``{cond}`` a condition, ``{t}`` a
teller, ``{place}`` a hiding place, ``{loc}`` a visited place, ``{x}`` another
item. Questions are written not to repeat the needed line's words: only the
asked thing (the item, the member, the subject) may be shared; the tests check
this on generated logs.

The value pools whose tokens decide a hit (``places``, ``conds``, ``outsiders``,
correction ``values``) are used only by the lines that state them; ambient
and distractor templates never contain those words, and numbers written in
digits outside those lines stay clear of the value ranges (12-160, 1000-9999).
"""

from __future__ import annotations

from benchmarks.context import family_d
from benchmarks.context.ledger import LEDGER

FAMILIES = ("A", "B", "C", "D")

AMBIENT = {
    "A": {
        "observation": (
            "You walk along the quay past the net menders.",
            "Gulls quarrel over a fish head on the pier.",
            "A cart rattles by with barrels of salt herring.",
            "Rain drums on the awning above you.",
            "You check your purse and count what is left.",
            "The tide is going out; boats lean in the mud.",
            "Smoke from the smokehouse drifts across the square.",
            "A boy chases a dog between the stalls.",
        ),
        "utterance": (
            "A fishwife shouts the price of mackerel to nobody in particular.",
            "Two sailors argue about a card game.",
            "A street singer starts another verse.",
            "The town crier announces that the lamp oil tax is due.",
            "Someone complains that the well water tastes of rust.",
        ),
        "other": (
            "You count the coins in your strongbox.",
            "You remind yourself to restock the shelves.",
            "You wonder whether the stranger will come back.",
        ),
    },
    "B": {
        "observation": (
            "Camels groan as they are loaded by the east well.",
            "Heat shimmers over the flat roofs.",
            "A spice seller sweeps cardamom husks from her mat.",
            "Wind sends sand hissing through the arcade.",
            "You step into the shade of a date palm.",
            "Bells ring on a string of donkeys passing by.",
            "The smell of roasting coffee fills the lane.",
            "Children play knucklebones under an arch.",
        ),
        "utterance": (
            "A water carrier sings out his wares.",
            "Two porters bicker over a dropped bale.",
            "A storyteller begins the tale of the brass city.",
            "The muezzin's call rolls over the rooftops.",
            "A cloth dyer curses a spilled vat of indigo.",
        ),
        "other": (
            "You tally the day's takings by lamplight.",
            "You decide to ask your cousin about the shipment.",
            "You glance at the caravan ledger again.",
        ),
    },
}

FLOOD = {
    "A": {
        "sellers": ("Mara", "Hobb", "Jory", "Wenna", "Tamsin", "Ossian"),
        "items": ("spyglass", "compass", "lantern", "sextant", "tinderbox", "hourglass"),
        "cur": "gold",
        "fact": (
            "{s} mutters to a friend that {v} {cur} is the least {s} would take.",
            "Overheard behind the stall: {s} would accept anything down to {v} {cur}.",
            "{s} admits under their breath that even {v} {cur} would leave a profit.",
        ),
        "question": (
            "What is the lowest the seller would go for the {item}?",
            "How cheap could you get the {item} if you bargain hard?",
            "What floor price does the merchant have in mind for the {item}?",
        ),
        "offer": (
            "{s} offers the {item} for {p} {cur}.",
            "'{p} {cur} for the {item}, final offer,' says {s}.",
            "{s} holds up the {item} and names {p} {cur}.",
            "{s} lowers the asking price of the {item} to {p} {cur}.",
            "{s} insists the {item} is worth {p} {cur}, no haggling.",
        ),
        "stock": (
            "{s} polishes the {item} on the counter.",
            "{s} says the {item} came off a wrecked merchantman.",
            "{s} wraps the {item} in a scrap of sailcloth.",
            "A crowd gathers to look at {s}'s {item}.",
        ),
        "other_sale": (
            "{s} sold a {x} to a sailor for {p} {cur} this morning.",
            "A {x} went for {p} {cur} at the spring fair.",
            "{s} says a {x} like that fetches {p} {cur} in the capital.",
        ),
    },
    "B": {
        "sellers": ("Zahir", "Idris", "Noor", "Farah", "Kasim", "Leyla"),
        "items": ("carpet", "astrolabe", "saddle", "teapot", "dagger", "lute"),
        "cur": "dinars",
        "fact": (
            "Through the curtain you hear {s} confide that {v} {cur} would be enough to let it go.",
            "{s}'s apprentice lets slip that the master settles for {v} {cur} when pressed.",
            "You catch {s} telling a cousin: if the buyer holds firm, {v} {cur} will do.",
        ),
        "question": (
            "At what figure would the trader finally give in on the {item}?",
            "What is the bottom line on the {item} in this haggle?",
            "How far down can you push for the {item} before talks break?",
        ),
        "offer": (
            "{s} wants {p} {cur} for the {item}.",
            "'For you, {p} {cur},' {s} says, patting the {item}.",
            "{s} chalks {p} {cur} on the slate beside the {item}.",
            "{s} swears by the prophet's beard the {item} cannot go under {p} {cur}.",
            "The {item}? {s} quotes {p} {cur} with a sigh.",
        ),
        "stock": (
            "{s} unrolls the {item} once more for a passing family.",
            "{s} claims the {item} came from Samarkand.",
            "{s} brushes dust off the {item}.",
            "{s} pours mint tea and nods at the {item}.",
        ),
        "other_sale": (
            "A neighbour of {s} parted with a {x} for {p} {cur} today.",
            "Last week a {x} fetched {p} {cur} in the upper souk.",
            "{s} grumbles that a {x} brings only {p} {cur} these days.",
        ),
    },
}

# Each subject: its value pool (tokens reserved for it) and its wordings. ``asked`` is the asked
# thing, the only word a question may share with the subject's statements.
CORRECTION = {
    "A": {
        "ferry": {
            "values": ("dawn", "dusk", "noon", "midnight"),
            "asked": "ferry",
            "state": ("The ferry leaves at {v}.", "Word on the quay: the ferry goes out at {v}."),
            "correct": ("Change of plan: the ferry now sails at {v}.", "The harbourmaster has moved the ferry to {v}."),
            "echo": ("Someone repeats that the ferry goes at {v}.", "A porter says it again: ferry at {v}."),
            "chatter": ("People grumble about the ferry being late again.", "The ferry's bell clangs twice."),
            "question": (
                "When do you need to be at the water to catch the boat across?",
                "At what time should you be ready to cross to the far shore?",
            ),
        },
        "gate": {
            "values": "code",
            "asked": "gate",
            "state": ("The gate code is {v}.", "The east gate opens to the code {v}."),
            "correct": ("The guards changed the gate code to {v}.", "New code for the east gate: {v}."),
            "echo": ("A guard mumbles the gate code, {v}, to a carter.",),
            "chatter": ("The guards at the gate look bored.", "A carter waits at the gate for inspection."),
            "question": ("Which number lets you into the keep?", "What digits get you past the wall tonight?"),
        },
        "meet": {
            "values": ("Saltmarket", "Gullrock", "Fishgate", "Ropewalk", "Tarrow"),
            "asked": "",
            "state": ("The smugglers meet at {v}.", "Tonight's meeting of the smugglers is at {v}."),
            "correct": ("The smugglers' meeting has moved to {v}.", "Not the old spot: the smugglers meet at {v} now."),
            "echo": ("A fisherman winks: smugglers at {v}.",),
            "chatter": ("Someone whispers about the smugglers.", "The smugglers are nervous, people say."),
            "question": ("Where will the contraband crew gather?", "Where should you go for the illicit trade?"),
        },
        "fare": {
            "values": "price",
            "asked": "",
            "state": ("Passage to the isles costs {v} silver.", "The captain charges {v} silver for passage."),
            "correct": (
                "The captain raised the fare to {v} silver.",
                "Passage now costs {v} silver, says the captain.",
            ),
            "echo": ("A deckhand repeats: {v} silver for passage.",),
            "chatter": ("The captain counts the passengers twice.", "Passengers queue by the gangplank."),
            "question": (
                "How much must you pay to sail to the islands?",
                "What does a berth on the ship across to the archipelago run you?",
            ),
        },
    },
    "B": {
        "caravan": {
            "values": ("sunrise", "sunset", "moonrise", "midday"),
            "asked": "caravan",
            "state": ("The caravan departs at {v}.", "Caravan master's word: departure at {v}."),
            "correct": (
                "Update from the caravan master: departure is now at {v}.",
                "The caravan will set out at {v} instead.",
            ),
            "echo": ("A camel driver mentions the {v} departure.",),
            "chatter": ("The caravan master shouts at the camel drivers.", "Bales are stacked for the caravan."),
            "question": ("At what hour do the camels head off?", "When must you be mounted to ride with the caravan?"),
        },
        "vault": {
            "values": "code",
            "asked": "",
            "state": ("The vault combination is {v}.", "To open the vault, turn the dials to {v}."),
            "correct": ("The banker reset the vault combination to {v}.", "Vault dials changed: {v} opens it now."),
            "echo": ("The clerk repeats the vault combination, {v}.",),
            "chatter": ("The banker's clerk yawns over his ledgers.", "Guards pace outside the vault."),
            "question": (
                "What digits get you into the strongroom?",
                "Which number unlocks the moneylender's safe room?",
            ),
        },
        "muster": {
            "values": ("Cistern", "Oasis", "Qanat", "Dovecote", "Tannery"),
            "asked": "",
            "state": ("The scouts regroup at the {v}.", "Scouts muster at the {v} after dark."),
            "correct": ("Scouts now regroup at the {v} instead.", "The scouts' muster point moved to the {v}."),
            "echo": ("A scout confirms the {v} muster.",),
            "chatter": ("The scouts sharpen their knives.", "A scout's horse is lame again."),
            "question": (
                "Where should you meet the outriders?",
                "Which spot will the riders of the patrol assemble at?",
            ),
        },
        "toll": {
            "values": "price",
            "asked": "",
            "state": ("The mountain pass toll is {v} dinars.", "Wardens at the pass take {v} dinars a head."),
            "correct": (
                "The pass wardens raised the toll to {v} dinars.",
                "Toll at the pass is {v} dinars from today.",
            ),
            "echo": ("A muleteer grumbles about the {v} dinar toll.",),
            "chatter": ("The pass wardens inspect a mule train.", "Snow is reported near the pass."),
            "question": ("What does it cost to cross the ridge?", "How much silver for getting over the heights?"),
        },
    },
}

COUNCIL = {
    "A": {
        "members": ("Orla", "Bram", "Tessaly", "Corwin", "Ysolde", "Garrick", "Edda"),
        "outsiders": ("Hask", "Pellam", "Ruddock", "Minna", "Sedge"),
        "conds": ("tannery", "orchard", "chapel", "smithy", "brewery", "kiln"),
        "proposals": (
            ("levy", "a new tax on trade"),
            ("curfew", "keeping people indoors after dark"),
            ("toll", "charging travellers at the bridge"),
            ("wall", "raising fortifications around the settlement"),
        ),
        "speech": (
            "{m} argues that the {prop} will hurt the market.",
            "{m} reminds the council of last winter.",
            "{m} calls for order in the hall.",
            "{m} reads the {prop} aloud again.",
            "{m} says the treasury is nearly empty.",
            "{m} praises the {prop} as long overdue.",
            "{m} asks how the {prop} would be enforced.",
            "{m} proposes a short recess.",
        ),
        "condition": (
            "{m} will only back the {prop} if the {cond} is exempt.",
            "{m}: 'Spare the {cond} and the {prop} has my vote.'",
            "{m} says the {prop} is acceptable provided the {cond} is left alone.",
        ),
        "opposed": (
            "{o} stands up and calls the {prop} robbery.",
            "{o} votes no on the {prop}, loudly.",
            "{o} shouts that the {prop} will never pass while there is breath in the town.",
        ),
        "ask_condition": (
            "What did {m} ask for in return for supporting {para}?",
            "What would it take to win {m} over on {para}?",
        ),
        "ask_opposed": ("Who objected to {para}?", "Which voice in the hall was hostile to {para}?"),
    },
    "B": {
        "members": ("Ilse", "Varro", "Quen", "Dagny", "Soren", "Malin", "Teodor"),
        "outsiders": ("Brisk", "Haldor", "Nessa", "Ulf", "Yara"),
        "conds": ("dyeworks", "apprentices", "widows", "loomshed", "ferrymen", "almshouse"),
        "proposals": (
            ("dues", "raising the fees members pay"),
            ("charter", "rewriting the founding rules"),
            ("monopoly", "sole rights to the wool trade"),
            ("tariff", "a duty on foreign cloth"),
        ),
        "speech": (
            "Guildmaster {m} thumps the table about the {prop}.",
            "{m} wants the minutes read first.",
            "{m} worries aloud about the price of indigo.",
            "{m} suggests a committee for the {prop}.",
            "{m} recalls the great flood year.",
            "{m} dismisses the {prop} as a distraction.",
            "{m} demands a show of hands on the {prop}.",
            "{m} pours more wine for the elders.",
        ),
        "condition": (
            "{m} names a price for agreeing to the {prop}: the {cond} must be spared.",
            "The {prop} gets {m}'s yes only with the {cond} protected.",
            "{m} insists on one thing before the {prop}: hands off the {cond}.",
        ),
        "opposed": (
            "{o} tears up a copy of the {prop} in front of everyone.",
            "{o} declares the {prop} a betrayal of the guild.",
            "{o} refuses the {prop} outright.",
        ),
        "ask_condition": (
            "What did {m} want in exchange for a vote on {para}?",
            "Under what terms would {m} sign on to {para}?",
        ),
        "ask_opposed": ("Who rejected {para}?", "Which person spoke against {para}?"),
    },
}

RUMOURS = {
    "A": {
        "items": ("brass key", "silver locket", "ship's ledger", "signet ring", "jade idol"),
        "places": ("Cragmoor", "Fenwick", "Lowmarsh", "Thornby", "Ashcombe", "Briarwood", "Kestrel"),
        "locs": (
            "the market square",
            "the chandlery",
            "the old pier",
            "the chapel steps",
            "the net lofts",
            "the ropewalk",
            "the Anchor inn",
        ),
        "tellers": ("Old Wen", "a drunk sailor", "the chandler's boy", "a tinker"),
        "fact": (
            "{t} swears the {item} is buried near {place}.",
            "{t} whispers that the {item} was stashed at {place}.",
            "According to {t}, the {item} lies under a stone at {place}.",
        ),
        "question": ("Where should you dig for the {item}?", "In which direction does the trail to the {item} point?"),
        "lead": (
            "{t} says nobody has seen the {item} in years.",
            "{t} laughs at anyone hunting the {item}.",
            "{t} claims the {item} is cursed.",
        ),
        "move": (
            "You walk to {loc}.",
            "You look around {loc}: nothing unusual.",
            "You arrive at {loc} and rest a moment.",
            "You search {loc} but find only rubbish.",
        ),
    },
    "B": {
        "items": ("data chip", "keycard", "medkit", "tracker beacon", "fuel cell"),
        "places": ("Hydroponics", "Reactorside", "Cargohold", "Sickbay", "Airlockseven", "Observatory", "Brig"),
        "locs": (
            "the mess deck",
            "corridor C",
            "the crew lounge",
            "the docking ring",
            "the maintenance shaft",
            "the gym",
            "the chapel module",
        ),
        "tellers": ("a mechanic", "Ensign Vole", "the quartermaster", "a cleaning drone"),
        "fact": (
            "{t} mentions the {item} was taped behind a panel in {place}.",
            "{t} reckons someone left the {item} in {place}.",
            "Per {t}, the {item} is tucked away inside {place}.",
        ),
        "question": ("Which section of the ship holds the {item}?", "Where aboard can you recover the {item}?"),
        "lead": (
            "{t} doubts the {item} even exists.",
            "{t} warns you off looking for the {item}.",
            "{t} has a theory about the {item} but will not say more.",
        ),
        "move": (
            "You float into {loc}.",
            "You scan {loc}: all quiet.",
            "You pass through {loc} on your rounds.",
            "You check {loc} but the lockers are empty.",
        ),
    },
}

# --------------------------------------------------------------------------- family C
# Held out, but no longer blind: its wordings were read while the memory code was tuned. Still, do not
# quote them anywhere. The blind family is D (benchmarks/context/family_d.py).

AMBIENT["C"] = {
    "observation": (
        "Frost feathers the windows of the signal box.",
        "A shunting engine wheezes past the coal stage.",
        "You stamp snow off your boots by the waiting-room door.",
        "Ice floes bump against the hulls moored along the river.",
        "The 3 lamps on the footbridge flicker in the wind.",
        "Your breath hangs in the air while the station clock ticks on.",
        "Stevedores knock ice off the mooring ropes with mallets.",
        "A goods wagon is uncoupled with a clank at siding 4.",
    ),
    "utterance": (
        "A porter bellows that the 9 o'clock goods is running behind.",
        "'Who left the coal scuttle out in the snow?' somebody asks.",
        "A newsboy cries the headlines about the frozen canal.",
        "Two bargemen wager on the week the river will thaw.",
        "The stationmaster's wife calls her children in from the cold.",
    ),
    "other": (
        "You note that the stove wants more coal.",
        "You tally 300 sacks in the warehouse book.",
        "You wonder if the spring boats will come early this year.",
    ),
}

FLOOD["C"] = {
    "sellers": ("Oskar", "Brunhild", "Tiberius", "Magda", "Anselm", "Ottilie"),
    "items": ("crucible", "retort", "mortar", "lodestone", "bellows", "cauldron"),
    "cur": "thalers",
    "fact": (
        "Between us, {s} would let it go for {v} {cur} if pressed.",
        "{s} admits to the cooper that {v} {cur} beats carrying it home again.",
        "It was let slip by {s}'s journeyman that {v} {cur} in hand would settle it.",
    ),
    "question": (
        "How little could you pay for the {item} if you drive a hard bargain?",
        "If you outwait the stallholder, what will the {item} end up costing?",
        "What sum closes the deal on the {item} when you refuse to budge?",
    ),
    "offer": (
        "{s} taps the {item}: {p} {cur}.",
        "Asked about the {item}, {s} says {p} {cur} and not a copper less.",
        "The {item} is marked at {p} {cur} on {s}'s board.",
        "'Would you do {p} {cur}?' {s} asks a buyer eyeing the {item}.",
        "{s} knocks the {item} down to {p} {cur} for the lady in grey.",
    ),
    "stock": (
        "{s} blows soot off the {item}.",
        "{s} swears the {item} belonged to a court magus.",
        "The {item} sits under a glass bell on {s}'s bench.",
        "Apprentices crowd round {s}'s {item}.",
    ),
    "other_sale": (
        "{s} heard a {x} fetched {p} {cur} at the guild auction.",
        "Is {p} {cur} fair for a {x}? {s} thinks not.",
        "A {x} changed hands for {p} {cur} down Tinctor Lane, {s} reports.",
    ),
}

CORRECTION["C"] = {
    "hatch": {
        "values": "code",
        "asked": "hatch",
        "state": ("The depot hatch code is {v}.", "Depot hatch: punch {v} to cycle it open."),
        "correct": ("The depot hatch code is {v}.", "Scrap what I said about the hatch, it's {v}."),
        "echo": (
            "A rigger reads the hatch digits off her glove: {v}.",
            "{v}, somebody repeats, thumbing the hatch pad.",
        ),
        "chatter": (
            "Does anyone know why the hatch keeps icing up?",
            "The supply officer counts oxygen canisters twice.",
        ),
        "question": (
            "What do you key in to get through the hatch?",
            "Which number gets the hatch to let you into the stores?",
        ),
    },
    "audience": {
        "values": ("Terce", "Sext", "Vespers", "Compline", "Lauds"),
        "asked": "",
        "state": ("Pilgrims are received by the abbot after {v}.", "The abbot sees pilgrims once {v} is sung."),
        "correct": (
            "The abbot's hour for pilgrims has been pushed back to {v}.",
            "Pilgrims are received by the abbot after {v}.",
        ),
        "echo": ("A lay brother reminds the queue: the abbot, after {v}.",),
        "chatter": ("How many pilgrims climbed the path today?", "The abbot is said to be unwell."),
        "question": (
            "When can a visitor get an audience with the head of the monastery?",
            "At what time will the monks' superior grant you a hearing?",
        ),
    },
    "landing": {
        "values": ("Tallowgate", "Coldharbour", "Ferrymead", "Eelbrook", "Saltings"),
        "asked": "",
        "state": ("The last barge before the freeze loads at {v} landing.", "Cargo for the last barge goes to {v}."),
        "correct": ("They've relocated the barge loading to {v}.", "The last barge is now loading at {v}."),
        "echo": ("A carter turns his horse toward {v} with a load for the barge.",),
        "chatter": ("Will the river stay open another week?", "Bargemen curse the thickening ice."),
        "question": (
            "Where should you bring your crates to get them aboard while the river is still open?",
            "Which wharf takes the final boat's freight this season?",
        ),
    },
    "ticket": {
        "values": "price",
        "asked": "",
        "state": (
            "A seat on the night mail to Harrowby is {v} pence.",
            "The booking clerk wants {v} pence for the night mail.",
        ),
        "correct": (
            "A seat on the night mail to Harrowby is {v} pence.",
            "Night mail seats switched to {v} pence this morning.",
        ),
        "echo": ("Grumbling in the queue about paying {v} pence for the mail.",),
        "chatter": (
            "Is the mail train ever on time in this weather?",
            "The booking clerk stokes the stove by the window.",
        ),
        "question": (
            "How much does it cost to ride the overnight post train?",
            "What do they charge for a place on the evening express?",
        ),
    },
}

COUNCIL["C"] = {
    "members": ("Aldric", "Isenbard", "Rowena", "Leofric", "Gisela", "Theobald", "Mechthild"),
    "outsiders": ("Wulfstan", "Ebba", "Radulf", "Hildegund", "Osric"),
    "conds": ("squires", "farriers", "pavilions", "destriers", "armourers", "chaplains"),
    "proposals": (
        ("melee", "a mass combat on the closing day"),
        ("ransom", "keeping defeated riders captive for gold"),
        ("purse", "the prize money for champions"),
        ("tilt", "jousting with sharpened lances"),
    ),
    "speech": (
        "{m} asks whether the {prop} was ever tried at Carrow Field.",
        "Marshal {m} bangs a gauntlet on the trestle over the {prop}.",
        "{m} complains the lists are still muddy.",
        "{m} wants the heralds to read out the rules of the {prop} again.",
        "{m} recalls the tourney where 3 lances broke in one pass.",
        "Is the {prop} even lawful, {m} wonders aloud.",
        "{m} moves that the {prop} be voted on after supper.",
        "{m} sends a page for more ale.",
    ),
    "condition": (
        "{m} will vote for the {prop} on one condition: the {cond} get paid first.",
        "The {prop} can be backed by {m}, provided the {cond} are housed inside the walls.",
        "Would {m} support the {prop}? Yes, if nobody touches the {cond}.",
    ),
    "opposed": (
        "{o} spits on the floor at the mention of the {prop}.",
        "The {prop} is denounced by {o} as a fool's scheme.",
        "{o} walks out rather than hear another word for the {prop}.",
    ),
    "ask_condition": ("What would {m} need before endorsing {para}?", "On what terms is {m} willing to accept {para}?"),
    "ask_opposed": ("Whose voice was loudest against {para}?", "Name the person who would not stomach {para}."),
}

RUMOURS["C"] = {
    "items": ("silver reliquary", "psalter", "prior's seal", "iron censer", "bone flute"),
    "places": ("Scriptorium", "Ossuary", "Refectory", "Belfry", "Cellarium", "Calefactory", "Lavatorium"),
    "locs": (
        "the herb garden",
        "the guesthouse",
        "the goat pens",
        "the lower terrace",
        "the pilgrims' stair",
        "the woodshed",
        "the bakehouse",
    ),
    "tellers": ("Brother Cuthbert", "a novice", "the cellarer", "an old pilgrim"),
    "fact": (
        "{t} confides that the {item} was walled up in the {place}.",
        "The {item} was hidden in the {place} years ago, says {t}.",
        "Ask {t} and you hear the {item} lies beneath the {place}'s flagstones.",
    ),
    "question": (
        "Where in the abbey would you look for the {item}?",
        "Which part of the cloister conceals the {item}?",
    ),
    "lead": (
        "{t} thinks the {item} was sold off long ago.",
        "Is the {item} real? {t} only shrugs.",
        "{t} says 2 monks went mad looking for the {item}.",
    ),
    "move": (
        "You climb to {loc}.",
        "You linger at {loc}; the wind bites.",
        "Snow lies thick on {loc}; nothing here.",
        "You poke about {loc} and turn up only straw.",
    ),
}


# --------------------------------------------------------------------------- family D
# The blind held-out family lives in benchmarks/context/family_d.py (do not read it while changing the
# memory code); its tables are registered here. The ledger setting's wordings, every family's, are in
# benchmarks/context/ledger.py.
for _table, _d in (
    (AMBIENT, family_d.AMBIENT),
    (FLOOD, family_d.FLOOD),
    (CORRECTION, family_d.CORRECTION),
    (COUNCIL, family_d.COUNCIL),
    (RUMOURS, family_d.RUMOURS),
):
    _table["D"] = _d

SETTINGS = ("flood", "correction", "council", "rumours", "ledger")


def templates(family: str) -> list[str]:
    """Every template string of ``family`` (for checking that families share none)."""
    out: list[str] = []

    def walk(x) -> None:
        if isinstance(x, str):
            if "{" in x or " " in x:
                out.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, (tuple, list)):
            for v in x:
                walk(v)

    for table in (AMBIENT, FLOOD, CORRECTION, COUNCIL, RUMOURS, LEDGER):
        walk(table[family])
    return out
