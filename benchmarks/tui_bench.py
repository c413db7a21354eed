"""Terminal app responsiveness with memory on, against the line console in the same run.

Usage:  python -m benchmarks.tui_bench [--reps 5] [--script tests/scripts/harbor_win.txt]
                                       [--world worlds/harbor] [--json FILE] [--page FILE]
                                       [--no-terminal]

Every repetition measures, with agent memory on (the MiniLM embedder, as ``parley play`` has it):

- start-up, in a fresh process (the model is loaded once per process), under Textual's Pilot
  (headless, 120x40): the first frame (the first screen mounted), ready to type (the game built
  and the command line enabled), the first ``ask`` sent at that moment until its reply is drawn,
  and when the memory finished warming in the background. The same for ``--load`` of a save (made
  once, 40 turns in) and for watching the autopilot (until move 1 is drawn);
- turns once warm, in this process: each script line sent until the screen has drawn its reply
  (the whole turn: engine, NPCs, memory and drawing), and the same lines in the line console
  (``run_console``, from reading a line to asking for the next), plus what the app alone adds
  (the turn minus ``Game.submit``) and keystroke to echo;
- quitting: under Pilot from Ctrl+Q to the app closed and the autosave written; and with real
  processes in tmux (unless ``--no-terminal`` or no tmux): ``parley play`` from launch to the
  prompt on screen, its first ``ask``, ``parley play --load`` to the prompt, and Ctrl+Q (memory
  warm) until the process has ended.

A turn "waited on model loading" when its thread loaded the model or waited for the warm-up;
every turn is counted. Figures are medians and p95 with 95% bootstrap intervals over all samples
(``benchmarks.lib.stats``). Goals: first frame <= 0.5 s, ready to type <= 1 s, p95 turn latency
with memory on (warm) <= 150 ms, no turn waits on model loading, quit <= 1 s. Timing goals live
here only, never in the unit tests.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from benchmarks.lib.cli import write_json
from benchmarks.lib.stats import resample_ci

ROOT = Path(__file__).resolve().parents[1]
SIZE = (120, 40)
MINILM = {"embedder": "minilm"}
FIRST_ASK = "ask jory about treasure"
GOALS = {  # measure -> (statistic, goal in seconds)
    "first frame": ("median", 0.5),
    "ready to type": ("median", 1.0),
    "ready to type, --load": ("median", 1.0),
    "turn, app, memory warm": ("p95", 0.150),
    "quit (Pilot)": ("median", 1.0),
    "quit (terminal)": ("median", 1.0),
    "ready to type (terminal)": ("median", 1.0),
    "ready to type, --load (terminal)": ("median", 1.0),
}
WAITED: dict[int, int] = {}  # thread id -> times it loaded the model or waited for the warm-up


def script_lines(path: Path) -> list[str]:
    return [s.split("#", 1)[0].strip() for s in path.read_text().splitlines() if s.split("#", 1)[0].strip()]


def count_waits() -> None:
    """Count, per thread, every load of the model and every wait for the warm-up (not the warm-up's own)."""
    import memory.embedder as emb
    from game.play.warmup import MemoryQueue

    load, settle = emb._load_model, MemoryQueue.settle

    def loading():
        if emb._MODEL is None and threading.current_thread().name != "parley-memory-warmup":
            WAITED[threading.get_ident()] = WAITED.get(threading.get_ident(), 0) + 1
        return load()

    def settling(self):
        if self.warming:
            WAITED[threading.get_ident()] = WAITED.get(threading.get_ident(), 0) + 1
        return settle(self)

    emb._load_model, MemoryQueue.settle = loading, settling


def timed(game, took: list[float], waited: list[bool]):
    """``game`` whose ``submit`` and ``play_turn`` record their time and whether they waited for the model."""
    for name in ("submit", "play_turn"):
        inner = getattr(game, name)

        def call(*args, inner=inner):
            before = WAITED.get(threading.get_ident(), 0)
            t0 = time.perf_counter()
            try:
                return inner(*args)
            finally:
                took.append(time.perf_counter() - t0)
                waited.append(WAITED.get(threading.get_ident(), 0) > before)

        setattr(game, name, call)
    return game


async def until(condition, timeout: float = 120.0) -> None:
    end = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("the app never got there")
        await asyncio.sleep(0.001)


# --- start-up, in a fresh process -----------------------------------------------------------------
async def start_up(world: str, mode: str, save: str | None, base: str) -> dict:
    """One app start (mode: play, load or watch) with the model not loaded yet in this process."""
    from game.play.session import Game
    from game.tui.app import ParleyApp

    count_waits()
    took: list[float] = []
    waited: list[bool] = []
    if mode == "load":
        make = lambda: timed(Game.load(save, base), took, waited)  # noqa: E731
    else:
        kind = "autopilot" if mode == "watch" else "human"
        make = lambda: timed(Game(world, seed=0, memory=MINILM, player_kind=kind), took, waited)  # noqa: E731
    app = ParleyApp(make, saves_base=base, spectate="autopilot" if mode == "watch" else None)
    out: dict = {}
    t0 = time.perf_counter()
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: len(app.screen_stack) > 1 and app.screen.is_mounted)
        out["first frame"] = time.perf_counter() - t0
        await until(lambda: app.game is not None and not app.busy or app.last_reply is not None)
        out["ready"] = time.perf_counter() - t0
        if mode == "watch":
            await until(lambda: app.last_reply is not None)
            await pilot._wait_for_screen()
            out["move 1"] = time.perf_counter() - t0
        else:
            t1 = time.perf_counter()
            app.send(FIRST_ASK if mode == "play" else "look")
            await until(lambda: app.last_reply is not None and not app.busy)
            await pilot._wait_for_screen()
            out["first command"] = time.perf_counter() - t1
        out["warming at first command"] = app.game.warmup.warming
        await until(lambda: not app.game.warmup.warming, timeout=300)
        out["memory warm"] = time.perf_counter() - t0
        app.exit(0)
    out["turns"], out["waited"] = len(took), sum(waited)
    return out


