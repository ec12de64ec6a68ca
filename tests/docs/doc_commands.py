#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every command in README.md, CONTRIBUTING.md and docs/*.md runs, and prints what the docs say it prints.

A fenced block holds commands when it is a ```console block, a plain ``` block with
"$ " lines, or a ```sh block:

  console / plain   "$ CMD" lines (a line ending in "\\" continues on the next); the lines
                    after one, up to the next "$ ", are its output. A line "..." (indented or
                    not) stands for any number of lines.
  sh                every non-blank, non-comment line is a command; each must exit 0.
                    A sh block runs only when a doc-check comment says so ("run", or
                    skips for the commands that must not run here): an unmarked one fails.

Each document's blocks run in order in a scratch folder of their own that stands for a
fresh clone after the documented build: every top-level entry of the source tree that git
tracks links there, `build` links to the build, and the tools are on PATH the way README's
"Install" puts them there (`cmake --install build`, here into a scratch prefix whose bin/
leads PATH); nothing else is prepared ("../shared" links to the shared test data, which
only docs for developers name). One bash process per block (so `export` and `$?` carry
over within a block). A leading "sudo " is dropped: the command runs as whoever runs the
test.

An HTML comment right before a block steers it, one directive per line:

  <!-- doc-check:
  skip: PREFIX | REASON | CHECKED  commands starting with PREFIX (or matching /REGEX/) are
                                  not run: why, and the file (source-relative) whose test
                                  checks the same thing another way; each must match a command
  file: PATH                      a block without commands: its text equals PATH (in the
                                  scratch folder, else in the source tree)
  run                             (sh blocks) run the commands the skips leave
  -->

Every relative link leads to a file of the tree. There is no hidden setup: a file an example reads is committed (a fixture path) or made by
a command shown before it. README.md names nothing under ../shared. Exit status 0 all good, 1 a difference, 77 commands skipped because ../shared is
missing (outside CI; under CI=true that fails).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = "@@DOC-CHECK@@"


def tracked_top(source):
    """The top-level names a clone of the source tree has."""
    try:
        out = subprocess.run(["git", "-C", source, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        names = {p.split("/", 1)[0] for p in out.split("\0") if p}
    except (OSError, subprocess.CalledProcessError):  # an exported tree without .git
        names = {n for n in os.listdir(source) if not n.startswith((".", "build"))}
    return sorted(n for n in names if os.path.exists(os.path.join(source, n)))


class Block:
    def __init__(self, doc, line, lang, lines, directives):
        self.doc, self.line, self.lang, self.lines = doc, line, lang, lines
        self.setup, self.skips, self.files = [], [], []
        self.marked = bool(directives)
        for d in directives:
            key, _, val = d.partition(":")
            key, val = key.strip(), val.strip()
            if key == "setup":
                raise SystemExit(f"{doc}:{line}: no hidden setup: show the command in the "
                                 "doc, or name a committed file")
            elif key == "skip":
                parts = [p.strip() for p in val.split("|")]
                if len(parts) != 3 or not all(parts):
                    raise SystemExit(f"{doc}:{line}: skip needs PREFIX | REASON | CHECKED")
                self.skips.append(parts)
            elif key == "file":
                self.files.append(val)
            elif key == "run":
                pass
            elif key:
                raise SystemExit(f"{doc}:{line}: unknown doc-check directive '{key}'")
        self.commands = self.parse_commands()

    def parse_commands(self):
        """[(command, expected output lines or None)]"""
        cmds = []
        if self.lang in ("sh", "bash", "shell"):
            cont = ""
            for l in self.lines:
                if not cont and (not l.strip() or l.lstrip().startswith("#")):
                    continue
                cont += l[:-1] + "\n" if l.endswith("\\") else l
                if not l.endswith("\\"):
                    cmds.append((cont, None))
                    cont = ""
            return cmds
        if self.lang not in ("", "console") or not any(l.startswith("$ ") for l in self.lines):
            return cmds
        cur, out, cont = None, [], False
        for l in self.lines:
            if cont:
                cur += "\n" + l
                cont = l.endswith("\\")
            elif l.startswith("$ "):
                if cur is not None:
                    cmds.append((cur, out))
                cur, out, cont = l[2:], [], l.endswith("\\")
            elif cur is not None:
                out.append(l)
        if cur is not None:
            cmds.append((cur, out))
        return cmds


def read_blocks(path, rel):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, directives, i = [], [], 0
    while i < len(lines):
        l = lines[i]
        if l.startswith("<!-- doc-check:"):
            text = l[len("<!-- doc-check:"):]
            while "-->" not in text and i + 1 < len(lines):
                i += 1
                text += "\n" + lines[i]
            directives = [d for d in text.split("-->")[0].split("\n") if d.strip()]
        elif l.startswith("```"):
            lang, start, body = l[3:].strip(), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            blocks.append(Block(rel, start, lang, body, directives))
            directives = []
        elif l.strip():
            directives = []
        i += 1
    return blocks


