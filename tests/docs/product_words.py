#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Product text speaks about the tools, never about how they were made.

Rejects the words below in README.md, CONTRIBUTING.md, every docs/**/*.md, the man page
sources (man/*.in) and every tool's --help (each
subcommand's too, and the capture script's). Inline code spans (`...`) are left out of the
documents: they hold file and identifier names, not prose. Besides the fixed words:
"issue N" that names no repository ("NVIDIA/nccl issue 1264" names a public thread; a bare
"issue 20" is a work item of the project's own), and a path into "../shared", the test
data folder beside a developer's checkout, which users do not have: checked in code spans
too, everywhere but CONTRIBUTING.md, whose section on that folder is for contributors; and
in --help texts and man pages the capture script's path in a clone instead of the
installed command, p2pscope-capture-host. Exit status 0 clean, 1 a word found (each listed with where), 2 a --help that could not
run.
"""
import glob
import os
import re
import subprocess
import sys

WORDS = ["seed", "seeds", "seeded", "workplace", "device machine", "device machines",
         "our goal", "the 85% goal", "this session", "the lead", "device call",
         "merged main", "main of", "as lent", "lent", "the team", "the team's",
         "engineers' builds", "engineer's build", "other engineers"]
# "issue 20", "issue #20" with no owner/name right before it.
ISSUE = re.compile(r"(?<![\w-])issues? #?\d+", re.IGNORECASE)
REPO_BEFORE = re.compile(r"[\w.-]+/[\w.-]+\s*$")
# The developer's shared test data folder, in prose or in code.
SHARED = re.compile(r"\.\./shared\b")
SHARED_ALLOWED = {"CONTRIBUTING.md"}
# Help texts and man pages name the installed capture command, not the script in a clone.
SCRIPT = re.compile(r"(?:scripts/)?capture\\?-host\.sh")
SKIPPED = []  # checks that could not run here, with why
PATTERN = re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in
                     sorted(WORDS, key=len, reverse=True)) + r")(?![\w-])", re.IGNORECASE)


def in_ci():
    """CI=true (as CI services set it): a check that cannot run is then a failure."""
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def text_hits(text, name):
    """The fixed words and the bare issue numbers in one text."""
    hits = [m.group(0) for m in PATTERN.finditer(text)]
    hits += [m.group(0) for m in ISSUE.finditer(text)
             if not REPO_BEFORE.search(text[:m.start()])]
    if name not in SHARED_ALLOWED:
        hits += [m.group(0) for m in SHARED.finditer(text)]
    return hits


def doc_hits(path, rel):
    """Matches in the document's prose, a phrase broken across two lines included; the
    ../shared rule reads the code spans too."""
    raw = [l.rstrip("\n") for l in open(path, encoding="utf-8")]
    lines = [re.sub(r"`[^`]*`", "", l) for l in raw]
    text, starts = "", []
    for l in lines:
        starts.append(len(text))
        text += l + " "
    hits = []

    def at(pos):
        n = max(i for i, st in enumerate(starts) if st <= pos)
        return n, lines[n]

    for m in PATTERN.finditer(text):
        n, l = at(m.start())
        hits.append(f"{rel}:{n + 1}: '{m.group(0)}': {l.strip()[:120]}")
    for m in ISSUE.finditer(text):
        if not REPO_BEFORE.search(text[:m.start()]):
            n, l = at(m.start())
            hits.append(f"{rel}:{n + 1}: '{m.group(0)}' (name the repository: owner/name "
                        f"issue N): {l.strip()[:120]}")
    if rel.startswith("man/"):
        for n, l in enumerate(raw):
            for m in SCRIPT.finditer(l):
                hits.append(f"{rel}:{n + 1}: '{m.group(0)}' (name the installed command "
                            f"p2pscope-capture-host)")
    if rel not in SHARED_ALLOWED:
        for n, l in enumerate(raw):
            for m in SHARED.finditer(l):
                hits.append(f"{rel}:{n + 1}: '{m.group(0)}' (users have no such folder: say "
                            f"what the data is and where it comes from): {l.strip()[:120]}")
    return hits


def helps(source, tools):
    runs = [["bar-inspect", "--help"], ["pte-probe", "--help"], ["pte-decode", "--help"],
            ["p2p-bench", "--help"], ["p2p-bench", "report", "--help"]]
    for cmd in ("encode", "decode", "p2p", "formats", "verify"):
        runs.append(["pte-decode", cmd, "--help"])
    runs.append(["pte-decode", "decode", "--raw", "--help"])
    for r in runs:
        exe = os.path.join(tools, r[0])
        if r[0] == "p2p-bench" and not os.path.exists(exe):
            SKIPPED.append("p2p-bench --help: p2p-bench is not built (no CUDA compiler)")
            continue  # built only where CMake found nvcc
        yield " ".join(r), [exe] + r[1:]
    yield "capture-host.sh --help", ["bash", os.path.join(source, "scripts", "capture-host.sh"),
                                      "--help"]


def main():
    source = os.environ.get("P2PS_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
    tools = os.environ.get("P2PS_TOOLS_DIR") or os.path.join(source, "build", "tools")
    hits, docs = [], ["README.md", "CONTRIBUTING.md"] + sorted(
        os.path.relpath(p, source) for p in glob.glob(os.path.join(source, "docs", "**", "*.md"),
                                                      recursive=True) +
        glob.glob(os.path.join(source, "man", "*.in")))
    for rel in docs:
        hits += doc_hits(os.path.join(source, rel), rel)
    n_help = 0
    for name, argv in helps(source, tools):
        p = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        text = p.stdout + p.stderr
        if p.returncode != 0 or not text.strip():
            print(f"product_words: '{name}' exited {p.returncode}: {text[-300:]}")
            return 2
        n_help += 1
        for h in text_hits(text, name) + [m.group(0) for m in SCRIPT.finditer(text)]:
            hits.append(f"{name}: '{h}'")
    for h in hits:
        print(h)
    print(f"product_words: {len(docs)} documents and {n_help} --help texts read, "
          f"{len(hits)} word(s) about how the product was made")
    for what in SKIPPED:
        print(("FAIL: " if in_ci() else "SKIPPED: ") + what)
    if hits or (SKIPPED and in_ci()):
        return 1
    return 77 if SKIPPED else 0


if __name__ == "__main__":
    sys.exit(main())
