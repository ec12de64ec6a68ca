#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The OCI image (scripts/oci-image.sh, docs/kubernetes.md), built and run as a node would:
# 1. scripts/release.sh --arch x86_64 --image: the image from the static bar-inspect
#    (build-release/, reused from 72-release when it ran); built a second time, it must be
#    the same file (reproducible);
# 2. podman, as root, runs it with the DaemonSet's limits (read-only root filesystem, no
#    network, every capability dropped):
#    - `--version`: the static x86_64 binary;
#    - `--root /snap --nfd` with a committed snapshot mounted read-only at /snap: the
#      labels, byte for byte those of the dynamic build ($BUILD_DIR) on the same snapshot,
#      and p2p-ready / nvlink as the snapshot calls for;
#    - the DaemonSet's loop (p2pscope-node, once) on the snapshot with NFD's features.d and
#      the textfile folder mounted: the label file (with its expiry-time) and the metrics
#      file appear, equal to the direct outputs; promtool accepts the metrics;
#    - live, with this machine's /sys mounted read-only and CAP_SYS_ADMIN as in the
#      DaemonSet: the labels equal bar-inspect's own run on this machine;
# 3. the arm64 image from 72-release's aarch64 build: unpacked from its archive, its
#    bar-inspect runs under qemu-user (qemu-aarch64-static) in a chroot of the image, so
#    with the image's own loader and C library, on the same snapshot: the same labels.
# podman runs rootful with a configuration of its own under build-oci/ (CONTAINERS_CONF,
# CONTAINERS_STORAGE_CONF): the vfs storage driver (no overlay or fuse needed), cgroupfs
# (no systemd), runc (crun refuses a hybrid cgroup hierarchy), the events in a file, and
# resource limits no higher than this machine's (podman's defaults need CAP_SYS_RESOURCE).
#
# Needs root, the Debian mirror (apt-get download of libc6 and busybox-static) and
# scripts/deps.d/release.txt; without them the step is SKIPPED (exit 77), and fails under
# CI=true. Environment: BUILD_DIR, JOBS.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
step=74-oci-image
top=$(pwd)
build=${BUILD_DIR:-$top/build}
work=$top/build-oci
jobs=${JOBS:-2}
# shellcheck source=scripts/lib/step.sh
. scripts/lib/step.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (rootful podman)"
for cmd in umoci podman runc dpkg-source; do
	command -v "$cmd" >/dev/null || skip "$cmd is missing (scripts/deps.d/release.txt)"
done
version=$(sed -n 's/^project(p2pscope VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
image=$top/build-release/dist/p2pscope-$version-oci-x86_64.tar

# 1. The image, twice.
JOBS=$jobs scripts/release.sh --arch x86_64 --image >"$work.release.log" 2>&1 ||
	{ tail -n 30 "$work.release.log"; fail "scripts/release.sh --arch x86_64 --image"; }
epoch=$(git log -1 --format=%ct 2>/dev/null || stat -c %Y CMakeLists.txt)
rm -rf "$work"
mkdir -p "$work"
SOURCE_DATE_EPOCH=$epoch scripts/oci-image.sh --arch x86_64 \
	--bar-inspect build-release/stage/x86_64/bin/bar-inspect \
	--licenses "build-release/pkg/p2pscope-$version-linux-x86_64/LICENSES" \
	--work "$work/again" --out "$work/again.tar" >/dev/null || bad "oci-image.sh, the second time"
cmp -s "$image" "$work/again.tar" || bad "the image differs when built again from the same inputs"
echo "$step: $(basename "$image"): $(du -k "$image" | cut -f1) KiB, reproducible"
phase "image"

# 2. podman.
cat >"$work/storage.conf" <<EOF
[storage]
driver = "vfs"
runroot = "$work/run"
graphroot = "$work/storage"
EOF
cat >"$work/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=1024:$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
EOF
export CONTAINERS_CONF=$work/containers.conf CONTAINERS_STORAGE_CONF=$work/storage.conf
id=$(podman load -q -i "$image" 2>"$work/load.log" | sed -n 's/^Loaded image[^:]*: //p')
[ -n "$id" ] || { cat "$work/load.log"; fail "podman load"; }
run() { # PODMAN-RUN-ARGS... -- IMAGE-ARGS...
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	podman run --rm --network none --read-only --cap-drop all "${opts[@]}" "$id" "$@"
}
cmake --build "$build" -j "$jobs" --target bar-inspect >"$work/build.log" 2>&1 ||
	{ tail -n 20 "$work/build.log"; fail "building bar-inspect in $build"; }
bi=$build/tools/bar-inspect

v=$(run -- --version 2>"$work/err") || { cat "$work/err"; bad "podman run IMAGE --version"; }
case $(sed -n 2p <<<"$v") in
"build: commit "*", x86_64, Release, static ("*) echo "$step: --version: $(sed -n 2p <<<"$v")" ;;
*) bad "the image's bar-inspect --version: $v" ;;
esac

snap=$top/tests/fixtures/h200x2
got=$(run -v "$snap:/snap:ro" -- --root /snap --nfd 2>"$work/err") ||
	{ cat "$work/err"; bad "podman run IMAGE --root /snap --nfd"; }
