"""Terminal app responsiveness, against the line console in the same run.

Usage:  python -m benchmarks.tui_bench [--reps 5] [--script tests/scripts/harbor_win.txt]
                                       [--world worlds/harbor] [--json FILE]

Measured under Textual's Pilot (headless, 120x40), on a fixed script, several repetitions:

- first paint: from entering ``run_test`` to the first screen mounted, with memory on (minilm)
  so the game, and its embedder, load in the app's worker: ``game ready`` says when the world
  and its models were there, to show the screen did not wait for them (and with memory off);
- keystroke to echo: a key pressed until the command box holds it;
- per-turn render: each script line sent (``app.send``) until the active screen has handled the
  reply, minus the time ``Game.submit`` itself took (the engine, NPCs, memory): what the app
  adds to a turn. The line console (``run_console`` with read/write callables; write appends to
  a buffer) is timed the same way: from reading a line to asking for the next one, minus
  ``submit``.

Goals: first paint <= 1 s, per-turn render <= 50 ms (medians). Timing goals live here only,
never in the unit tests.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path

from benchmarks.lib.cli import write_json
from game.cli.console import run_console
from game.play.session import Game
from game.tui.app import ParleyApp

SIZE = (120, 40)
GOALS = {"first paint": 1.0, "per-turn render (app)": 0.050}


def script_lines(path: Path) -> list[str]:
    return [s.split("#", 1)[0].strip() for s in path.read_text().splitlines() if s.split("#", 1)[0].strip()]


def timed_game(world: str, memory: dict | None = None) -> tuple[Game, list[float]]:
    """A game whose ``submit`` records how long each call took."""
    game = Game(world, seed=0, memory=memory)
    took: list[float] = []
    submit = game.submit

    def timed(text: str):
        t0 = time.perf_counter()
        try:
            return submit(text)
        finally:
            took.append(time.perf_counter() - t0)

    game.submit = timed
    return game, took


async def until(condition, timeout: float = 60.0) -> None:
    end = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("the app never got there")
        await asyncio.sleep(0.0002)


def game_with_models(world: str, memory: dict | None) -> Game:
    """The game, with the MiniLM model loaded (a game loads it on its first turn otherwise)."""
    game = Game(world, seed=0, memory=memory)
    if memory and memory.get("embedder") == "minilm":
        from memory.embedder import MiniLMEmbedder

        MiniLMEmbedder().load()
    return game


async def first_paint(world: str, memory: dict | None) -> tuple[float, float, bool]:
    """(seconds to the first screen mounted, seconds to the game built, the game was not built yet at paint)."""
    app = ParleyApp(lambda: game_with_models(world, memory))
    t0 = time.perf_counter()
    async with app.run_test(size=SIZE):
        await until(lambda: len(app.screen_stack) > 1 and app.screen.is_mounted)
        painted, waiting = time.perf_counter() - t0, app.game is None
        await until(lambda: app.game is not None, timeout=300)
        ready = time.perf_counter() - t0
    return painted, ready, waiting


async def play_app(world: str, lines: list[str]) -> tuple[list[float], list[float]]:
    """(keystroke-to-echo times, per-turn render times) for one run of the script in the app."""
    from textual.events import Key
    from textual.widgets import Input

    game, took = timed_game(world)
    app = ParleyApp(lambda: game)
    echo, render = [], []
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.game is not None and not app.busy)
        await pilot.pause()
        box = app.screen.query_one(Input)
        box.focus()
        for ch in "look around":
            key = Key("space" if ch == " " else ch, ch)
            key.set_sender(app)
            t0 = time.perf_counter()
            app._driver.send_message(key)  # as a key from the terminal arrives (Pilot.press also waits for idle)
            await until(lambda: box.value.endswith(ch))
            await pilot._wait_for_screen()  # and the screen has handled what the key set off
            echo.append(time.perf_counter() - t0)
            await pilot.pause(0.02)
        box.value = ""
        for line in lines:
            before, n = app.last_reply, len(took)
            t0 = time.perf_counter()
            app.send(line)
            await until(lambda: app.last_reply is not before and len(took) > n)
            await pilot._wait_for_screen()  # the active screen has handled the reply
            render.append(time.perf_counter() - t0 - took[n])
        assert game.engine.state.won, "the script did not win in the app"
    return echo, render


def play_console(world: str, lines: list[str]) -> list[float]:
    """Per-command time the line console adds (read to next read, minus submit)."""
    game, took = timed_game(world)
    out, render = io.StringIO(), []
    queue = list(lines)
    started: list[float] = []

    def read(_prompt: str) -> str:
        now = time.perf_counter()
        if started:
            render.append(now - started[-1] - took[len(render)])
        if not queue:
            raise EOFError
        started.append(time.perf_counter())
        return queue.pop(0)

    run_console(game, saves_base=os.devnull, read=read, write=lambda text: out.write(text + "\n"))
    if len(render) < len(lines):  # the last command ended the game: the console stopped reading
        render.append(time.perf_counter() - started[-1] - took[len(render)])
    assert game.engine.state.won, "the script did not win in the console"
    return render


def paint_in_a_fresh_process(world: str) -> tuple[float, float, bool]:
    """``first_paint`` with memory on, in a new process: the model is loaded once per process."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.tui_bench", "--paint-once", "--world", world],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    painted, ready, waiting = json.loads(out.strip().splitlines()[-1])
    return painted, ready, waiting


