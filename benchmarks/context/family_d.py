"""Phrasing family D for the context benchmark: the blind held-out family.

A mountain mining town with a rack railway, a miners' lodge and old workings,
and, for the ``ledger`` setting, the log of a river survey party. Every key of
families A-C is here (benchmarks/context/phrasing.py registers these tables
as family ``D``), with other names, places and sentence shapes.

Do not read these tables while changing the memory code, and do not quote them
in reports or docs: family D stays blind only as long as nobody tunes against
it. The rules below are all a reader of the benchmark needs:

* value tokens (correction values, hiding places, conditions, outsiders, the
  ledger's value pools) occur only in the lines that state them; the ambient
  and chatter lines hold no digits and no number words;
* questions share no content word with the lines of the fact they ask about,
  beyond the asked thing;
* some corrections restate the fact in the statement's own words, or in
  other words with no cue at all; others use cues no other family uses.
"""

from __future__ import annotations

AMBIENT = {
    "observation": (
        "Steam from the rack locomotive hangs over the platform.",
        "Snowmelt trickles down the gutters of the high street.",
        "You scrape slush off your boots on the depot step.",
        "A cage clatters up the headframe and stops with a jolt.",
        "The assay office shutters are half open.",
        "Your breath fogs in the cutting.",
        "Coal dust has settled on the café windowsill again.",
        "Goats pick their way along the spoil heap.",
        "Far up the slope a shutter bangs in the wind.",
    ),
    "utterance": (
        "A mule driver swears at his animal in a language you don't know.",
        "The stationmaster rings a handbell for no reason anyone can see.",
        "Someone at the next table insists the seam is nearly worked out.",
        "A pedlar calls out bootlaces and candles.",
        "Children chant a skipping rhyme about the mountain ghost.",
        "Is it snowing up at the pass? nobody agrees.",
    ),
    "other": (
        "You wonder if your lamp oil will last the week.",
        "You write a letter home and do not send it.",
        "You rub feeling back into your fingers.",
    ),
}

FLOOD = {
    "sellers": ("Vesna", "Ottokar", "Liesl", "Branko", "Zdenka", "Mirko"),
    "items": ("barometer", "ice axe", "theodolite", "carbide lamp", "altimeter", "rope ladder"),
    "cur": "thalers",
    "fact": (
        "{v} {cur}. That is {s}'s real limit, according to the stable lad.",
        "{s}, whispering to a sister: 'Don't tell anyone, but I'd let it go at {v} {cur}.'",
        "Heard through the boarding-house wall: {s} has pencilled {v} {cur} as the absolute minimum.",
        "Would {s} part with it for {v} {cur}? The stable lad thinks so, and not a coin under.",
    ),
    "question": (
        "Where does haggling over the {item} bottom out?",
        "Suppose you dig in your heels about the {item}: what is the last figure the stallholder accepts?",
        "What cheapest deal could you ever strike on the {item}?",
    ),
    "offer": (
        "'{p} {cur}, not a pfennig less,' {s} says of the {item}.",
        "{s} has the {item} ticketed at {p} {cur} today.",
        "Still {p} {cur} for that {item}, {s} tells a man in a fur hat.",
        "The {item} for {p} {cur}? {s} shrugs: take it or leave it.",
        "{s} knocks the {item} down to {p} {cur} for a foreman.",
        "{p} {cur}: that is what {s} asks for the {item} this hour.",
    ),
    "stock": (
        "{s} oils the hinges of the {item}.",
        "{s} lets a child hold the {item} for a moment.",
        "The {item} on {s}'s trestle is gathering soot.",
        "{s} swears the {item} crossed the pass on a mule.",
    ),
    "other_sale": (
        "Down the valley a {x} changed hands for {p} {cur}, {s} has heard.",
        "{s}: 'My brother got {p} {cur} for a {x} at the autumn market.'",
        "A {x} fetched {p} {cur} at the pit-head auction, they say.",
    ),
}

