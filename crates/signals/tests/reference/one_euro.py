#!/usr/bin/env python3
"""Writes the 1€ filter's reference trace with the authors' implementation.

    pip install OneEuroFilter==0.2.1
    python3 one_euro.py            # rewrites one_euro.csv beside this script
    python3 one_euro.py --check    # fails if one_euro.csv differs from a fresh run

The Rust test `one_euro_reference` replays the trace and must match within 1e-9.
Inputs: noisy sines and steps sampled at uneven times (seeded), several
parameter sets. Floats are written with repr(), which round-trips exactly.
"""
import math
import random
import sys
from pathlib import Path

from OneEuroFilter import OneEuroFilter

CASES = [
    # name, initial freq, min cutoff (Hz), beta, d cutoff (Hz), mean rate (Hz), noise
    ("mouse", 120.0, 1.0, 0.007, 1.0, 120.0, 0.5),
    ("hand", 60.0, 0.5, 0.5, 1.0, 60.0, 0.02),
    ("fast", 240.0, 2.0, 2.0, 0.7, 240.0, 0.05),
    ("jittery-clock", 30.0, 1.5, 0.1, 1.2, 30.0, 1.0),
]
SAMPLES = 1500


def trace(name, freq, mincutoff, beta, dcutoff, rate, noise):
    rng = random.Random(name)
    f = OneEuroFilter(freq, mincutoff, beta, dcutoff)
    t = 1.0  # the reference ignores a timestamp of 0 (it is falsy)
    rows = []
    for i in range(SAMPLES):
        t += (1.0 / rate) * rng.uniform(0.5, 1.5)
        clean = 10.0 * math.sin(2.0 * t) + (5.0 if (i // 300) % 2 else 0.0)
        x = clean + rng.gauss(0.0, noise)
        rows.append(f"{name},{t!r},{x!r},{f(x, t)!r}")
    return rows


def main():
    lines = ["case,timestamp,x,filtered"]
    for case in CASES:
        lines += trace(*case)
    text = "\n".join(lines) + "\n"
    out = Path(__file__).with_name("one_euro.csv")
    if "--check" in sys.argv:
        if out.read_text() != text:
            sys.exit(f"{out} differs from the reference implementation's output: rerun {Path(__file__).name}")
        print(f"{out.name}: matches OneEuroFilter {getattr(sys.modules['OneEuroFilter'], '__version__', '0.2.1')}")
    else:
        out.write_text(text)
        print(f"wrote {out} ({len(lines) - 1} samples)")


if __name__ == "__main__":
    main()