def matches(expected, got):
    """expected lines (with "..." for any run of lines) against got lines."""
    if not expected:
        return not got
    if expected[0].strip() == "...":
        return any(matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and matches(expected[1:], got[1:])


class Checker:
    def __init__(self, a):
        self.a, self.fails, self.runs, self.skipped, self.no_shared = a, 0, 0, [], []
        self.tmp = tempfile.mkdtemp(prefix="doc-commands-")
        self.env = dict(os.environ, LC_ALL="C", HOME=os.path.join(self.tmp, "home"))
        os.makedirs(self.env["HOME"])
        path = [a.tools, self.env.get("PATH", "/usr/bin:/bin")]
        if a.cflags:  # sanitizer builds: programs the docs compile link the same runtime
            wrap = os.path.join(self.tmp, "wrap")
            os.makedirs(wrap)
            with open(os.path.join(wrap, "cc"), "w") as f:
                f.write(f"#!/bin/sh\nexec /usr/bin/cc {a.cflags} \"$@\"\n")
            os.chmod(os.path.join(wrap, "cc"), 0o755)
            path.insert(0, wrap)
            self.env["CFLAGS"] = self.env["LDFLAGS"] = a.cflags
        prefix = os.path.join(self.tmp, "prefix")
        inst = subprocess.run(["cmake", "--install", a.build, "--prefix", prefix],
                              capture_output=True, text=True)
        if inst.returncode != 0:
            raise SystemExit(f"cmake --install {a.build} failed: {inst.stdout}{inst.stderr}")
        path[path.index(a.tools)] = os.path.join(prefix, "bin")
        self.env["PATH"] = ":".join(path)
        self.links = tracked_top(a.source)

    def fail(self, where, msg):
        print(f"FAIL {where}: {msg}")
        self.fails += 1

    def scratch(self, doc):
        d = os.path.join(self.tmp, re.sub(r"[^A-Za-z0-9]", "_", doc), "work")
        os.makedirs(d)
        for name in self.links:
            os.symlink(os.path.join(self.a.source, name), os.path.join(d, name))
        os.symlink(self.a.build, os.path.join(d, "build"))
        if self.a.shared and os.path.isdir(self.a.shared):
            os.symlink(self.a.shared, os.path.join(os.path.dirname(d), "shared"))
        return d

    def skip_of(self, block, cmd):
        bare = cmd[5:] if cmd.startswith("sudo ") else cmd
        for s in block.skips:
            p = s[0]
            if len(p) > 2 and p[0] == p[-1] == "/":
                if re.match(p[1:-1], bare):
                    return s
            elif cmd.startswith(p) or bare.startswith(p):
                return s
        return None

    def run_block(self, block, cwd):
        where = f"{block.doc}:{block.line}"
        if block.lang in ("sh", "bash", "shell") and not block.marked:
            return self.fail(where, "a sh block runs only with a doc-check comment (run, skip)")
        todo, used = [], set()
        for cmd, want in block.commands:
            s = self.skip_of(block, cmd)
            if s:
                used.add(s[0])
                self.skipped.append(f"{where}: {cmd.splitlines()[0]} ({s[1]}; checked by {s[2]})")
                continue
            if "../shared/" in cmd and block.doc == "README.md":
                self.fail(where, f"$ {cmd}: README names ../shared, absent in a user's clone")
                continue
            if "../shared/" in cmd and not os.path.isdir(self.a.shared or ""):
                self.no_shared.append(f"{where}: {cmd}")
                continue
            todo.append((cmd, want))
        for s in block.skips:
            if s[0] not in used:
                self.fail(where, f"skip '{s[0]}' matches no command")
            if not os.path.exists(os.path.join(self.a.source, s[2])):
                self.fail(where, f"skip '{s[0]}': {s[2]} does not exist")
        if not todo and not block.setup:
            return
        script = ["exec 2>&1"] + block.setup + [f"printf '\\n{MARK}\\n'"]
        for cmd, _ in todo:
            cmd = cmd[5:] if cmd.startswith("sudo ") else cmd
            script += [cmd, f"__rc=$?; printf '\\n{MARK} %d\\n' $__rc; (exit $__rc)"]
        try:
            p = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=self.env,
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=600)
            out = p.stdout
        except subprocess.TimeoutExpired:
            return self.fail(where, "timed out")
        parts = out.split(f"\n{MARK}")
        if len(parts) != len(todo) + 2:
            return self.fail(where, f"block ended early: {out[-2000:]}")
        for i, (cmd, want) in enumerate(todo):
            # parts[i + 1]: the marker's rest of line, then this command's output; its exit
            # status opens parts[i + 2].
            text = parts[i + 1].partition("\n")[2]
            rc = int(parts[i + 2].partition("\n")[0].strip() or 0)
            self.runs += 1
            got = text.rstrip("\n").split("\n")
            if got == [""]:
                got = []
            if want is None and rc != 0:
                self.fail(where, f"$ {cmd}: exit {rc}: {text[-1500:]}")
            elif want is not None and not matches(want, got):
                self.fail(where, f"$ {cmd}\n--- doc\n" + "\n".join(want) + "\n--- got\n" + text[:3000])

    def check_file(self, block, cwd):
        for name in block.files:
            path = os.path.join(cwd, name)
            if not os.path.exists(path):
                path = os.path.join(self.a.source, name)
            if not os.path.exists(path):
                self.fail(f"{block.doc}:{block.line}", f"file {name} not found")
            elif open(path, encoding="utf-8").read().rstrip("\n").split("\n") != block.lines:
                self.fail(f"{block.doc}:{block.line}", f"block differs from {name}")

    def check_links(self, rel):
        """Every relative link of the document's prose names a file of the tree."""
        text = re.sub(r"```.*?```", "", open(os.path.join(self.a.source, rel),
                                               encoding="utf-8").read(), flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.join(self.a.source, os.path.dirname(rel), target.split("#")[0])
            if not os.path.exists(path):
                self.fail(rel, f"link {target} leads nowhere")

    def check_doc(self, rel):
        self.check_links(rel)
        cwd = self.scratch(rel)
        for b in read_blocks(os.path.join(self.a.source, rel), rel):
            if b.files:
                self.check_file(b, cwd)
            if b.commands or b.setup:
                self.run_block(b, cwd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=os.environ.get("P2PS_SOURCE_DIR"))
    ap.add_argument("--build", default=os.environ.get("P2PS_BINARY_DIR"))
    ap.add_argument("--tools", default=os.environ.get("P2PS_TOOLS_DIR"))
    ap.add_argument("--shared", default=os.environ.get("P2PS_SHARED_DIR"))
    ap.add_argument("--cflags", default=os.environ.get("P2PS_DOC_CFLAGS", ""))
    ap.add_argument("docs", nargs="*", help="source-relative documents (default: all)")
    a = ap.parse_args()
    if not (a.source and a.build):
        ap.error("--source and --build (or P2PS_SOURCE_DIR, P2PS_BINARY_DIR) are needed")
    a.source, a.build = os.path.abspath(a.source), os.path.abspath(a.build)
    a.tools = os.path.abspath(a.tools or os.path.join(a.build, "tools"))
    a.shared = os.path.abspath(a.shared or os.path.join(a.source, "..", "shared"))
    docs = a.docs or ["README.md", "CONTRIBUTING.md"] + sorted(
        "docs/" + n for n in os.listdir(os.path.join(a.source, "docs")) if n.endswith(".md"))
    c = Checker(a)
    try:
        for d in docs:
            c.check_doc(d)
    finally:
        shutil.rmtree(c.tmp, ignore_errors=True)
    for s in c.skipped:
        print(f"not run: {s}")
    # The lines tests/support/p2ps_test.sh prints, so that scripts/test.sh's summary
    # names the missing folder for this test too.
    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    for s in c.no_shared:
        if ci:
            print(f"FAIL: {a.shared} missing (shared test data, see CONTRIBUTING.md; "
                  f"CI=true: it must be present) for {s}")
        else:
            print(f"SKIPPED: {a.shared} missing (shared test data, see CONTRIBUTING.md) "
                  f"for {s}")
    print(f"doc_commands: {c.runs} commands run in {len(docs)} documents, {len(c.skipped)} "
          f"not run (checked elsewhere), {len(c.no_shared)} without ../shared, "
          f"{c.fails} failure(s)")
    if c.fails:
        return 1
    if c.no_shared:
        return 1 if ci else 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
