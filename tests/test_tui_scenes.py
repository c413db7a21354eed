"""The negotiation and council screens under Pilot: a multi-issue trade struck with the issue
selectors and the Offer button, walking away, a council won with the Give-evidence helper and
the vote buttons; the offer plot; snapshots of both screens."""

from __future__ import annotations

import time

import pytest
from conftest import SCRIPTS, WORLDS

from game.play.session import Game

pytestmark = pytest.mark.tui
SIZE = (120, 40)


@pytest.fixture
def anyio_backend():
    return "asyncio"


def make_app(world: str):
    from game.tui.app import ParleyApp

    return ParleyApp(lambda: Game(WORLDS / world, seed=0))


def shown(app) -> str:
    return type(app.screen).__name__


async def ready(pilot) -> None:
    while pilot.app.game is None or pilot.app.busy:
        await pilot.pause(0.02)
    await pilot.pause()


async def settle(pilot, before) -> None:
    """Wait for the answer to what was just sent, and for the screens to follow it."""
    app = pilot.app
    deadline = time.monotonic() + 120  # generous: a busy machine is slow, never wrong
    while app.last_reply is before or app.busy:
        assert time.monotonic() < deadline, "no reply within 120 s"
        await pilot.pause(0.02)
    for _ in range(3):
        await pilot.pause()


async def send(pilot, text: str) -> None:
    before = pilot.app.last_reply
    pilot.app.send(text)
    await settle(pilot, before)


async def click(pilot, selector: str) -> None:
    before = pilot.app.last_reply
    await pilot.click(selector)
    await settle(pilot, before)


async def choose(pilot, selector: str, value: str) -> None:
    """Pick ``value`` in a Select with the keyboard, as a player would."""
    from textual.widgets import Select

    select = pilot.app.screen.query_one(selector, Select)
    values = [v for _, v in select._options]
    steps = values.index(value) - values.index(select.value)
    select.focus()
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps), "enter")
    await pilot.pause()
    assert select.value == value


def script(name: str) -> list[str]:
    lines = (SCRIPTS / name).read_text().splitlines()
    return [s.strip() for s in lines if s.strip() and not s.startswith("#")]


async def open_cloak_trade(pilot) -> None:
    await ready(pilot)
    for line in ("go north", "go west", "trade with tavish"):
        await send(pilot, line)
    assert shown(pilot.app) == "NegotiationScreen"


@pytest.mark.anyio
async def test_a_multi_issue_trade_is_struck_with_the_selectors():
    from textual.widgets import DataTable

    app = make_app("bazaar")
    async with app.run_test(size=SIZE) as pilot:
        await open_cloak_trade(pilot)
        screen = app.screen
        # the selectors start from the terms the player likes best, not Tavish's opening offer
        assert screen.chosen() == screen.best_terms() != {"price": "50", "lining": "silk"}
        assert not screen.query_one("#neg-accept").disabled
        await choose(pilot, "#issue-0", "40")
        await click(pilot, "#neg-offer")
        assert "You offer lining=silk, price=40" in app.last_reply.text
        assert app.focused is screen.query_one("#neg-command")  # not left on Offer (Enter would offer again)
        # Tavish counters (price 40, wool): the selectors keep the player's own offer
        assert screen.chosen() == {"price": "40", "lining": "silk"}
        assert screen.query_one(DataTable).row_count == 3
        await choose(pilot, "#issue-0", "50")
        await choose(pilot, "#issue-1", "wool")
        await click(pilot, "#neg-offer")
        scene = app.game.engine.state.scenes["cloak_deal"]
        assert scene["outcome"] == "agreement"
        assert scene["session"]["agreement"] == {"price": "50", "lining": "wool"}
        assert shown(app) == "PlayScreen"  # back to the story when the talks end
        assert any(n.title == "Deal struck" and "cloak" in n.message for n in app._notifications)
        assert "cloak" in app.game.engine.observe("player").inventory


