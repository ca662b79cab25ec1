"""Checks calculon's approximate results against mpmath (PyPI).

Reads tab-separated lines `index, digits, python expression, our answer`
from stdin; evaluates the expression with mpmath at `digits + 500` decimal
digits (an inner value may be as large as e^999, about 10^434, and the
sine of it then needs that many more digits); prints one line per case
that does not match:

- an approximate answer must equal the reference rounded (half to even)
  to `digits` significant digits, trailing zeros dropped;
- an exact answer must equal the reference;
- `0 (±b)` must bound the reference: |ref| <= b.

The last line is `checked N`.
"""
import sys
from decimal import Decimal, ROUND_HALF_EVEN, getcontext, localcontext

import mpmath
from mpmath import mp, mpf

NAMES = {
    "mpf": mpf, "sqrt": mpmath.sqrt, "exp": mpmath.exp, "log": mpmath.log, "log10": mpmath.log10,
    "sin": mpmath.sin, "cos": mpmath.cos, "tan": mpmath.tan, "atan": mpmath.atan, "asin": mpmath.asin,
    "acos": mpmath.acos, "sinh": mpmath.sinh, "cosh": mpmath.cosh, "tanh": mpmath.tanh,
    "cbrt": mpmath.cbrt, "pi": None, "e": None, "atan2": mpmath.atan2, "asinh": mpmath.asinh,
    "acosh": mpmath.acosh, "atanh": mpmath.atanh,
}


def rounded(ref, digits):
    """`ref` (an mpf) rounded to `digits` significant digits, as a Decimal."""
    text = mpmath.nstr(ref, mp.dps, strip_zeros=False, min_fixed=1, max_fixed=0)
    d = Decimal(text)
    if d == 0:
        return d
    with localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = ROUND_HALF_EVEN
        r = +d
    return r.normalize()


def main():
    # Plain Decimal operations (normalize, comparisons) must not round.
    getcontext().prec = 10_000
    checked = 0
    for line in sys.stdin:
        index, digits, expression, ours = line.rstrip("\n").split("\t")
        digits = int(digits)
        mp.dps = digits + 500
        names = dict(NAMES, pi=mp.pi, e=mp.e)
        ref = eval(expression, {"__builtins__": {}}, names)
        checked += 1
        if ours.startswith("≈ 0 (±"):
            bound = Decimal(ours[len("≈ 0 (±"):-1])
            if abs(Decimal(mpmath.nstr(ref, 30))) > bound:
                print(f"{index}\t{expression}\tours {ours}\tref {mpmath.nstr(ref, 40)}")
            continue
        approximate = ours.startswith("≈ ")
        value = Decimal(ours[2:].split(" (=")[0])
        if approximate:
            want = rounded(ref, digits)
            ok = value.normalize() == want
        elif value == 0:
            # An exact zero (tan(-38π)): mpmath's own rounding noise.
            ok = abs(ref) <= mpf(10) ** (-(mp.dps - 50))
        else:
            ok = abs(mpf(str(value)) - ref) <= abs(ref) * mpf(10) ** (-(digits + 30))
        if not ok:
            print(f"{index}\t{expression}\tours {ours}\tref {mpmath.nstr(ref, digits + 5)}")
    print(f"checked {checked}")


if __name__ == "__main__":
    main()
