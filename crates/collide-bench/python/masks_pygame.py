#!/usr/bin/env python3
"""pygame-ce's side of collide-bench's mask benchmark (src/bin/masks.rs).

The same masks (solid discs) and the same offsets (SplitMix64 from a seed) as
the Rust side; prints one JSON object per size with pygame's seconds per
check and the answers' checksums, so both sides are seen to do the same work.

    python masks_pygame.py --sizes 64 512 2048 --checks 2000
"""
import argparse
import json
import os
import time

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402
import pygame.mask  # noqa: E402

M64 = (1 << 64) - 1


class Rng:
    def __init__(self, seed):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n


def disc(w, h):
    """Set where the pixel centre lies inside the ellipse filling w x h."""
    ys, xs = np.mgrid[0:h, 0:w]
    rx, ry = w / 2.0, h / 2.0
    inside = ((xs + 0.5 - rx) / rx) ** 2 + ((ys + 0.5 - ry) / ry) ** 2 < 1.0
    rgba = np.zeros((h, w, 4), dtype=np.uint8)
    rgba[:, :, 3] = inside * 255
    return pygame.mask.from_surface(pygame.image.frombytes(rgba.tobytes(), (w, h), "RGBA"), 127)


def offsets(seed, w, h, n):
    rng = Rng(seed)
    return [(rng.below(2 * w) - w, rng.below(2 * h) - h) for _ in range(n)]


def run(w, h, checks, seed):
    a, b = disc(w, h), disc(w, h)
    offs = offsets(seed, w, h, checks)
    out = {"w": w, "h": h, "count": a.count()}
    for name, fn in [("overlap", a.overlap), ("overlap_area", a.overlap_area)]:
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            for o in offs:
                fn(b, o)
            best = min(best, time.perf_counter() - t)
        out[name + "_s"] = best / checks
    out["hits"] = sum(1 for o in offs if a.overlap(b, o) is not None)
    out["area_sum"] = sum(a.overlap_area(b, o) for o in offs)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", nargs="+", default=["64x64", "512x512", "2048x2048", "800x400"])
    ap.add_argument("--checks", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1994)
    args = ap.parse_args()
    for s in args.sizes:
        w, h = (int(v) for v in s.split("x"))
        print(json.dumps(run(w, h, args.checks, args.seed)), flush=True)


if __name__ == "__main__":
    main()
