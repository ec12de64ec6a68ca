#!/usr/bin/env python3
"""Applies an .edits file (see gx100.edits) to a copy of the sources.

usage: apply_edits.py EDITS TREE -- prints the files it changed, one a line. Each anchor
must occur exactly once in its file: an edit whose place has moved fails loudly instead of
landing somewhere else."""
import sys


def hunks(path):
    """[(file, "after"|"before", anchor, text)]"""
    out, cur = [], None
    for raw in open(path, encoding="utf-8").read().split("\n"):
        if cur is None and (raw.startswith("#") or not raw.strip()):
            continue
        if raw.startswith("=== "):
            cur = {"file": raw[4:].strip(), "where": None, "anchor": [], "text": [], "in": ""}
            out.append(cur)
        elif raw.startswith("--- "):
            cur["where"], cur["in"] = raw[4:].strip(), "anchor"
        elif raw == "+++":
            cur["in"] = "text"
        elif cur is not None and cur["in"]:
            cur[cur["in"]].append(raw)
    return [(h["file"], h["where"], "\n".join(h["anchor"]), "\n".join(h["text"]).rstrip("\n"))
            for h in out]


def main():
    edits, tree = sys.argv[1], sys.argv[2]
    changed = []
    for name, where, anchor, text in hunks(edits):
        path = f"{tree}/{name}"
        src = open(path, encoding="utf-8").read()
        if where not in ("after", "before") or src.count(anchor) != 1:
            sys.exit(f"apply_edits: {name}: anchor {anchor!r} found {src.count(anchor)} times")
        i = src.index(anchor)
        if where == "after":
            i += len(anchor)
            src = src[:i] + text + src[i:]
        else:
            src = src[:i] + text + "\n" + src[i:]
        open(path, "w", encoding="utf-8").write(src)
        if name not in changed:
            changed.append(name)
    print("\n".join(changed))


if __name__ == "__main__":
    main()