# Half of each subject's corrections carry no cue at all (one repeats the statement's own wording).
CORRECTION = {
    "downtrain": {
        "values": ("seven", "eight", "nine", "ten", "eleven"),
        "asked": "",
        "state": (
            "The last train down the mountain leaves at {v}.",
            "Timetable on the depot door: final departure downhill, {v} o'clock.",
        ),
        "correct": (
            "The last train down the mountain leaves at {v}.",
            "Downhill departure is {v} tonight, the guard says.",
            "Pinned over the old timetable: down train {v} o'clock.",
            "The guard crossed out the departure and chalked {v} beside it.",
        ),
        "echo": (
            "A miner's wife mentions catching the {v} o'clock down.",
            "'{v}, don't miss it,' someone says about the train.",
        ),
        "chatter": ("The rack locomotive wheezes on the siding.", "Passengers stamp their feet on the cold platform."),
        "question": (
            "By what hour must you be seated to get back to the valley floor?",
            "When is your ride off the peak?",
        ),
    },
    "magazine": {
        "values": "code",
        "asked": "",
        "state": ("Powder magazine padlock: {v}.", "The magazine's combination is {v}, the shotfirer tells you."),
        "correct": (
            "Powder magazine padlock: {v}.",
            "Magazine: {v}.",
            "The shotfirer swapped the padlock; it takes {v} these days.",
            "{v} opens the magazine since the other lock rusted through.",
        ),
        "echo": ("The shotfirer mutters {v} while checking the fuses.", "'{v},' repeats the blasting foreman."),
        "chatter": ("The shotfirer counts fuses by the door.", "Nobody smokes near the magazine."),
        "question": ("Which digits get you into the explosives store?", "What number lets you reach the dynamite?"),
    },
    "nightcrew": {
        "values": ("Schachtfeld", "Eisengrund", "Rotbach", "Kalkofen", "Tiefenau"),
        "asked": "",
        "state": ("Night shift assembles at {v}.", "Tell the night crew: we gather at {v} before going under."),
        "correct": (
            "Night shift assembles at {v}.",
            "Night crew to {v}.",
            "It's {v} for the night crew, mind; the usual spot flooded.",
            "Foreman's orders, fresh off the board: {v} for the night men.",
        ),
        "echo": ("Somebody asks the way to {v} for the night shift.",),
        "chatter": ("The night shift drinks coffee out of tin cups.", "A night crewman's lamp won't light."),
        "question": (
            "Where do the late hands report for duty?",
            "Where should you be to join the after-dark gang underground?",
        ),
    },
    "cableway": {
        "values": "price",
        "asked": "",
        "state": ("A seat on the cable car costs {v} kreuzer.", "{v} kreuzer buys the ride up the cableway."),
        "correct": (
            "A seat on the cable car costs {v} kreuzer.",
            "Cable car, {v} kreuzer.",
            "{v} kreuzer for the cableway: coal went up, so did the ticket.",
            "The conductor wants {v} kreuzer a head this week.",
        ),
        "echo": ("A tourist complains about paying {v} kreuzer for the car.",),
        "chatter": ("The cable car sways in the wind above the gorge.", "The cableway engine house hums."),
        "question": (
            "How much money for being lifted to the top in the gondola?",
            "What is the charge to be hauled up to the summit station by wire?",
        ),
    },
}

COUNCIL = {
    "members": ("Jarmila", "Wendelin", "Radka", "Ludmil", "Hedwig", "Bohumil", "Ottilie"),
    "outsiders": ("Kresimir", "Agathe", "Dobromil", "Irmgard", "Svatopluk"),
    "conds": ("washhouse", "infirmary", "schoolroom", "bakery", "orphans", "allotments"),
    "proposals": (
        ("strike", "downing tools until wages rise"),
        ("merger", "joining forces with the smelter workers"),
        ("ballot", "a secret vote to choose the foreman"),
        ("pension", "an allowance for men too old to dig"),
    ),
    "speech": (
        "{m} bangs a tin mug and calls the {prop} madness.",
        "Is the {prop} even legal? {m} wants to know.",
        "{m} reads out a letter from the owners.",
        "{m} hasn't slept, and says so.",
        "According to {m}, the {prop} was tried in the south and failed.",
        "{m} moves that the {prop} wait until spring.",
        "The chair recognises {m}, who talks about the {prop} for far too long.",
        "{m} lights a pipe and says nothing for a while.",
    ),
    "condition": (
        "{m} would go along with the {prop}, so long as the {cond} keeps its funding.",
        "Hands off the {cond}, says {m}; do that and the {prop} goes through with my name on it.",
        "What {m} wants for the {prop}: the {cond} untouched. That is all.",
        "{m}'s terms on the {prop} are plain: nobody cuts the {cond}.",
    ),
    "opposed": (
        "{o} walks out rather than hear another word on the {prop}.",
        "Over {o}'s dead body will the {prop} happen.",
        "Say the word {prop} and {o} is reaching for a coat and the door.",
    ),
    "ask_condition": ("What price did {m} set on backing {para}?", "Which concession would bring {m} round on {para}?"),
    "ask_opposed": ("Who couldn't stomach {para}?", "Whose voice rose loudest against {para}?"),
}