def start_up_in_a_fresh_process(world: str, mode: str, save: str | None, base: str) -> dict:
    args = [sys.executable, "-m", "benchmarks.tui_bench", "--probe", mode, "--world", world, "--base", base]
    out = subprocess.run(
        args + (["--save", save] if save else []), cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def make_save(world: str, base: str) -> str:
    """A save 40 turns into a game with memory on (seeded random legal commands), for ``--load``."""
    from game.play.session import Game

    game = Game(world, seed=0, memory=MINILM)
    rng = np.random.default_rng(0)
    for _ in range(40):
        moves = [c for c in game.engine.legal_commands("player") if c.split()[0] not in ("quit", "save", "load")]
        game.submit(moves[int(rng.integers(len(moves)))])
    game.save("bench-load", base)
    return "bench-load"


# --- turns once warm, and quitting, in this process -------------------------------------------------
async def play_app(world: str, lines: list[str], base: str) -> dict:
    from textual.events import Key
    from textual.widgets import Input

    from game.play.session import Game
    from game.tui.app import ParleyApp

    took: list[float] = []
    waited: list[bool] = []
    game = timed(Game(world, seed=0, memory=MINILM), took, waited)
    app = ParleyApp(lambda: game, saves_base=base)
    out: dict = {"keystroke to echo": [], "turn, app, memory warm": [], "added by the app": []}
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.game is not None and not app.busy and not game.warmup.warming)
        await pilot.pause()
        box = app.screen.query_one(Input)
        box.focus()
        for ch in "look around":
            key = Key("space" if ch == " " else ch, ch)
            key.set_sender(app)
            t0 = time.perf_counter()
            app._driver.send_message(key)  # as a key from the terminal arrives (Pilot.press also waits for idle)
            await until(lambda: box.value.endswith(ch))
            await pilot._wait_for_screen()
            out["keystroke to echo"].append(time.perf_counter() - t0)
            await pilot.pause(0.02)
        box.value = ""
        for line in lines:
            before, n = app.last_reply, len(took)
            t0 = time.perf_counter()
            app.send(line)
            await until(lambda: app.last_reply is not before and len(took) > n and not app.busy)
            await pilot._wait_for_screen()
            total = time.perf_counter() - t0
            out["turn, app, memory warm"].append(total)
            out["added by the app"].append(total - took[n])
            await until(lambda: not any(w.is_running for w in app.workers if w.group == "memory"))  # think time
        assert game.engine.state.won, "the script did not win in the app"
    out["waited"] = sum(waited)
    return out


