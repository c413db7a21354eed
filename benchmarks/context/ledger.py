"""Wordings of the ``ledger`` setting (benchmarks/context/logs.py), one table a phrasing family.

A ledger is a long log kept on a journey: a fishing lugger's (A), a caravan's
(B), a sledging party's (C) and a river survey party's (D, in
benchmarks/context/family_d.py, blind). Each table has:

* ``people``: names; five of them carry the facts, the others the near-duplicates;
* ``ambient``: the journey's everyday lines (``observation``, ``utterance``,
  ``other``), with no digits, no number words and no value of any pool;
* five subjects, each with ``values`` (a tuple, or ``"price"`` for numbers
  12-95; the first few are the fact's, the rest go to near-duplicates),
  ``asked`` (the people a question names: the only words it may share with
  the fact's lines),
  ``state``, ``correct`` (some with no cue word), ``echo``, ``near`` (the
  same kind of fact about other people or other things), ``chatter`` (the
  subject's people or things, no value) and ``question``. ``{a}`` and ``{b}``
  are people, ``{v}`` the value.

The subjects are a person's allergy, a promise, a time of day, a countersign
and a debt.
"""

from __future__ import annotations

from benchmarks.context import family_d

SUBJECTS = ("allergy", "promise", "time", "countersign", "debt")

