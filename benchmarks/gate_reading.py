"""How the gate's claim extractor reads the gate benchmark stream's sentences: read as meant, misread,
read as nothing, for the rules alone and with the meaning readers (``benchmarks.gate.reading``).

    python -m benchmarks.gate_reading --seeds 0-9 --held-out 100-119
    python -m benchmarks.gate_reading --seeds 0-9 --calibrate
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.gate.reading import READERS, calibrate, parse_seeds, report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gate_reading", description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0-9", help="tune seeds (default 0-9)")
    p.add_argument("--held-out", default="", help="held-out seeds, e.g. 100-119")
    p.add_argument("--readers", default=",".join(READERS), help="rules,hash,minilm")
    p.add_argument("--calibrate", action="store_true", help="pick the meaning reader's floor and margin")
    a = p.parse_args(argv)
    seeds = parse_seeds(a.seeds)
    if a.calibrate:
        calibrate(seeds)
        return 0
    readers = [r.strip() for r in a.readers.split(",") if r.strip()]
    report("tune", seeds, readers)
    if a.held_out:
        report("held-out", parse_seeds(a.held_out), readers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
