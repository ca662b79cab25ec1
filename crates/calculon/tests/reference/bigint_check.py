"""Checks calculon's exact big integers against GMP (gmpy2, PyPI).

Reads tab-separated lines `index, base, prefix, python expression, our
answer`
from stdin; evaluates the expression exactly (gmpy2's mpz when installed,
else Python's own int with no limit on digits) and prints one line per
case whose printed text is not the value's, in that base, with the given
prefix (`0x` for `to hex`; none for `to base N`) after any sign. The last
line is `checked N`.
"""
import sys

try:
    from gmpy2 import mpz

    def digits(n, base):
        return mpz(n).digits(base)
except ImportError:  # Python's int: exact, slower above a million digits.
    sys.set_int_max_str_digits(0)
    mpz = int

    def digits(n, base):
        if base == 10:
            return str(n)
        alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
        out = []
        while n:
            n, r = divmod(n, base)
            out.append(alphabet[r])
        return "".join(reversed(out)) or "0"

def main():
    checked = 0
    for line in sys.stdin:
        index, base, prefix, expression, ours = line.rstrip("\n").split("\t")
        base = int(base)
        value = eval(expression, {"mpz": mpz})
        sign = "-" if value < 0 else ""
        want = sign + prefix + digits(abs(value), base)
        checked += 1
        if ours != want:
            first = next((i for i, (a, b) in enumerate(zip(ours, want)) if a != b), min(len(ours), len(want)))
            print(
                f"case {index}: {expression} in base {base}: ours has {len(ours)} characters, "
                f"the value {len(want)}; first difference at {first}: "
                f"ours {ours[max(0, first - 10):first + 20]!r}, want {want[max(0, first - 10):first + 20]!r}"
            )
    print(f"checked {checked}")


main()
