# SPDX-License-Identifier: MIT
"""Splitting a guest run's serial log (data.log) into its blocks: the guest prints
@@P2PS-BEGIN NAME / @@P2PS-END NAME rc=N around each command's output and @@P2PS-DONE
at the end; the sysfs snapshot block is a base64 tarball, unpacked beside the blocks."""
import base64
import io
import json
import os
import re
import tarfile

MARK = re.compile(r"^@@P2PS-(BEGIN|END|DONE) ?(\S*)(?: rc=(-?\d+))?")


def extract(args):
    out = args.out
    raw = b""
    path = os.path.join(out, "data.log")
    if os.path.exists(path):
        with open(path, "rb") as f:
            raw = f.read()
    text = raw.decode("utf-8", "replace").replace("\r", "")
    blocks, rcs, done = {}, {}, None
    cur, buf = None, []
    for line in text.split("\n"):
        m = MARK.match(line)
        if m and m.group(1) == "BEGIN":
            cur, buf = m.group(2), []
        elif m and m.group(1) == "END" and cur == m.group(2):
            blocks[cur] = "\n".join(buf) + ("\n" if buf else "")
            rcs[cur] = int(m.group(3))
            cur = None
        elif m and m.group(1) == "DONE":
            done = line
        elif cur is not None:
            buf.append(line)
    bdir = os.path.join(out, "blocks")
    os.makedirs(bdir, exist_ok=True)
    for name, body in blocks.items():
        with open(os.path.join(bdir, name), "w") as f:
            f.write(body)
    if "snapshot" in blocks and rcs.get("snapshot") == 0:
        data = base64.b64decode("".join(blocks["snapshot"].split()))
        snap = os.path.join(out, "snapshot")
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            # One top directory (p2pscope-snap-<host>-<date>/ or snap/): strip it.
            members = []
            for m in tar.getmembers():
                parts = m.name.split("/", 1)
                if len(parts) == 2 and parts[1]:
                    m.name = parts[1]
                    members.append(m)
            if hasattr(tarfile, "data_filter"):
                tar.extractall(snap, members=members, filter="fully_trusted")
            else:
                tar.extractall(snap, members=members)
    uptime = None
    if done:
        m = re.search(r"uptime=([\d.]+)", done)
        uptime = float(m.group(1)) if m else None
    info = {
        "wall_s": float(args.wall),
        "qemu_rc": int(args.qemu_rc),
        "guest_uptime_s": uptime,
        "finished": done is not None,
        "kernel": args.kernel,
        "mode": args.mode,
        "rp1_acs": args.rp1_acs,
        "blocks": rcs,
    }
    with open(os.path.join(out, "boot.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(
        f"extract: {len(blocks)} blocks, guest finished={done is not None}, "
        f"guest uptime {uptime} s, wall {args.wall} s"
    )
    return 0 if done is not None else 1