RUMOURS = {
    "items": ("assay book", "pocket watch", "silver ingot", "payroll tin", "lamp key"),
    "places": ("Blindshaft", "Sumpwell", "Orechute", "Windlass", "Timberyard", "Powderhut", "Slagheap"),
    "locs": (
        "the lamp room",
        "the changing shed",
        "the winding house",
        "the tally board",
        "the canteen",
        "the ventilation door",
        "the ore bins",
    ),
    "tellers": ("Granny Vasko", "the night watchman", "a blind accordionist", "the assayer's daughter"),
    "fact": (
        "{t} saw the {item} go into {place} and never come out.",
        "The {item}? {place}, says {t}, wrapped in sacking.",
        "If {t} is right, and {t} usually is, the {item} is at {place}.",
        "{t} would bet a month's wages the {item} is hidden in {place}.",
    ),
    "question": (
        "Which part of the workings should you search for the {item}?",
        "Where could a careful searcher turn up the {item}?",
    ),
    "lead": (
        "{t} says the {item} was melted down long ago.",
        "{t} thinks the {item} brings bad luck to whoever holds it.",
        "{t} changes the subject when the {item} comes up.",
    ),
    "move": (
        "You climb down to {loc}.",
        "{loc}: dripping water, nothing else.",
        "You duck under a beam at {loc}.",
        "Your lamp gutters as you reach {loc}.",
    ),
}