@pytest.mark.anyio
async def test_walking_away_closes_the_trade():
    app = make_app("bazaar")
    async with app.run_test(size=SIZE) as pilot:
        await open_cloak_trade(pilot)
        await click(pilot, "#neg-walk")
        scene = app.game.engine.state.scenes["cloak_deal"]
        assert scene["outcome"] == "no_agreement"
        assert scene["session"]["walked_away_by"] == "player"
        assert shown(app) == "PlayScreen"
        assert "cloak" not in app.game.engine.observe("player").inventory


@pytest.mark.anyio
async def test_the_council_is_won_with_evidence_and_the_vote_buttons():
    app = make_app("council")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        walk = script("council_win.txt")
        assert walk[-3:] == ["give report to edda", "give flood roll to fenn", "vote yes"]
        await send(pilot, walk[0])
        assert shown(app) == "CouncilScreen"  # the council sits in the town hall
        await send(pilot, "go south")
        assert shown(app) == "PlayScreen"  # and is left behind with it
        for line in walk[3:-3]:  # (after the "look" and "go south" above)
            await send(pilot, line)
        assert shown(app) == "CouncilScreen"
        for item, member in (("surveyor_report", "edda"), ("flood_record", "fenn")):
            await choose(pilot, "#council-item", item)
            await choose(pilot, "#council-member", member)
            await click(pilot, "#council-give-button")
            assert app.focused is app.screen.query_one("#council-command")
        stances = {m["id"]: m["stance"] for m in app.screen.scene["members"]}
        assert stances["edda"] == stances["fenn"] == "for"
        assert len(app.screen.evidence) == 2
        await click(pilot, "#council-yes")
        council = app.game.engine.state.scenes["weir_council"]
        assert council["outcome"] == "passed" and council["votes"]["player"] == "yes"
        assert shown(app) == "PlayScreen"
        assert any("the motion passed" in n.message for n in app._notifications)
        assert app.game.engine.state.won


@pytest.mark.anyio
async def test_a_debating_council_shows_declared_stances_and_each_members_masked_memory():
    app = make_app("council")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go north")
        await send(pilot, "wait")
        screen = app.screen
        assert shown(app) == "CouncilScreen" and screen.scene["debate"]
        debate = app.game.engine.council_debate("weir_council")
        declared = {m["id"]: m["declared"] for m in screen.scene["members"] if "declared" in m}
        assert declared == {
            m: round(st.stance, 3)
            for m, st in ((s.speaker, s) for s in debate.session.history if s.speaker in debate.session.members)
        }
        stances = str(screen.query_one("#council-stances").render())
        assert f"{declared['corvin']:.2f}" in stances and f"{declared['wick']:.2f}" in stances
        memory = screen.query_one("#council-memory")
        assert memory.display
        for member in ("wick", "fenn"):
            await choose(pilot, "#council-memory-member", member)
            ctx = debate.contexts()[member]
            shown_text = str(memory.render())
            assert f"{ctx.tokens} of 200 tokens" in shown_text and "mask: memo" in shown_text
            assert all(f"#{st.id} " in shown_text for st in ctx.statements)
            assert all(f"#{i} " not in shown_text for i in ctx.masked)
            if ctx.masked:
                assert f"let go: {len(ctx.masked)}" in shown_text


def test_the_offer_plot_marks_both_sides_the_reservation_and_the_deadline():
    from game.tui.widgets.offer_plot import render_offer_plot

    game = Game(WORLDS / "bazaar", seed=0)
    for line in ("go north", "go east", "trade with ozra", "offer price=16 grade=fine extras=cardamom"):
        game.submit(line)
    scene = game.engine.observe("player").scene
    text = render_offer_plot(scene, 20, 56, 20, "Ozra Nayl").plain
    rows = text.splitlines()
    assert "Worth to you" in text and "Price" in text and "you have 20 gold" in text
    assert any("●" in r for r in rows) and any("◆" in r for r in rows)
    assert sum("┃" in r for r in rows) >= 10  # the deadline column
    assert any(r.count("┄") > 20 for r in rows)  # the reservation (and the gold) lines
    assert max(len(r) for r in rows) <= 56


