#!/usr/bin/env python3
"""pygame-ce's answers for collide's mask differential test (tests/mask_pygame.rs).

Case i is generated from seed i by SplitMix64, the same generator the Rust test
uses, so only the answers travel: one JSON object per line on stdout.

    python pygame_masks.py --cases 10000
"""
import argparse
import json
import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402
import pygame.mask  # noqa: E402

M64 = (1 << 64) - 1


class Rng:
    """SplitMix64."""

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


EDGE_WIDTHS = [1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193]


def size(rng):
    if rng.below(4) == 0:
        w = EDGE_WIDTHS[rng.below(len(EDGE_WIDTHS))]
    else:
        w = 1 + rng.below(300)
    return w, 1 + rng.below(90)


def word(rng, kind):
    if kind == 0:
        return rng.next()
    if kind == 1:
        return rng.next() & rng.next()
    if kind == 2:
        return rng.next() & rng.next() & rng.next() & rng.next()
    if kind == 3:
        return rng.next() | rng.next()
    if kind == 4:
        w = M64
        for _ in range(6):
            w &= rng.next()
        return w
    if kind == 5:
        return 0
    return M64


def gen_mask(rng, w, h, kind):
    """Stripe by stripe, row by row, one word each (the Rust test's order)."""
    stripes = (w + 63) // 64
    words = np.zeros((stripes, h), dtype=np.uint64)
    for s in range(stripes):
        for y in range(h):
            words[s, y] = word(rng, kind)
    bits = np.unpackbits(words.view(np.uint8).reshape(stripes, h, 8), axis=2, bitorder="little")
    rows = bits.transpose(1, 0, 2).reshape(h, stripes * 64)[:, :w]
    rgba = np.zeros((h, w, 4), dtype=np.uint8)
    rgba[:, :, 3] = rows * 255
    # frombytes copies; frombuffer would keep pointing at a temporary.
    surface = pygame.image.frombytes(rgba.tobytes(), (w, h), "RGBA")
    return pygame.mask.from_surface(surface, 127)


def probe(m, p):
    return [m.count(), m.overlap_area(p, (0, 0)), list(m.overlap(p, (0, 0)) or [])]


def case(i):
    rng = Rng(i)
    wa, ha = size(rng)
    wb, hb = size(rng)
    a = gen_mask(rng, wa, ha, rng.below(7))
    b = gen_mask(rng, wb, hb, rng.below(7))
    dx = rng.below(wa + wb + 10) - wb - 5
    dy = rng.below(ha + hb + 10) - hb - 5
    sw, sh = 1 + rng.below(2 * wa), 1 + rng.below(2 * ha)
    pa = gen_mask(rng, wa, ha, 0)
    ps = gen_mask(rng, sw, sh, 0)
    out = {"i": i}
    hit = a.overlap(b, (dx, dy))
    out["overlap"] = list(hit) if hit is not None else None
    out["area"] = a.overlap_area(b, (dx, dy))
    out["overlap_mask"] = probe(a.overlap_mask(b, (dx, dy)), pa)
    d = a.copy()
    d.draw(b, (dx, dy))
    out["draw"] = probe(d, pa)
    e = a.copy()
    e.erase(b, (dx, dy))
    out["erase"] = probe(e, pa)
    v = a.copy()
    v.invert()
    out["invert"] = probe(v, pa)
    out["scale"] = probe(a.scale((sw, sh)), ps)
    # pygame-ce 2.5.8 crashes (segmentation fault) labelling a mask one
    # pixel wide with a gap in it, so those are left out.
    if wa > 1:
        out["rects"] = sorted(list(r) for r in a.get_bounding_rects())
        out["components"] = sorted(m.count() for m in a.connected_components())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=10000)
    args = ap.parse_args()
    for i in range(args.cases):
        print(json.dumps(case(i)))


if __name__ == "__main__":
    main()