# The ledger: a river survey party's log. {a} and {b} are people, {v} the value.
LEDGER = {
    "people": (
        "Thaddeus",
        "Marisol",
        "Kofi",
        "Birgit",
        "Anouk",
        "Emeric",
        "Saoirse",
        "Tomasz",
        "Yevgenia",
        "Ruairi",
        "Priya",
        "Lorcan",
    ),
    "ambient": {
        "observation": (
            "Made camp on a gravel bar below the falls.",
            "River brown and rising after rain in the hills.",
            "Portaged the canoes round a logjam; slow going.",
            "Mosquitoes thick at dusk; smudge fires lit.",
            "Took bearings on the bluff; cloud came in before we finished.",
            "Heron standing in the shallows all morning.",
            "Patched a split seam in the second canoe with pitch.",
            "Wind upstream all day, paddling hard for little gain.",
            "Dried the flour sacks on the rocks.",
            "Sketched the confluence for the chart.",
        ),
        "utterance": (
            "The guide says the rapids ahead are worse than last year.",
            "Somebody sings a hymn badly while packing up.",
            "An argument about whose turn it is to wash the pots.",
            "Talk at the fire turns to home, as it does.",
            "The cook declares the beans are ruined and serves them anyway.",
        ),
        "other": (
            "Keeps a private tally of the stores and trusts nobody's count.",
            "Writes up the day's soundings by candle.",
            "Wonders whether the maps from the capital are any good.",
        ),
    },
    "allergy": {
        "values": ("walnuts", "shellfish", "mustard", "sesame", "strawberries", "celery", "lupin", "buckwheat"),
        "asked": ("a",),
        "state": (
            "{a} swells up if there is {v} anywhere near the pot.",
            "Note for the cook: no {v} in anything {a} is served.",
            "{a} was sick for two days once, from {v}.",
        ),
        "correct": (
            "{a} swells up if there is {v} anywhere near the pot.",
            "Note for the cook: no {v} in anything {a} is served.",
            "{a} tells the surgeon it has always been {v} really.",
            "Surgeon's finding, {a}: the culprit is {v}.",
        ),
        "echo": ("Kept the {v} well away from {a}'s bowl tonight.",),
        "near": (
            "{a} cannot abide {v}; breaks out in a rash.",
            "Mind {a}: {v} make the throat close up.",
            "{a} swapped plates because of the {v}.",
        ),
        "chatter": ("{a} complains the biscuit is stale.", "{a} eats alone on the bank, as usual."),
        "question": ("What must never end up on {a}'s plate?", "Which food would put {a} in danger?"),
    },
    "promise": {
        "values": (
            "fiddle",
            "hunting knife",
            "snowshoes",
            "tobacco pouch",
            "field glasses",
            "woollen cap",
            "harmonica",
            "pocket compass",
        ),
        "asked": ("a", "b"),
        "state": (
            "{a} gave {b} a word of honour: the {v} is {b}'s once we reach the trading post.",
            "'Get me through the canyon and my {v} is yours,' {a} told {b}.",
        ),
        "correct": (
            "{a} gave {b} a word of honour: the {v} is {b}'s once we reach the trading post.",
            "{a} will hand {b} the {v} at the end of the trip.",
            "{a} has thought better of it; {b} is to get the {v} instead.",
            "After the card game {a} swore the {v} would go to {b}.",
        ),
        "echo": ("{b} reminds {a} about the {v}, again.",),
        "near": ("{a} pledged {b} the {v} if the weather holds.", "{b} has been promised {a}'s {v}, or so {b} says."),
        "chatter": ("{a} and {b} share a pipe by the canoes.", "{b} owes {a} a favour and knows it."),
        "question": ("What does {b} stand to receive from {a}?", "Which possession will pass from {a} to {b}?"),
    },
    "time": {
        "values": ("five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
        "asked": (),
        "state": ("Canoes push off at {v} tomorrow.", "We launch at {v}, first thing."),
        "correct": (
            "Canoes push off at {v} tomorrow.",
            "We launch at {v}.",
            "Fog on the water, so the guide reckons {v} for getting afloat.",
            "Leader's new reckoning for the start: {v}.",
        ),
        "echo": ("Everyone to be packed by {v}, for the launch.",),
        "near": (
            "Supper is at {v} if the fish bite.",
            "The barometer gets read at {v} each evening.",
            "Sentries change at {v}.",
        ),
        "chatter": ("The canoes are turned over on the shingle.", "Paddles stacked against the spruce."),
        "question": ("At what hour does the party set out on the river?", "When do the boats head downstream next?"),
    },
    "countersign": {
        "values": (
            "kingfisher",
            "tamarack",
            "lodestar",
            "cinnabar",
            "bramblefinch",
            "moraine",
            "quillwort",
            "ptarmigan",
        ),
        "asked": (),
        "state": (
            "Challenge at the picket tonight answered with '{v}'.",
            "Anyone coming into camp after dark must say {v}.",
        ),
        "correct": (
            "Anyone coming into camp after dark must say {v}.",
            "Picket word is {v}.",
            "The leader burned yesterday's slip; {v} it is from sundown.",
            "{v}, whispered round the fires before the light goes.",
        ),
        "echo": ("Tried {v} on the picket for practice; waved through.",),
        "near": (
            "The trappers upriver use {v} among themselves.",
            "Last season's party used {v}, the guide remembers.",
        ),
        "chatter": ("The picket yawns by the woodpile.", "A rifle is cleaned by lantern light."),
        "question": (
            "Which secret reply gets you past the sentry at night?",
            "What do you tell the guard who stops you on the way in at night?",
        ),
    },
    "debt": {
        "values": ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"),
        "asked": ("a", "b"),
        "state": ("{a} owes {b} {v} shillings from the wager.", "Lost at cards: {a} is down {v} shillings to {b}."),
        "correct": (
            "{a} owes {b} {v} shillings from the wager.",
            "{a} is down {v} shillings to {b}.",
            "{a} paid some back; {v} shillings still owing to {b}.",
            "Squared the account after a quarrel: {a} to pay {b} {v} shillings.",
        ),
        "echo": ("{b} mentions the {v} shillings pointedly in front of {a}.",),
        "near": ("{a} borrowed {v} shillings off {b} at the fort.", "{a} has {v} shillings of {b}'s, unpaid."),
        "chatter": ("{a} turns out empty pockets.", "{b} counts coins twice and frowns."),
        "question": ("How much money must {a} hand over to {b} to be clear?", "What sum does {b} expect from {a}?"),
    },
}
