#!/usr/bin/env python3
"""Checks the documentation a newcomer reads (issue 39).

1. Every relative link between the markdown files resolves to a file.
2. Every command the READMEs show in ```sh blocks is runnable as written:
   each `cargo run -p CRATE [--bin BIN | --example EX] [-- ARGS]`, each
   `target/release/BIN ARGS` and each line that starts with one of the
   workspace's programs is run as `BIN ARGS --help`, which clap answers
   only when the binary exists and every flag before `--help` is one it
   knows. A line with `# usage` in its comment is a usage pattern, not a
   command, and is left out.

Run after `cargo build --workspace --bins --examples` (the debug binaries
stand for the release ones: the flags are the same).
"""

import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN_DIR = os.path.join(ROOT, "target", "debug")
PROGRAMS = {"viewer2", "calculon", "retarget"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def markdown_files():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        top = rel.split(os.sep)[0]
        if top in {"target", ".git", "shared"} or "node_modules" in rel or "/fuzz/target" in rel:
            dirnames[:] = []
            continue
        for name in filenames:
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


def check_links(path, text, problems):
    in_code = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            file = target.split("#", 1)[0]
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file))
            if not os.path.exists(resolved):
                problems.append(f"{os.path.relpath(path, ROOT)}:{number}: link to {target}: no such file")


def sh_blocks(text):
    """The lines of ```sh blocks, with their line numbers."""
    lines = text.splitlines()
    block = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            block = None if block is not None else (stripped[3:].strip() in {"sh", "bash", "shell"})
            continue
        if block:
            yield number, line


def command_of(line):
    """The argv to check for a shown command line, or None."""
    code, _, comment = line.partition(" #")
    if "usage" in comment:
        return None
    code = code.strip()
    if not code or code.startswith("#"):
        return None
    # The last command of a pipe or a chain is the one shown running.
    for separator in ("&&", "|", ";"):
        code = code.split(separator)[-1].strip()
    try:
        words = shlex.split(code)
    except ValueError:
        return None
    while words and re.match(r"^[A-Z_]+=", words[0]):
        words = words[1:]
    if not words:
        return None
    if words[0] == "cargo" and len(words) > 1 and words[1] == "run":
        crate, binary, example, rest = None, None, None, []
        k = 2
        while k < len(words):
            w = words[k]
            if w == "--":
                rest = words[k + 1:]
                break
            if w in ("-p", "--package"):
                crate = words[k + 1]
                k += 2
                continue
            if w == "--bin":
                binary = words[k + 1]
                k += 2
                continue
            if w == "--example":
                example = words[k + 1]
                k += 2
                continue
            k += 1
        if example:
            return [os.path.join(BIN_DIR, "examples", example)] + rest
        name = binary or crate
        return [os.path.join(BIN_DIR, name)] + rest if name else None
    if words[0].startswith("target/release/") or words[0].startswith("target/debug/"):
        return [os.path.join(BIN_DIR, os.path.basename(words[0]))] + words[1:]
    if words[0] in PROGRAMS:
        return [os.path.join(BIN_DIR, words[0])] + words[1:]
    return None


def check_commands(path, text, problems):
    for number, line in sh_blocks(text):
        argv = command_of(line)
        if argv is None:
            continue
        where = f"{os.path.relpath(path, ROOT)}:{number}"
        if not os.path.exists(argv[0]):
            problems.append(f"{where}: {line.strip()}: no binary {os.path.relpath(argv[0], ROOT)}")
            continue
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        try:
            # `--help` before a `--`, after which everything is a value.
            cut = argv.index("--") if "--" in argv[1:] else len(argv)
            asked = argv[:cut] + ["--help"]
            run = subprocess.run(asked, cwd=ROOT, env=env, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            problems.append(f"{where}: {line.strip()}: --help did not answer in 60 s")
            continue
        if run.returncode != 0:
            said = (run.stderr or run.stdout).decode("utf-8", "replace").strip().splitlines()
            problems.append(f"{where}: {line.strip()}: {said[0] if said else 'exit ' + str(run.returncode)}")


def main():
    problems = []
    files = sorted(markdown_files())
    commands = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        check_links(path, text, problems)
        if os.path.basename(path) == "README.md":
            commands += sum(1 for _, line in sh_blocks(text) if command_of(line))
            check_commands(path, text, problems)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"docs: {len(files)} markdown files, {commands} commands checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