def test_snapshot_negotiation_screen(snap_compare):
    async def before(pilot):
        await ready(pilot)
        for line in (
            "go north",
            "go east",
            "trade with ozra",
            "offer price=16 grade=fine extras=cardamom",
            "offer price=20 grade=fine extras=pepper",
        ):
            await send(pilot, line)
        await choose(pilot, "#issue-1", "fair")

    assert snap_compare(make_app("bazaar"), terminal_size=SIZE, run_before=before)


def test_snapshot_council_screen(snap_compare):
    async def before(pilot):
        await ready(pilot)
        for line in script("council_win.txt")[:-2]:
            await send(pilot, line)
        pilot.app.screen.query_one("#council-speeches").scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(make_app("council"), terminal_size=SIZE, run_before=before)


@pytest.mark.anyio
async def test_typing_on_a_scene_screen_never_presses_a_button():
    """Arriving at the council and typing a command must not call the vote (the command line has focus)."""
    app = make_app("council")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, script("council_win.txt")[0])
        assert shown(app) == "CouncilScreen"
        before = app.last_reply
        await pilot.press(*"look", "enter")
        await settle(pilot, before)
        assert app.last_reply.said == "look"
        assert app.game.engine.state.scenes["weir_council"]["status"] == "debating"
        before = app.last_reply
        await pilot.press(*"say", "ctrl+n")  # the vote keys work while the command line has the focus
        await settle(pilot, before)
        assert app.last_reply.said == "vote no"
        assert app.game.engine.state.scenes["weir_council"]["votes"]["player"] == "no"


def footer_keys(screen) -> dict[str, str]:
    return {k.key: k.description for k in screen.query("FooterKey")}


def inside(outer, inner) -> bool:
    """Whether widget ``inner`` is wholly shown within widget ``outer`` (not cut off by its edge)."""
    return outer.region.contains_region(inner.region)


@pytest.mark.anyio
@pytest.mark.parametrize(("key", "outcome"), [("ctrl+a", "agreement"), ("ctrl+w", "no_agreement")])
async def test_negotiation_keys_work_from_the_command_line_at_80x24(key, outcome):
    """Ctrl+A and Ctrl+W are the command line's own keys (home, delete word): the screen's win."""
    app = make_app("bazaar")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_cloak_trade(pilot)
        screen = app.screen
        assert app.focused is screen.query_one("#neg-command")
        keys = footer_keys(screen)
        assert {keys.get(k) for k in ("ctrl+o", "ctrl+a", "ctrl+r", "ctrl+w")} == {
            "Offer",
            "Accept",
            "Reject",
            "Walk away",
        }
        left = screen.query_one("#neg-left")
        for bid in ("#neg-offer", "#neg-accept", "#neg-reject", "#neg-walk"):  # all four fit at 80 columns
            assert inside(left, screen.query_one(bid)), bid
        before = app.last_reply
        await pilot.press(*"say hi", key)
        await settle(pilot, before)
        assert app.game.engine.state.scenes["cloak_deal"]["outcome"] == outcome
        assert shown(app) == "PlayScreen"


@pytest.mark.anyio
async def test_the_council_vote_buttons_scroll_into_view_at_80x24():
    app = make_app("council")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        for line in script("council_win.txt")[:-1]:
            await send(pilot, line)
        screen = app.screen
        assert shown(app) == "CouncilScreen"
        assert {"ctrl+y", "ctrl+n"} <= set(footer_keys(screen))
        left, yes = screen.query_one("#council-left"), screen.query_one("#council-yes")
        for _ in range(10):  # Tab through the left column to the vote button
            if app.focused is yes:
                break
            await pilot.press("tab")
            await pilot.pause()
        assert app.focused is yes
        await pilot.pause(0.3)  # (the scroll to the focused widget)
        assert inside(left, yes)
        before = app.last_reply
        await pilot.press("enter")
        await settle(pilot, before)
        council = app.game.engine.state.scenes["weir_council"]
        assert council["outcome"] == "passed" and council["votes"]["player"] == "yes"


