"""``parley serve``: the terminal app in a web browser, through textual-serve (the ``serve`` extra).

The server runs ``parley play WORLD`` once for every browser page that opens, with Textual's web
driver in its environment: each page plays its own game of the same app, and leaving the page is
leaving the game (an unfinished game is autosaved, as after ``play``).
"""

from __future__ import annotations

import os
import shlex
import sys
from argparse import Namespace

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"  # what textual-serve puts in TEXTUAL_DRIVER


def served_in_browser() -> bool:
    """Whether this process is a game textual-serve started for a browser page (its screen is the
    web driver's, so the app runs though stdin and stdout are pipes)."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def play_command(args: Namespace) -> list[str]:
    """The ``parley play`` command line each browser page runs (this Python, this package)."""
    cmd = [sys.executable, "-m", "game.cli", "play", args.world or "harbor"]
    if args.seed is not None:
        cmd += ["--seed", str(args.seed)]
    if args.saves_dir:
        cmd += ["--saves-dir", os.path.abspath(args.saves_dir)]
    for flag in ("no_memory", "no_insights"):
        if getattr(args, flag, False):
            cmd.append("--" + flag.replace("_", "-"))
    for flag in ("embedder", "store", "chroma_host", "chroma_port", "budget", "insights"):
        value = getattr(args, flag, None)
        if value is not None:
            cmd += ["--" + flag.replace("_", "-"), str(value)]
    if getattr(args, "memo_llm", None):
        cmd += ["--memo-llm", ",".join(args.memo_llm)]
    return cmd


def check_listen(host: str, port: int) -> None:
    """Refuse (exit 2) an address this machine cannot listen on before the server starts: a host
    name that cannot be encoded or resolved, an address not on this machine, a port in use or not
    allowed. The test socket is closed at once; the server binds its own."""
    import socket

    from game.core.errors import InputError
    from game.core.text import shown

    where = f"--host {shown(host)[:80]} --port {port}"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _name, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except (OSError, UnicodeError, IndexError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e) or type(e).__name__
        raise InputError(f"{where}: cannot listen there: {why}", hint="give this machine's name or address") from None


def cmd_serve(args: Namespace) -> int:
    from game.core.extras import require
    from game.play.worlds import load_world

    require("serve", "parley serve")
    world = load_world(args.world or "harbor")  # a bad world is an error now, not in every page
    check_listen(args.host, args.port)
    from textual_serve.server import Server

    command = shlex.join(play_command(args))
    url = f"http://{args.host}:{args.port}"
    print(f"serving {world.spec.title} at {url} (Ctrl-C stops)", flush=True)
    Server(command, host=args.host, port=args.port, title=f"Parley: {world.spec.title}").serve()
    return 0
