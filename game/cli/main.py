"""The ``parley`` command line.

Exit codes: 0 ok, 1 runtime error, 2 usage or input error. Only argparse is
imported up front so ``parley --help`` starts fast; each command imports what
it needs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from game.cli.arguments import build_parser


def _project_root() -> Path:
    return Path(__file__).resolve().parents[2]


def check_packages() -> None:
    """Refuse to run if `agents` or `memory` come from outside this project (a PyPI name clash)."""
    import importlib.util

    from game.core.errors import InputError

    root = _project_root()
    for name in ("agents", "memory"):
        spec = importlib.util.find_spec(name)
        origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
        if origin is None or root not in origin.parents:
            raise InputError(
                f"the package {name!r} resolves to {origin or 'nothing'}, not to this project ({root})",
                hint=f"another installed package is named {name!r} (e.g. openai-agents); "
                "uninstall it or run Parley from its own virtualenv (`make play`)",
            )


COMMAND_MODULES = {
    "validate": "game.cli.world",
    "schema": "game.cli.world",
    "new-world": "game.cli.world",
    "lexicon": "game.cli.lexicon",
    "saves": "game.cli.saves",
    "replay": "game.cli.saves",
    "trust": "game.cli.saves",
    "inspect": "game.cli.saves",
    "map": "game.cli.map",
    "tournament": "game.cli.tournament",
    "import": "game.cli.tournament",
    "debate": "game.cli.debate",
    "model": "game.cli.model",
    "serve": "game.cli.serve",
}


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show a character gets an escape, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.cmd is None:
        parser.print_help()
        return 2
    from game.core.errors import ParleyError

    try:
        check_packages()
        import importlib

        module = importlib.import_module(COMMAND_MODULES.get(args.cmd, "game.cli.commands"))
        code = getattr(module, f"cmd_{args.cmd.replace('-', '_')}")(args)
        flush = getattr(sys.stdout, "flush", None)  # None: no stdout at all, or a stand-in without one
        if flush is not None:
            flush()  # output that cannot be written is an error here, not at exit
        return code
    except ParleyError as e:
        print(f"parley: error: {e.render()}", file=sys.stderr)
        return e.exit_code
    except UnicodeDecodeError as e:
        print(f"parley: error: a file is not UTF-8 text ({e.reason} at byte {e.start})", file=sys.stderr)
        return 2
    except IsADirectoryError as e:
        print(f"parley: error: {e.filename} is a folder, not a file", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and the like
        _drop_stdout()
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 1
    except OSError as e:  # disk full, permissions, missing folders: say which file
        import errno

        from game.core.text import shown

        if e.filename is None and e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):  # stdout on a full disk
            print(f"parley: error: cannot write the standard output: {e.strerror}", file=sys.stderr)
            _drop_stdout()
            return 2
        where = f"{shown(e.filename)[:200]}: " if e.filename else ""
        print(f"parley: error: {where}{e.strerror or e}", file=sys.stderr)
        return 2 if e.errno == errno.ENAMETOOLONG else 1  # a name too long is what the user gave


def _drop_stdout() -> None:
    """Send what is left in stdout's buffer nowhere, so the exit does not fail to flush it again."""
    import os

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