@pytest.mark.anyio
async def test_council_speeches_rewrap_after_a_resize():
    app = make_app("council")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for line in script("council_win.txt")[:2]:
            await send(pilot, line)
        log = app.screen.query_one("#council-speeches")
        text = " ".join(s.text.strip() for s in log.lines)
        assert len(log.lines) > 3 and max(s.cell_length for s in log.lines) > 40
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.3)
        width = log.scrollable_content_region.width
        assert width < 40 and max(s.cell_length for s in log.lines) <= width
        assert " ".join(s.text.strip() for s in log.lines).split() == text.split()  # the same words


@pytest.mark.anyio
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_council_memory_panel_is_in_view_and_typing_always_reaches_the_command_line(size):
    from textual.widgets import Select

    app = make_app("council")
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "go north")
        screen = app.screen
        assert shown(app) == "CouncilScreen"
        panel, picker = screen.query_one("#council-memory-panel"), screen.query_one("#council-memory-member")
        assert panel.display and inside(screen, panel) and panel.region.height >= 5
        assert panel.region.bottom <= screen.command_line().region.y  # above the command line, not under it
        assert inside(panel, picker) and inside(panel, screen.query_one("#council-memory-scroll"))
        members = [m["id"] for m in screen.scene["members"] if m["id"] != "player"]
        assert [v for _, v in picker._options] == members  # every member, no blank "Member" entry
        assert picker.value == members[0] and Select.BLANK not in [v for _, v in picker._options]
        assert "tokens · mask: memo" in str(screen.query_one("#council-memory").render())
        await pilot.press("ctrl+t")  # the next member's memory, the command line keeping the focus
        await pilot.pause()
        assert picker.value == members[1] and app.focused is screen.command_line()
        for tabs in (1, 3):  # onto a picker, then the Give button: typing still reaches the line
            await pilot.press(*["tab"] * tabs)
            await pilot.pause()
            assert app.focused is not screen.command_line()
            before = app.last_reply
            await pilot.press(*"say the river will not wait", "enter")
            await settle(pilot, before)
            assert app.last_reply.said == "say the river will not wait"
            assert app.focused is screen.command_line()


@pytest.mark.anyio
async def test_council_speeches_on_screen_agree_with_the_stances_shown():
    """In the speeches log: nobody disagrees with a member shown on its own side or agrees with
    one shown on the other, and no two members say the same words in a round."""
    import re

    app = make_app("council")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        rounds = []
        for line in ("go north", "wait", "wait", "wait"):
            await send(pilot, line)
            rounds.append([ev for ev in app.last_reply.events if ev.kind == "speech"])
        assert shown(app) == "CouncilScreen" and all(len(r) >= 6 for r in rounds)
        log = " ".join(str(content) for content, _, _ in app.screen.query_one("#council-speeches").kept)
        shown_as: dict[str, str] = {}
        earlier: list[tuple[str, str]] = []
        for speeches in rounds:
            said = [ev.text.split(": ", 1)[1] for ev in speeches]
            assert len(set(said)) == len(said), said
            for ev in speeches:
                assert ev.text in log  # what the screen shows
                head, text = ev.text.split(": ", 1)
                name, side = re.match(r"(.+) \(\w+, (\w+)\)$", head).groups()
                other = re.match(r'"I (dis)?agree with (?:what )?(.+?)(?: said in round \d)?[.:] ', text)
                if other:  # disagrees with the other side, agrees with its own
                    assert (shown_as[other.group(2)] != side) == bool(other.group(1)), ev.text
                assert not (side == "for" and "I will stand with the mayor" in text), ev.text
                for words, who in earlier:  # another member's words are quoted as theirs
                    if who != name and words.strip('"') in text:
                        assert re.search(r"(said|agree with [^:]+): '", text), ev.text
                for phrase, label in (("I support the motion", "for"), ("I oppose the motion", "against")):
                    assert phrase.lower() not in text.lower() or side == label, ev.text
                shown_as[name] = side
                earlier.append((text, name))