want=$("$bi" --root "$snap" --nfd)
snap_labels=$want
[ "$got" = "$want" ] || { bad "the image's labels differ from the dynamic build's:"; diff <(echo "$want") <(echo "$got"); }
for l in p2pscope.io/gpus=2 p2pscope.io/gpu-pairs=1 p2pscope.io/p2p-ready=true p2pscope.io/nvlink=true; do
	grep -qx "$l" <<<"$got" || bad "the image's labels for tests/fixtures/h200x2 lack $l"
done
echo "$step: --root /snap --nfd: $(grep -c '^p2pscope.io/' <<<"$got") labels as the dynamic build's"

mkdir -p "$work/features.d" "$work/textfile"
run -v "$snap:/snap:ro" -v "$work/features.d:/etc/kubernetes/node-feature-discovery/features.d" \
	-v "$work/textfile:/var/lib/prometheus/node-exporter" -e P2PS_INTERVAL=0 \
	-e "P2PS_ARGS=--root /snap" --entrypoint /usr/bin/p2pscope-node -- >"$work/node.log" 2>&1 ||
	{ cat "$work/node.log"; bad "p2pscope-node in the image"; }
if [ -s "$work/features.d/p2pscope" ]; then
	grep -q '^# +expiry-time=20[0-9-]*T[0-9:]*Z$' "$work/features.d/p2pscope" ||
		bad "the node's label file has no expiry-time"
	[ "$(grep -v '^#' "$work/features.d/p2pscope")" = "$(grep -v '^#' <<<"$want")" ] ||
		bad "the node's label file differs from bar-inspect --nfd"
else
	bad "p2pscope-node wrote no features.d/p2pscope"
fi
[ -z "$(find "$work/features.d" "$work/textfile" -mindepth 1 -name '.*')" ] ||
	bad "p2pscope-node left a temporary file"
if [ -s "$work/textfile/p2pscope.prom" ]; then
	cmp -s "$work/textfile/p2pscope.prom" <("$bi" --root "$snap" --prometheus) ||
		bad "the node's metrics differ from bar-inspect --prometheus"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$work/textfile/p2pscope.prom" || bad "promtool check metrics"
	fi
else
	bad "p2pscope-node wrote no p2pscope.prom"
fi
echo "$step: p2pscope-node: features.d/p2pscope and p2pscope.prom written"

got=$(run -v /sys:/sys:ro --cap-add SYS_ADMIN -- --nfd --nvidia-facts none 2>"$work/err") ||
	{ cat "$work/err"; bad "podman run IMAGE --nfd (live)"; }
want=$("$bi" --nfd --nvidia-facts none)
[ "$got" = "$want" ] || { bad "the image's live labels differ from this machine's:"; diff <(echo "$want") <(echo "$got"); }
echo "$step: live --nfd in the container: as on this machine ($(grep -c '^p2pscope' <<<"$got") labels)"
phase "podman runs"
podman rmi -f "$id" >/dev/null 2>&1
rm -rf "$work/storage" "$work/run"

# 3. The arm64 image, where 72-release built the aarch64 binaries: its own files, unpacked
#    from the archive, run its bar-inspect under qemu-user inside a chroot (the image's
#    loader and C library, nothing of this machine's) on the same snapshot.
a64=$top/build-release/stage/aarch64/bin/bar-inspect
if [ ! -x "$a64" ]; then
	echo "$step: arm64 image: not checked, no aarch64 build (72-release makes it)"
	in_ci && bad "no aarch64 build in build-release/ (72-release runs before this step in CI)"
elif ! command -v qemu-aarch64-static >/dev/null; then
	skip "qemu-aarch64-static is missing (qemu-user-static, scripts/deps.d/release.txt)"
else
	arm=$work/arm64
	SOURCE_DATE_EPOCH=$epoch scripts/oci-image.sh --arch aarch64 --bar-inspect "$a64" \
		--licenses "build-release/pkg/p2pscope-$version-linux-aarch64/LICENSES" \
		--work "$arm/build" --out "$arm/image.tar" >/dev/null || bad "oci-image.sh --arch aarch64"
	mkdir -p "$arm/layout"
	tar -C "$arm/layout" -xf "$arm/image.tar"
	umoci unpack --image "$arm/layout:p2pscope" "$arm/bundle" >/dev/null || bad "umoci unpack (arm64)"
	arch=$(python3 - "$arm/layout" <<'PY'
import json, sys
blob = lambda d: json.load(open(f"{sys.argv[1]}/blobs/sha256/{d.split(':')[1]}"))
index = json.load(open(f"{sys.argv[1]}/index.json"))
print(blob(blob(index["manifests"][0]["digest"])["config"]["digest"])["architecture"])
PY
)
	[ "$arch" = arm64 ] || bad "the arm64 image's config names architecture '$arch'"
	root=$arm/bundle/rootfs
	cp /usr/bin/qemu-aarch64-static "$root/qemu"
	mkdir -p "$root/snap"
	cp -a "$snap/." "$root/snap/"
	got=$(chroot "$root" /qemu /usr/bin/bar-inspect --root /snap --nfd 2>"$work/err") ||
		{ cat "$work/err"; bad "the arm64 image's bar-inspect in a chroot"; }
	[ "$got" = "$snap_labels" ] || { bad "the arm64 image's labels differ:"; diff <(echo "$snap_labels") <(echo "$got"); }
	echo "$step: arm64 image: $(du -k "$arm/image.tar" | cut -f1) KiB; its bar-inspect, with its own C library under qemu-user, labels the snapshot as x86_64 does"
	phase "arm64 image"
fi
step_end
