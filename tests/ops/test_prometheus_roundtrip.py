#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The real path of bar-inspect's metrics: contrib/prometheus/p2pscope-textfile.sh writes
p2pscope.prom for the H200 snapshot into a textfile directory; a real node_exporter
(Debian prometheus-node-exporter, textfile collector only) serves it on a loopback port; a
real Prometheus server (Debian prometheus) scrapes it every second with the example alert
rules loaded; the test asks Prometheus's HTTP API (/api/v1/query, /api/v1/rules) for the
planted values. Everything runs in a temporary directory on 127.0.0.1, is started and
stopped here (the servers die with this process even if it is killed: PR_SET_PDEATHSIG),
and the whole test is bounded in time.

    test_prometheus_roundtrip.py BAR_INSPECT SOURCE_DIR"""
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

DEADLINE = time.monotonic() + 90  # the whole test; ctest's TIMEOUT is larger
SKIP = 77

bi, src = sys.argv[1], sys.argv[2]
ci = os.environ.get("CI", "").lower() in ("true", "1", "yes")


def missing(what):
    print(f"{'FAIL' if ci else 'SKIPPED'}: {what} missing (Debian packages prometheus, "
          "prometheus-node-exporter; scripts/deps.d/ops.txt)")
    sys.exit(1 if ci else SKIP)


def find(*names):
    for n in names:
        p = shutil.which(n) or (n if os.path.isabs(n) and os.access(n, os.X_OK) else None)
        if p:
            return p
    return None


node_exporter = find("prometheus-node-exporter", "node_exporter")
prometheus = find("prometheus")
if not node_exporter:
    missing("node_exporter")
if not prometheus:
    missing("prometheus")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    # prctl(PR_SET_PDEATHSIG, SIGKILL): the server goes when the test goes.
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    os.setpgid(0, 0)


procs = []


def start(argv, log):
    f = open(log, "w")
    p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
    procs.append((p, f))
    return p


def stop_all():
    for p, _ in procs:
        if p.poll() is None:
            p.terminate()
    for p, f in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        f.close()


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def wait_for(what, fn, logs):
    while time.monotonic() < DEADLINE:
        for p, _ in procs:
            if p.poll() is not None:
                raise RuntimeError(f"{p.args[0]} exited with {p.returncode} while waiting for "
                                   f"{what}")
        try:
            v = fn()
            if v:
                return v
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"timed out waiting for {what}")


def planted(path):
    """The samples of the textfile: {(name, frozenset(labels)): value}."""
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            series, value = line.rsplit(" ", 1)
            name, _, labels = series.partition("{")
            pairs = frozenset(tuple(kv.split("=", 1)) for kv in labels.rstrip("}").split(",")
                              if kv) if labels else frozenset()
            out[(name, frozenset((k, v.strip('"')) for k, v in pairs))] = float(value)
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="p2ps-prom-")
    textdir = os.path.join(tmp, "textfile")
    os.mkdir(textdir)
    snap = os.path.join(src, "tests", "fixtures", "h200x2")
    env = dict(os.environ, BAR_INSPECT=bi)
    script = os.path.join(src, "contrib", "prometheus", "p2pscope-textfile.sh")
    subprocess.run(["sh", script, textdir, "--root", snap], env=env, check=True, timeout=30)
    prom_file = os.path.join(textdir, "p2pscope.prom")
    left = [n for n in os.listdir(textdir) if n != "p2pscope.prom"]
    if left:
        raise RuntimeError(f"temporary files left in the textfile directory: {left}")
    want = planted(prom_file)

    ne_port, prom_port = free_port(), free_port()
    start([node_exporter, f"--web.listen-address=127.0.0.1:{ne_port}",
           "--collector.disable-defaults", "--collector.textfile",
           f"--collector.textfile.directory={textdir}"], os.path.join(tmp, "node_exporter.log"))
    cfg = os.path.join(tmp, "prometheus.yml")
    rules = os.path.join(src, "contrib", "prometheus", "p2pscope-alerts.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                f"rule_files:\n  - {rules}\n"
                "scrape_configs:\n  - job_name: node\n    static_configs:\n"
                f"      - targets: ['127.0.0.1:{ne_port}']\n")
    start([prometheus, f"--config.file={cfg}", f"--storage.tsdb.path={tmp}/data",
           f"--web.listen-address=127.0.0.1:{prom_port}"], os.path.join(tmp, "prometheus.log"))
    api = f"http://127.0.0.1:{prom_port}/api/v1"

    def query(q):
        r = get_json(f"{api}/query?" + urllib.parse.urlencode({"query": q}))
        return r["data"]["result"] if r.get("status") == "success" else []

    logs = [os.path.join(tmp, n) for n in ("node_exporter.log", "prometheus.log")]
    wait_for("the node_exporter metrics page",
             lambda: b"p2pscope_gpus" in urllib.request.urlopen(
                 f"http://127.0.0.1:{ne_port}/metrics", timeout=5).read(), logs)
    fails = []
    checks = 0
    for name in ("p2pscope_gpu_bar1_bytes", "p2pscope_gpu_vram_bytes",
                 "p2pscope_gpu_pcie_current_link_width", "p2pscope_pair_ready",
                 "p2pscope_pair_nvlinks", "p2pscope_gpus"):
        expect = {k: v for k, v in want.items() if k[0] == name}
        got = wait_for(f"{name} in Prometheus",
                       lambda: (lambda r: r if len(r) == len(expect) else None)(query(name)),
                       logs)
        for s in got:
            labels = frozenset((k, v) for k, v in s["metric"].items()
                               if k not in ("instance", "job", "__name__"))
            v = float(s["value"][1])
            if expect.get((name, labels)) != v:
                fails.append(f"{name}{dict(labels)} = {v}, planted "
                             f"{expect.get((name, labels))}")
            checks += 1
    # Golden values from the snapshot's own nvidia-smi -q (tests/fixtures/h200x2):
    # "BAR1 Memory Usage / Total: 262144 MiB" per GPU, NVLink NV18 between the two.
    bar1 = query('p2pscope_gpu_bar1_bytes{gpu="0000:00:06.0"}')
    if not bar1 or float(bar1[0]["value"][1]) != 262144 * 2**20:
        fails.append(f"BAR1 of 0000:00:06.0 through Prometheus: {bar1}")
    nv = query("p2pscope_pair_nvlinks")
    if not nv or float(nv[0]["value"][1]) != 18:
        fails.append(f"NVLinks of the pair through Prometheus: {nv}")
    rules_loaded = get_json(f"{api}/rules")["data"]["groups"]
    names = {r["name"]: r.get("health") for g in rules_loaded for r in g["rules"]}
    for alert in ("P2PScopePairNoLongerReady", "P2PScopeLinkDowntrained"):
        if names.get(alert) not in ("ok", "unknown"):
            fails.append(f"alert rule {alert}: {names.get(alert)!r}")
    for f in fails:
        print("FAIL", f)
    if fails:
        for log in logs:
            print(f"--- {log}")
            with open(log) as fh:
                print(fh.read()[-2000:])
        return 1
    print(f"ok: {checks} planted samples read back through node_exporter and Prometheus; "
          f"{len(names)} alert rules loaded")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


try:
    status = main()
except Exception as e:  # noqa: BLE001 - reported, then the servers are stopped
    print(f"FAIL: {e}")
    status = 1
finally:
    stop_all()
sys.exit(status)