LEDGER = {
    "A": {
        "people": (
            "Jowan",
            "Kerensa",
            "Pasco",
            "Demelza",
            "Loveday",
            "Jago",
            "Morwenna",
            "Tressa",
            "Bryok",
            "Elowen",
            "Kitto",
            "Senara",
        ),
        "ambient": {
            "observation": (
                "Shot the nets off the headland; light catch.",
                "Heavy swell from the west, lugger rolling badly.",
                "Mended the foresail where it chafed on the mast.",
                "Pumped the bilge at the change of watch.",
                "Sighted a collier beating up the channel.",
                "Fog till midmorning, then clear.",
            ),
            "utterance": (
                "The skipper curses the price of tar.",
                "Somebody swears they saw a seal off the bow.",
                "The boy asks again when we will be home.",
                "Old hands grumble about the pilchards being scarce.",
            ),
            "other": ("Counts the catch again in the hold.", "Looks at the sky and says nothing."),
        },
        "allergy": {
            "values": ("cockles", "oysters", "hazelnuts", "eggs", "rhubarb", "barley", "honey", "pepper"),
            "asked": ("a",),
            "state": ("{a} must not eat {v}, or the skin comes up in welts.", "{a} cannot touch {v}."),
            "correct": (
                "{a} cannot touch {v}.",
                "Turns out {a}'s trouble is {v}, says the bonesetter.",
                "{a} went blotchy again; {v} this time, plain as day.",
            ),
            "echo": ("Kept {v} off {a}'s trencher.",),
            "near": ("{a} goes red in the face from {v}.", "No {v} for {a}, ever."),
            "chatter": ("{a} is seasick at the rail.", "{a} sleeps through the dog watch."),
            "question": ("What would make {a} ill at table?", "Which dish should {a} refuse?"),
        },
        "promise": {
            "values": (
                "sea chest",
                "oilskin coat",
                "brass whistle",
                "clay pipe",
                "fishing rod",
                "net needle",
                "tin lantern",
                "telescope",
            ),
            "asked": ("a", "b"),
            "state": ("{a} has promised {b} the {v} when we land the catch.", "{a} swore to {b}: the {v} is theirs."),
            "correct": (
                "{a} swore to {b}: the {v} is theirs.",
                "Different story now: {a} means {b} to have the {v}.",
                "{a} will give {b} the {v} on the quay.",
            ),
            "echo": ("{b} asks {a} after the {v}.",),
            "near": ("{a} has promised {b} a {v} for the christening.", "{b} is to have {a}'s {v}, they say."),
            "chatter": ("{a} and {b} haul the net together.", "{b} laughs at something {a} said."),
            "question": ("What is {b} going to get off {a}?", "Which belonging passes from {a} to {b}?"),
        },
        "time": {
            "values": ("two", "three", "four", "five", "six", "seven", "eight"),
            "asked": (),
            "state": ("We sail on the tide at {v} bells.", "Casting off at {v} bells."),
            "correct": ("Casting off at {v} bells.", "Skipper now says {v} bells for leaving harbour."),
            "echo": ("All hands aboard by {v} bells.",),
            "near": ("Grog served at {v} bells.", "The lamps are trimmed at {v} bells."),
            "chatter": ("The mooring lines are frayed.", "Gulls settle on the harbour wall."),
            "question": ("When does the boat head out to sea?", "At what hour does the crew depart the quay?"),
        },
        "countersign": {
            "values": (
                "driftwood",
                "barnacle",
                "stormpetrel",
                "longshore",
                "lobsterpot",
                "saltcod",
                "mainbrace",
                "foghorn",
            ),
            "asked": (),
            "state": ("The password at the fish cellar is {v}.", "Give {v} at the cellar door."),
            "correct": ("Give {v} at the cellar door.", "Cellar password changed to {v}."),
            "echo": ("Whispered {v} and the cellar opened.",),
            "near": ("The smugglers down the coast use {v}.", "Old password, now retired: {v}."),
            "chatter": ("The cellar smells of brine.", "A lamp burns in the cellar window."),
            "question": (
                "What word gets you in past the watchman of the store?",
                "How do you answer the challenge at the pilchard house?",
            ),
        },
        "debt": {
            "values": "price",
            "asked": ("a", "b"),
            "state": ("{a} owes {b} {v} silver for a share of nets.", "{a} is in debt to {b}, {v} silver."),
            "correct": ("{a} is in debt to {b}, {v} silver.", "After paying some, {a} still owes {b} {v} silver."),
            "echo": ("{b} reminds {a} of the {v} silver.",),
            "near": ("{a} lent {b} {v} silver last spring.", "{a} owes {b} {v} silver for bait."),
            "chatter": ("{a} and {b} argue over the share.", "{a} avoids {b} on deck."),
            "question": ("What must {a} settle with {b} to be square?", "How much coin is {a} short with {b}?"),
        },
    },
    "B": {
        "people": (
            "Rashid",
            "Samira",
            "Tariq",
            "Yasmin",
            "Bilal",
            "Hana",
            "Omar",
            "Dalia",
            "Karim",
            "Rania",
            "Jamal",
            "Salma",
        ),
        "ambient": {
            "observation": (
                "Crossed a salt flat before the heat of the day.",
                "A camel went lame; redistributed its load.",
                "Camped by a dry wadi under thorn trees.",
                "Sandstorm on the horizon, but it passed north.",
                "Filled the skins at a brackish well.",
                "Stars very bright; navigated by them till dawn.",
            ),
            "utterance": (
                "The guide says the next well is sweeter.",
                "Drivers sing to keep the animals moving.",
                "A merchant complains the road was shorter in his father's time.",
                "Someone tells a joke about a jinn and a goat.",
            ),
            "other": ("Checks the bales for sand in the seams.", "Prays quietly apart from the others."),
        },
        "allergy": {
            "values": ("pistachios", "figs", "apricots", "lentils", "almonds", "chickpeas", "pomegranates", "yoghurt"),
            "asked": ("a",),
            "state": ("{a} falls ill from {v}; keep them away.", "For {a}: never {v}."),
            "correct": (
                "For {a}: never {v}.",
                "The healer says {a}'s sickness comes from {v}, not the other.",
                "{a} is fine with everything but {v}.",
            ),
            "echo": ("The cook left {v} out of {a}'s dish.",),
            "near": ("{a} gets a fever from {v}.", "{a} avoids {v} at every meal."),
            "chatter": ("{a} rides at the back of the line.", "{a} shares water with the drivers."),
            "question": ("What should {a} be kept from eating?", "Which food harms {a}?"),
        },
        "promise": {
            "values": (
                "silver bracelet",
                "prayer rug",
                "water skin",
                "leather belt",
                "brass lamp",
                "silk scarf",
                "ivory comb",
                "coral beads",
            ),
            "asked": ("a", "b"),
            "state": ("{a} pledged the {v} to {b} at journey's end.", "{a} vowed {b} would have the {v}."),
            "correct": (
                "{a} vowed {b} would have the {v}.",
                "{a} has changed the gift: {b} gets the {v}.",
                "{a} will hand over the {v} to {b} in the city.",
            ),
            "echo": ("{b} eyes {a}'s {v} hopefully.",),
            "near": ("{a} pledged a {v} to {b} for the wedding.", "{b} was promised the {v} by {a}."),
            "chatter": ("{a} and {b} share dates by the fire.", "{b} rides beside {a} all morning."),
            "question": ("What is coming to {b} from {a}?", "Which possession of {a} goes to {b}?"),
        },
        "time": {
            "values": ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"),
            "asked": (),
            "state": ("The caravan moves off at {v} in the morning.", "Loading done, departure set for {v}."),
            "correct": ("The caravan moves off at {v} in the morning.", "Departure moved to {v} by the guide."),
            "echo": ("Drivers told: {v}, sharp.",),
            "near": ("The camels are watered at {v}.", "Evening prayers at {v} today."),
            "chatter": ("Saddles are stacked by the tents.", "The lead camel groans at the ropes."),
            "question": ("When does the riding start?", "At what hour will the beasts be on the road?"),
        },
        "countersign": {
            "values": ("tamarind", "saffron", "oleander", "jackal", "sandgrouse", "carnelian", "mirage", "hoopoe"),
            "asked": (),
            "state": ("The night watch answers to {v}.", "Word for the sentries: {v}."),
            "correct": ("Word for the sentries: {v}.", "The guide gave out a fresh word, {v}."),
            "echo": ("Said {v} at the tents and was let in.",),
            "near": ("Bandits in the hills are said to use {v}.", "Last month the word was {v}."),
            "chatter": ("The sentries huddle in cloaks.", "A dog barks at the edge of camp."),
            "question": (
                "What must you say to the guards after dark?",
                "Which secret lets you return to the camp after sundown?",
            ),
        },
        "debt": {
            "values": "price",
            "asked": ("a", "b"),
            "state": ("{a} owes {b} {v} dinars for a camel.", "{b} lent {a} {v} dinars at the oasis."),
            "correct": ("{a} owes {b} {v} dinars for a camel.", "{a} repaid part; {v} dinars left to {b}."),
            "echo": ("{b} mentions the {v} dinars to {a}.",),
            "near": ("{a} borrowed {v} dinars from {b} for fodder.", "{a} owes {b} {v} dinars from dice."),
            "chatter": ("{a} and {b} haggle over nothing.", "{b} watches {a}'s purse."),
            "question": ("How much must {a} give {b} to settle?", "What sum is {a} behind with {b}?"),
        },
    },
    # Family C's ledger wordings live here, not beside family C's other tables.
    "C": {
        "people": (
            "Halvard",
            "Signe",
            "Eirik",
            "Solveig",
            "Torstein",
            "Ragna",
            "Arvid",
            "Gunhild",
            "Leif",
            "Astrid",
            "Sindre",
            "Hege",
        ),
        "ambient": {
            "observation": (
                "Hauled the sledges over pressure ridges all day.",
                "Whiteout after noon; stayed in the tents.",
                "The dogs fought over a frozen scrap.",
                "Built a snow wall against the wind.",
                "Sun low on the horizon, never quite setting.",
                "Crossed a crevasse field roped together.",
            ),
            "utterance": (
                "The doctor says frostbite is the real enemy.",
                "Somebody reads aloud from the only novel.",
                "Talk of hot baths and green fields.",
                "The dog handler swears the lead bitch is the cleverest.",
            ),
            "other": ("Rubs snow into a numb cheek.", "Writes the day's distance by a stub of candle."),
        },
        "allergy": {
            "values": ("oatmeal", "kippers", "cheese", "raisins", "cocoa", "lemons", "cabbage", "peas"),
            "asked": ("a",),
            "state": ("{a} reacts badly to {v} and must go without.", "{a} and {v} do not mix."),
            "correct": (
                "{a} and {v} do not mix.",
                "Doctor's note, revised: {a} is to avoid {v}.",
                "{a} came out in hives from {v} yesterday.",
            ),
            "echo": ("Took the {v} from {a}'s ration.",),
            "near": ("{a} gets hives from {v}.", "{a} is kept off {v}."),
            "chatter": ("{a} is snow-blind for a day.", "{a} sings while harnessing the dogs."),
            "question": ("What should {a} leave uneaten?", "Which food would make {a} sick?"),
        },
        "promise": {
            "values": (
                "fur mittens",
                "snow goggles",
                "ice chisel",
                "chess set",
                "banjo",
                "reindeer hide",
                "pocket stove",
                "fountain pen",
            ),
            "asked": ("a", "b"),
            "state": ("{a} has said the {v} goes to {b} when we reach the coast.", "{a} promised {b} the {v}."),
            "correct": (
                "{a} promised {b} the {v}.",
                "{a} has reconsidered; {b} shall have the {v}.",
                "{a} is leaving the {v} to {b}, in writing.",
            ),
            "echo": ("{b} asks {a} to keep the {v} dry.",),
            "near": ("{a} once offered {b} the {v}.", "{b} hopes to inherit {a}'s {v}."),
            "chatter": ("{a} and {b} share a sleeping bag for warmth.", "{b} helps {a} with the harness."),
            "question": ("What will {b} receive from {a}?", "Which belonging is bound for {b} from {a}?"),
        },
        "time": {
            "values": ("0500", "0600", "0700", "0800", "0900", "1000", "1100", "1300"),
            "asked": (),
            "state": ("Breaking camp at {v} hours.", "Sledges to be moving by {v}."),
            "correct": ("Breaking camp at {v} hours.", "Leader's order: we go at {v} instead."),
            "echo": ("Reminder: {v}, tents down.",),
            "near": ("Radio schedule at {v}.", "The dogs are fed at {v}."),
            "chatter": ("The primus stove hisses in the tent.", "Harness frozen stiff at dawn."),
            "question": ("When does the party set off on the ice?", "At what time does the march begin?"),
        },
        "countersign": {
            "values": ("aurora", "nunatak", "sastrugi", "fulmar", "narwhal", "icefoot", "bergschrund", "walrus"),
            "asked": (),
            "state": ("Password at the depot tent: {v}.", "The depot guard expects {v}."),
            "correct": ("The depot guard expects {v}.", "Depot password reset to {v}."),
            "echo": ("Gave {v} at the depot and was waved in.",),
            "near": ("The ship's crew use {v} aboard.", "The old depot password was {v}."),
            "chatter": ("The depot tent flaps in the wind.", "Stores stacked high inside the depot."),
            "question": ("What must you say to get to the supplies?", "Which secret opens the stores to you?"),
        },
        "debt": {
            "values": "price",
            "asked": ("a", "b"),
            "state": ("{a} owes {b} {v} kroner from a bet.", "{a} is {v} kroner in debt to {b}."),
            "correct": ("{a} is {v} kroner in debt to {b}.", "{a} squared part of it; {v} kroner left owing {b}."),
            "echo": ("{b} brings up the {v} kroner with {a}.",),
            "near": ("{a} borrowed {v} kroner off {b}.", "{a} owes {b} {v} kroner for tobacco."),
            "chatter": ("{a} and {b} play cards for matches.", "{b} sulks after losing to {a}."),
            "question": ("How much must {a} hand {b} to be even?", "What does {a} still have to pay back to {b}?"),
        },
    },
    "D": family_d.LEDGER,
}