@pytest.mark.anyio
async def test_after_a_counter_ctrl_o_offers_the_players_terms_and_the_table_talk_reads_right():
    """Ctrl+O after the merchant's counter offers the player's own last terms, not the merchant's;
    accepting with nothing on the table says what to do instead; the player walks away as "You"."""
    app = make_app("bazaar")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for line in ("go north", "go east", "trade with ozra"):
            await send(pilot, line)
        screen = app.screen
        assert shown(app) == "NegotiationScreen" and not screen.scene.get("standing_offer")
        before = app.last_reply
        await pilot.press("ctrl+a")  # nothing on the table yet
        await settle(pilot, before)
        assert "There is no offer to accept: make an offer yourself (e.g. offer price=" in app.last_reply.text
        assert "or walk away." in app.last_reply.text
        await choose(pilot, "#issue-0", "16")
        mine = screen.chosen()
        before = app.last_reply
        await pilot.press("ctrl+o")
        await settle(pilot, before)
        theirs = screen.scene["standing_offer"]
        assert screen.standing_party() == "Ozra Nayl" and theirs != mine  # Ozra counters
        assert screen.chosen() == mine  # the selectors hold the player's offer, not Ozra's
        before = app.last_reply
        await pilot.press("ctrl+o")
        await settle(pilot, before)
        assert app.last_reply.said == "offer " + " ".join(f"{k}={v}" for k, v in mine.items())
        before = app.last_reply
        await pilot.press("ctrl+w")
        await settle(pilot, before)
        assert "You walk away from the table." in app.last_reply.text
        assert "Traveller" not in app.last_reply.text


def test_a_merchant_speaks_of_herself_in_her_own_voice():
    game = Game(WORLDS / "harbor", seed=0, memory=None)
    for line in ("go north", "go east"):
        game.submit(line)
    said = game.submit("ask mara about supplies").text
    assert 'Mara Voss says: "I sell storm lanterns at the chandlery. I ask too much, but I\'ll haggle."' in said
    assert 'says: "Mara Voss' not in said


async def wait_until(pilot, done, what: str) -> None:
    deadline = time.monotonic() + 120
    while not done():
        assert time.monotonic() < deadline, f"not within 120 s: {what}"
        await pilot.pause(0.02)
    for _ in range(3):
        await pilot.pause()


def logged(log) -> list[str]:
    """What a scene screen's log was given, one entry a write (kept after the screen closes)."""
    return [str(content) for content, _, _ in log.kept]


def in_order_under_their_commands(log: list[str], lines: list[str]) -> None:
    """Each line echoed once, in the order typed, each followed by an answer before the next echo."""
    echoes = [i for i, entry in enumerate(log) if entry.startswith("> ")]
    assert [log[i][2:] for i in echoes][-len(lines) :] == lines
    for at, nxt in zip(echoes[-len(lines) :], [*echoes[-len(lines) + 1 :], len(log)], strict=True):
        assert nxt - at > 1, f"no answer under {log[at]!r}"


@pytest.mark.anyio
async def test_offers_typed_in_a_burst_on_the_trade_screen_each_run_in_order():
    """Two offers typed at once (the second while the first is played): neither merges into the
    other, neither is dropped, and each reply is logged under its own command."""
    from test_tui_input import type_fast

    app = make_app("bazaar")
    async with app.run_test(size=SIZE) as pilot:
        await open_cloak_trade(pilot)
        log = app.screen.query_one("#neg-log")
        lines = ["offer price=40 lining=silk", "offer price=50 lining=wool"]
        type_fast(app, "".join(line + "\n" for line in lines))
        scene = app.game.engine.state.scenes["cloak_deal"]
        await wait_until(pilot, lambda: scene.get("outcome") and not app.busy and not app.pending, "the deal")
        mine = [h["terms"] for h in scene["session"]["history"] if h["party"] == "player" and h["kind"] == "offer"]
        assert mine == [{"price": "40", "lining": "silk"}, {"price": "50", "lining": "wool"}]
        assert scene["outcome"] == "agreement"
        in_order_under_their_commands(logged(log), lines)


