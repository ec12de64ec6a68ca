#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""contrib/kubernetes/p2pscope-daemonset.yaml holds to what its header and
docs/kubernetes.md promise:

- a Namespace and a DaemonSet (apps/v1) whose selector matches its pod template;
- the container runs /usr/bin/p2pscope-node, the path scripts/oci-image.sh installs it at;
- least privilege: not privileged, no privilege escalation, a read-only root filesystem,
  every capability dropped and SYS_ADMIN alone added, the RuntimeDefault seccomp profile,
  no service account token, no host network, PID or IPC namespace;
- the host's /sys mounted read-only at /sys, and no other host path but the two folders
  the node script writes, each mounted where the script's environment says, at the paths
  node-feature-discovery (features.d) and Debian's node_exporter read;
- every environment variable set is one contrib/kubernetes/p2pscope-node.sh reads (or the
  NVIDIA Container Toolkit's two).

    test_k8s_manifest.py SOURCE_DIR"""
import os
import re
import sys

try:
    import yaml
except ImportError:
    print("SKIPPED: python3-yaml is not installed (scripts/deps.d/ops.txt)")
    sys.exit(1 if os.environ.get("CI", "").lower() in ("true", "1", "yes") else 77)

src = sys.argv[1]
manifest = os.path.join(src, "contrib", "kubernetes", "p2pscope-daemonset.yaml")
node_sh = os.path.join(src, "contrib", "kubernetes", "p2pscope-node.sh")
image_sh = os.path.join(src, "scripts", "oci-image.sh")
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL", msg)


docs = list(yaml.safe_load_all(open(manifest)))
kinds = [d["kind"] for d in docs]
check(kinds == ["Namespace", "DaemonSet"], f"documents {kinds}, want Namespace, DaemonSet")
ds = next(d for d in docs if d["kind"] == "DaemonSet")
check(ds["apiVersion"] == "apps/v1", f"apiVersion {ds['apiVersion']}")
check(ds["metadata"]["namespace"] == docs[0]["metadata"]["name"], "namespace mismatch")
tmpl = ds["spec"]["template"]
sel = ds["spec"]["selector"]["matchLabels"]
check(all(tmpl["metadata"]["labels"].get(k) == v for k, v in sel.items()),
      "the selector does not match the pod template's labels")
pod = tmpl["spec"]
for key in ("hostNetwork", "hostPID", "hostIPC"):
    check(not pod.get(key), f"{key} is set")
check(pod.get("automountServiceAccountToken") is False, "the service account token is mounted")
(c,) = pod["containers"]

# The command is the node script at the path the image puts it.
image_text = open(image_sh).read()
check(c["command"] == ["/usr/bin/p2pscope-node"], f"command {c['command']}")
check('"$r/usr/bin/p2pscope-node"' in image_text, "oci-image.sh installs no /usr/bin/p2pscope-node")

sc = c["securityContext"]
check(sc.get("privileged") is False, "privileged")
check(sc.get("allowPrivilegeEscalation") is False, "privilege escalation allowed")
check(sc.get("readOnlyRootFilesystem") is True, "the root filesystem is writable")
check(sc["capabilities"].get("drop") == ["ALL"], "capabilities not all dropped")
check(sc["capabilities"].get("add") == ["SYS_ADMIN"], f"capabilities added: {sc['capabilities'].get('add')}")
check(sc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "no RuntimeDefault seccomp")

# Environment: only what the node script reads, and the toolkit's two.
script = open(node_sh).read()
reads = set(re.findall(r"\$\{(P2PS_[A-Z_]+)", script))
env = {e["name"]: e["value"] for e in c.get("env", [])}
for name in env:
    check(name in reads or name.startswith("NVIDIA_"),
          f"{name} is set, but p2pscope-node.sh does not read it")

# Mounts: /sys read-only, and the two folders where the script writes.
volumes = {v["name"]: v for v in pod["volumes"]}
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
check(set(mounts) == {"/sys", env.get("P2PS_FEATURES_DIR"), env.get("P2PS_TEXTFILE_DIR")},
      f"mounts {sorted(mounts)}: /sys and the script's two folders, nothing else")
sys_m = mounts.get("/sys", {})
check(sys_m.get("readOnly") is True, "/sys is not read-only")
check(volumes.get(sys_m.get("name"), {}).get("hostPath", {}).get("path") == "/sys",
      "/sys is not the host's")
for path in (env.get("P2PS_FEATURES_DIR"), env.get("P2PS_TEXTFILE_DIR")):
    m = mounts.get(path, {})
    hp = volumes.get(m.get("name"), {}).get("hostPath", {})
    check(hp.get("path") == path, f"{path} is not the host's {path}")
    check(f"-{path}}}" in script, f"{path} is not p2pscope-node.sh's default")
check(env.get("P2PS_FEATURES_DIR") == "/etc/kubernetes/node-feature-discovery/features.d",
      "features.d is not node-feature-discovery's folder")
for path, v in volumes.items():
    if "hostPath" in v:
        check(v["hostPath"]["path"] in mounts, f"host path {v['hostPath']['path']} is not mounted")

print(f"test_k8s_manifest: {len(failures)} failures")
sys.exit(1 if failures else 0)