async def quit_app(world: str, lines: list[str], base: str) -> float:
    """Ctrl+Q in the middle of the script (memory warm) until the app has closed and the autosave is written."""
    from game.play.autosave import farewell
    from game.play.session import Game
    from game.tui.app import ParleyApp

    game = Game(world, seed=0, memory=MINILM)
    app = ParleyApp(lambda: game, saves_base=base)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.game is not None and not app.busy and not game.warmup.warming)
        for line in lines[: len(lines) // 2]:
            before = app.last_reply
            app.send(line)
            await until(lambda: app.last_reply is not before and not app.busy)
        await pilot.pause(0.2)
        t0 = time.perf_counter()
        await pilot.press("ctrl+q")
        await until(lambda: not app.is_running)
    farewell(game, base, lambda _text: None)
    return time.perf_counter() - t0


def play_console(world: str, lines: list[str]) -> tuple[list[float], int]:
    """Each command's time in the line console, memory on and warm: from reading it to the next read."""
    from game.cli.console import run_console
    from game.play.session import Game

    took: list[float] = []
    waited: list[bool] = []
    game = timed(Game(world, seed=0, memory=MINILM), took, waited)
    out, times, queue, started = io.StringIO(), [], list(lines), []

    def read(_prompt: str) -> str:
        if started:
            times.append(time.perf_counter() - started[-1])
        if not queue:
            raise EOFError
        started.append(time.perf_counter())
        return queue.pop(0)

    run_console(game, saves_base=os.devnull, read=read, write=lambda text: out.write(text + "\n"))
    if len(times) < len(lines):  # the last command ended the game: the console stopped reading
        times.append(time.perf_counter() - started[-1])
    assert game.engine.state.won, "the script did not win in the console"
    return times, sum(waited)


# --- real processes in a terminal (tmux) ------------------------------------------------------------
class Terminal:
    """A ``parley`` process in a detached tmux window, read as the screen shows it."""

    def __init__(self, args: str, base: str) -> None:
        self.name = f"parley-bench-{os.getpid()}"
        self.done = Path(base) / "ended"
        self.done.unlink(missing_ok=True)
        env = f"PYTHONPATH={ROOT}"
        command = (
            f"cd {ROOT} && {env} {sys.executable} -m game.cli {args} --saves-dir {base}; touch {self.done}; sleep 60"
        )
        self.started = time.perf_counter()
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", "120", "-y", "40", command], check=True)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def wait(self, condition, timeout: float = 120.0) -> float:
        t0 = time.perf_counter()
        while not condition():
            if time.perf_counter() - t0 > timeout:
                raise TimeoutError(f"the terminal never got there:\n{self.screen()}")
            time.sleep(0.01)
        return time.perf_counter()

    def keys(self, *keys: str) -> float:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)
        return time.perf_counter()

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def in_terminal(world: str, base: str) -> dict:
    """``parley play`` and ``parley play --load`` as a person starts, plays and quits them."""
    out: dict = {}
    term = Terminal(f"play {world} --seed 0", base)
    try:
        out["ready to type (terminal)"] = term.wait(lambda: "What do you do" in term.screen()) - term.started
        sent = term.keys(FIRST_ASK, "Enter")
        out["first ask (terminal)"] = term.wait(lambda: "Jory Flint says" in term.screen()) - sent
        term.wait(lambda: "warming memory" not in term.screen(), timeout=300)
        for key in ("n", "s"):
            term.keys(key, "Enter")
            time.sleep(0.5)
        pressed = term.keys("C-q")
        out["quit (terminal)"] = term.wait(term.done.exists) - pressed
    finally:
        term.close()
    term = Terminal(f"play --load autosave-{world_id(world)}", base)
    try:
        out["ready to type, --load (terminal)"] = term.wait(lambda: "What do you do" in term.screen()) - term.started
        term.wait(lambda: "warming memory" not in term.screen(), timeout=300)
        term.keys("C-q")  # quit, so no process is left loading or saving while the next figures are taken
        term.wait(term.done.exists)
    finally:
        term.close()
    return out


def world_id(world: str) -> str:
    from game.play.worlds import load_world

    return load_world(world).spec.id


# --- the report ------------------------------------------------------------------------------------
def summary(xs: list[float]) -> dict:
    """Median and p95 with 95% bootstrap intervals."""
    a = np.asarray(xs, dtype=float)
    row = {"n": len(a)}
    for name, q in (("median", 50), ("p95", 95)):
        low, high = resample_ci([a], lambda x, axis=-1, q=q: np.percentile(x, q, axis=axis))
        row[name], row[f"{name} ci"] = float(np.percentile(a, q)), (float(low), float(high))
    return row


def ms(x: float) -> str:
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


def verdict(name: str, row: dict) -> str:
    if name not in GOALS:
        return ""
    stat, goal = GOALS[name]
    return f"{stat} <= {ms(goal)}: {'met' if row[stat] <= goal else 'MISSED'}"


def table(rows: dict[str, list[float]]) -> list[str]:
    out = ["| measure | median [95% CI] | p95 [95% CI] | n | goal |", "|---|---|---|---|---|"]
    for name, xs in rows.items():
        if not xs:
            continue
        r = summary(xs)
        cells = [f"{ms(r[s])} [{ms(r[s + ' ci'][0])}, {ms(r[s + ' ci'][1])}]" for s in ("median", "p95")]
        out.append(f"| {name} | {cells[0]} | {cells[1]} | {r['n']} | {verdict(name, r)} |")
    return out


