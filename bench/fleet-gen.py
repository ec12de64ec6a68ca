#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates a fleet of bar-inspect reports for bench/fleet-bench.sh.

Usage: fleet-gen.py BASE_DIR OUT_DIR COUNT [SEED]

BASE_DIR holds real bar-inspect --json reports of the planted snapshots
(tests/fleet/make-fleet-snapshots.py: one per variant, named VARIANT.json). OUT_DIR gets
COUNT reports, node00001.json ..., each the text of one variant with its own host name,
boot id and time, so the summary sees COUNT distinct hosts with a realistic mix of
faults. One in a thousand is cut short (truncated) and one in a thousand repeats
another host's report (duplicate): the summary must name both kinds and count them.
Prints the expected counts as JSON.
"""
import json
import os
import random
import re
import sys
import uuid

# variant file name -> share of the fleet
MIX = {
    "clean": 0.60,
    "nvlink": 0.10,
    "iommu": 0.08,
    "bar1": 0.04,
    "link": 0.06,
    "acs": 0.04,
    "h100": 0.08,
}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    base, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 15)
    texts = {}
    for v in MIX:
        with open(os.path.join(base, v + ".json")) as f:
            texts[v] = f.read()
    variants, weights = list(MIX), list(MIX.values())
    os.makedirs(out, exist_ok=True)
    expect = {"documents": count, "truncated": 0, "duplicate": 0}
    previous = None
    for i in range(1, count + 1):
        name = f"node{i:05d}"
        v = rng.choices(variants, weights)[0]
        boot = uuid.UUID(int=rng.getrandbits(128), version=4)
        when = f"2026-11-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"
        text = texts[v]
        text = re.sub(r'"hostname": "[^"]*"', f'"hostname": "{name}"', text, count=1)
        text = re.sub(r'"boot_id": (null|"[^"]*")', f'"boot_id": "{boot}"', text, count=1)
        text = re.sub(r'"time": (null|"[^"]*")', f'"time": "{when}"', text, count=1)
        if i % 1000 == 500:
            text = text[: len(text) // 2]
            expect["truncated"] += 1
        elif i % 1000 == 999 and previous:
            text = previous
            expect["duplicate"] += 1
        else:
            previous = text
        with open(os.path.join(out, name + ".json"), "w") as f:
            f.write(text)
    expect["hosts"] = count - expect["truncated"] - expect["duplicate"]
    print(json.dumps(expect))


if __name__ == "__main__":
    main()