def ms(x: float) -> str:
    return f"{x * 1000:8.2f} ms" if x < 1 else f"{x:8.3f} s "


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--world", default="worlds/harbor")
    ap.add_argument("--script", default="tests/scripts/harbor_win.txt")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--paint-once", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.paint_once:
        print(json.dumps(asyncio.run(first_paint(args.world, {"embedder": "minilm"}))))
        return 0
    lines = script_lines(Path(args.script))
    rows: dict[str, list[float]] = {
        k: []
        for k in (
            "first paint",
            "game ready",
            "first paint (memory off)",
            "keystroke to echo",
            "per-turn render (app)",
            "per-turn render (console)",
        )
    }
    waited = 0
    for rep in range(args.reps):
        painted, ready, not_yet = paint_in_a_fresh_process(args.world)
        rows["first paint"].append(painted)
        rows["game ready"].append(ready)
        waited += not not_yet
        rows["first paint (memory off)"].append(asyncio.run(first_paint(args.world, None))[0])
        echo, render = asyncio.run(play_app(args.world, lines))
        rows["keystroke to echo"] += echo
        rows["per-turn render (app)"] += render
        rows["per-turn render (console)"] += play_console(args.world, lines)
        print(f"rep {rep + 1}/{args.reps} done", file=sys.stderr)
    report(rows, args, lines, waited)
    if args.json:
        write_json(
            args.json, {"reps": args.reps, "script": args.script, "cores": os.cpu_count(), "seconds": rows}, indent=1
        )
    return 0


def report(rows: dict[str, list[float]], args, lines: list[str], waited: int) -> None:
    print(
        f"\nParley terminal app, {args.world}, script {args.script} ({len(lines)} commands), {args.reps} reps, "
        f"{os.cpu_count()} cores, headless {SIZE[0]}x{SIZE[1]}"
    )
    print(f"{'measure':28} {'median':>11} {'p90':>11} {'max':>11} {'n':>5}  goal")
    for name, xs in rows.items():
        med = statistics.median(xs)
        p90 = sorted(xs)[min(len(xs) - 1, int(0.9 * len(xs)))]
        goal = GOALS.get(name)
        verdict = "" if goal is None else f"<= {ms(goal).strip()}: {'met' if med <= goal else 'MISSED'}"
        print(f"{name:28} {ms(med):>11} {ms(p90):>11} {ms(max(xs)):>11} {len(xs):>5}  {verdict}")
    app, console = (
        statistics.median(rows["per-turn render (app)"]),
        statistics.median(rows["per-turn render (console)"]),
    )
    print(
        f"\nper-turn render, app / console (medians): {app / console:,.0f}x "
        f"({ms(app).strip()} vs {ms(console).strip()})"
    )
    per_line = {i: statistics.median(rows["per-turn render (app)"][i :: len(lines)]) for i in range(len(lines))}
    slow = sorted(per_line, key=per_line.get, reverse=True)[:3]
    print(
        "slowest commands in the app (median render): "
        + ", ".join(f"{lines[i]!r} {ms(per_line[i]).strip()}" for i in slow)
    )
    print(
        f"first paint before the game was built: {args.reps - waited} of {args.reps} runs "
        f"(game ready with minilm after {ms(statistics.median(rows['game ready'])).strip()} median)"
    )


if __name__ == "__main__":
    sys.exit(main())