@pytest.mark.anyio
async def test_speeches_typed_in_a_burst_on_the_council_screen_each_run_in_order():
    """Two speeches and the next member's memory (Ctrl+T) typed at once: both speeches are
    made, in order, each under its own command; the memory key still acts."""
    from test_tui_input import type_fast
    from textual import events

    app = make_app("council")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go north")
        assert shown(app) == "CouncilScreen"
        screen = app.screen
        picker = screen.query_one("#council-memory-member")
        first = picker.value
        lines = ["say the weir is rotten", "say the river will not wait"]
        said: list[str] = []
        game_submit = app.game.submit
        app.game.submit = lambda text: (said.append(text), game_submit(text))[1]
        type_fast(app, lines[0] + "\n")
        app.post_message(events.Key("ctrl+t", None))
        type_fast(app, lines[1] + "\n")
        await wait_until(pilot, lambda: len(said) == 2 and not app.busy and not app.pending, "both speeches")
        assert said == lines
        assert picker.value != first
        in_order_under_their_commands(logged(screen.query_one("#council-speeches")), lines)


@pytest.mark.anyio
async def test_a_line_typed_fast_while_a_button_has_the_focus_is_sent_and_never_presses_it():
    """Focus on Offer, ``say hi⏎`` typed at once: the keys reach the command line before it has
    the focus, and the Enter among them sends the line instead of pressing the button."""
    from test_tui_input import type_fast

    app = make_app("bazaar")
    async with app.run_test(size=SIZE) as pilot:
        await open_cloak_trade(pilot)
        screen = app.screen
        screen.query_one("#neg-offer").focus()
        await pilot.pause()
        before = app.last_reply
        type_fast(app, "say hi\n")
        await settle(pilot, before)
        await pilot.pause(0.3)
        assert app.last_reply.said == "say hi" and not app.pending
        assert not any(h["party"] == "player" for h in app.game.engine.state.scenes["cloak_deal"]["session"]["history"])
        assert app.focused is screen.command_line() and screen.command_line().value == ""


@pytest.mark.anyio
async def test_keys_typed_on_the_trade_screen_never_answer_the_overwrite_question(tmp_path):
    """``save slot1`` typed on the trade screen asks before overwriting; ``say yes`` typed
    straight on is the next command (its ``y`` is not the answer), typed on the trade screen's own line."""
    from test_tui_keys import SLOW, until_shown

    from game.tui.app import ParleyApp
    from game.tui.screens.saves import ConfirmScreen

    Game(WORLDS / "bazaar", seed=0).save("slot1", tmp_path)  # a save this game did not write: it asks
    kept = {f: f.read_bytes() for f in tmp_path.rglob("*") if f.is_file()}
    app = ParleyApp(lambda: Game(WORLDS / "bazaar", seed=0), saves_base=tmp_path)
    app.quiet = SLOW
    async with app.run_test(size=SIZE) as pilot:
        await open_cloak_trade(pilot)
        trade = app.screen
        await pilot.press(*"save slot1", "enter")
        await until_shown(app, "ConfirmScreen")
        await pilot.press(*"say yes", "enter")  # typed straight on: the next command, not "y" for Yes
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert list(app.pending) == ["say yes"] and trade.command_line().value == ""
        await pilot.pause(SLOW)  # the player stops, reads the question, answers it
        await pilot.press("n")
        await wait_until(pilot, lambda: app.last_reply.said == "say yes" and not app.busy, "the speech")
        assert app.screen is trade and "You say" in app.last_reply.text
    assert {f: f.read_bytes() for f in kept} == kept  # answered no: the save is as it was