def report(rows: dict[str, list[float]], counts: dict[str, list[int]], args, lines: list[str]) -> str:
    head = (
        f"Parley terminal app, {args.world}, memory on (MiniLM), script {args.script} ({len(lines)} commands), "
        f"{args.reps} reps, {os.cpu_count()} cores, headless {SIZE[0]}x{SIZE[1]}"
    )
    turns, waited = sum(counts["turns"]), sum(counts["waited"])
    app, console = np.median(rows["turn, app, memory warm"]), np.median(rows["turn, console, memory warm"])
    tail = [
        "",
        f"turns that waited on model loading: {waited} of {turns} "
        f"(first commands sent while memory was still warming: {sum(counts['sent while warming'])} "
        f"of {len(counts['sent while warming'])})",
        f"turn with memory warm, app / console (medians): {app / console:.2f}x ({ms(app)} vs {ms(console)})",
    ]
    return "\n".join([head, "", *table(rows), *tail])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--world", default="worlds/harbor")
    ap.add_argument("--script", default="tests/scripts/harbor_win.txt")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--page", metavar="FILE", help="write the figures into this Markdown page (its table)")
    ap.add_argument("--no-terminal", action="store_true", help="skip the real processes in tmux")
    ap.add_argument("--probe", choices=("play", "load", "watch"), help=argparse.SUPPRESS)
    ap.add_argument("--save", help=argparse.SUPPRESS)
    ap.add_argument("--base", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.probe:
        print(json.dumps(asyncio.run(start_up(args.world, args.probe, args.save, args.base))))
        return 0
    lines = script_lines(Path(args.script))
    terminal = not args.no_terminal and shutil.which("tmux") is not None
    names = (
        "first frame",
        "ready to type",
        "first ask",
        "memory warm (background)",
        "ready to type, --load",
        "first command, --load",
        "watch: move 1 drawn",
        "turn, app, memory warm",
        "turn, console, memory warm",
        "added by the app",
        "keystroke to echo",
        "quit (Pilot)",
    )
    rows: dict[str, list[float]] = {k: [] for k in names}
    if terminal:
        rows.update(
            {
                k: []
                for k in (
                    "ready to type (terminal)",
                    "first ask (terminal)",
                    "ready to type, --load (terminal)",
                    "quit (terminal)",
                )
            }
        )
    counts: dict[str, list[int]] = {"turns": [], "waited": [], "sent while warming": []}
    # bytecode compiled once, as pip does on install (this machine may set PYTHONDONTWRITEBYTECODE,
    # which would time the compiler in every fresh process)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "game", "agents", "memory", "benchmarks"], cwd=ROOT)
    count_waits()
    with tempfile.TemporaryDirectory() as base:
        save = make_save(args.world, base)
        for rep in range(args.reps):
            for mode in ("play", "load", "watch"):
                got = start_up_in_a_fresh_process(args.world, mode, save, base)
                counts["turns"].append(got["turns"])
                counts["waited"].append(got["waited"])
                counts["sent while warming"].append(int(got["warming at first command"]))
                if mode == "play":
                    rows["first frame"].append(got["first frame"])
                    rows["ready to type"].append(got["ready"])
                    rows["first ask"].append(got["first command"])
                    rows["memory warm (background)"].append(got["memory warm"])
                elif mode == "load":
                    rows["ready to type, --load"].append(got["ready"])
                    rows["first command, --load"].append(got["first command"])
                else:
                    rows["watch: move 1 drawn"].append(got["move 1"])
            got = asyncio.run(play_app(args.world, lines, base))
            for k in ("keystroke to echo", "turn, app, memory warm", "added by the app"):
                rows[k] += got[k]
            counts["turns"].append(len(lines))
            counts["waited"].append(got["waited"])
            console, waited = play_console(args.world, lines)
            rows["turn, console, memory warm"] += console
            counts["turns"].append(len(lines))
            counts["waited"].append(waited)
            rows["quit (Pilot)"].append(asyncio.run(quit_app(args.world, lines, base)))
            if terminal:
                fresh = Path(base) / f"terminal-{rep}"  # a new player's folder: no autosave to ask about
                fresh.mkdir()
                for k, v in in_terminal(args.world, str(fresh)).items():
                    rows[k].append(v)
            print(f"rep {rep + 1}/{args.reps} done", file=sys.stderr)
    text = report(rows, counts, args, lines)
    print(text)
    if args.page:
        write_page(Path(args.page), text)
    if args.json:
        write_json(
            args.json,
            {"reps": args.reps, "script": args.script, "cores": os.cpu_count(), "seconds": rows, "counts": counts},
            indent=1,
        )
    return 0


def write_page(path: Path, text: str) -> None:
    """Put the report between the page's ``<!-- figures -->`` and ``<!-- /figures -->`` marks."""
    page = path.read_text()
    start, end = "<!-- figures -->", "<!-- /figures -->"
    if start not in page or end not in page:
        raise SystemExit(f"{path} has no {start} ... {end} block for the figures")
    before, rest = page.split(start, 1)
    path.write_text(f"{before}{start}\n{text}\n{end}{rest.split(end, 1)[1]}")


if __name__ == "__main__":
    sys.exit(main())
