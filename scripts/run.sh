#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start: installs what the build needs (Debian/Ubuntu, as root), builds what
# `cmake --install` installs (the target p2ps_product: the four tools in build/tools/,
# bar-inspect, pte-decode, pte-probe, and p2p-bench where CMake finds a CUDA compiler, and
# libgmmu, the bash completion; not the tests) and runs bar-inspect on this host. Where
# this host has no NVIDIA GPU it runs on a bundled real snapshot instead (a 2 x H200
# capture) and says so. Extra arguments go to bar-inspect, e.g. scripts/run.sh --json,
# scripts/run.sh --dot | dot -Tsvg > topo.svg. Afterwards `sudo cmake --install build`
# installs it all (ctest release_run_install runs both).
#
# Environment: JOBS (parallel build jobs, default 2), BUILD_DIR (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
jobs=${JOBS:-2}

# The packages the build of bar-inspect needs, with the test suite configured beside it
# (cmocka, python3 and lspci are checked then); the full list for running the suite is
# scripts/deps.txt + scripts/deps.d/*.txt, installed by scripts/test.sh.
need=(build-essential cmake pkg-config libpci-dev pciutils pci.ids libjson-c-dev zlib1g-dev libcmocka-dev python3)
missing=()
if command -v dpkg-query >/dev/null; then
	for p in "${need[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
fi
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "run.sh: missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
		exit 1
	fi
	echo "run.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Always (re)configure: a build folder made by an older checkout may lack the target.
# The logs stay inside the build folder, out of the source tree.
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/run-configure.log" 2>&1 ||
	{ cat "$build/run-configure.log" >&2; exit 1; }
# p2p-bench is a target only where CMake found nvcc (see the configure log).
# (the list is read whole first: grep -q leaving early would fail the pipe under pipefail)
target_list=$(cmake --build "$build" --target help 2>/dev/null || true)
if ! grep -qw p2p-bench <<<"$target_list"; then
	echo "run.sh: no CUDA compiler found: p2p-bench is not built (the other three are)" >&2
fi
cmake --build "$build" -j "$jobs" --target p2ps_product >"$build/run-build.log" 2>&1 ||
	{ tail -40 "$build/run-build.log" >&2; exit 1; }
bi=$build/tools/bar-inspect

has_nvidia_gpu() {
	local d
	for d in /sys/bus/pci/devices/*; do
		[ -r "$d/vendor" ] && [ -r "$d/class" ] || continue
		[ "$(cat "$d/vendor")" = 0x10de ] && [[ $(cat "$d/class") == 0x03* ]] && return 0
	done
	return 1
}

if has_nvidia_gpu; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "run.sh: not root: ACS, Resizable BAR and link registers past 64 bytes of config" \
			"space will show as unknown; run 'sudo $bi' for the full report" >&2
	fi
	exec "$bi" "$@"
fi

snap=
for s in tests/fixtures/h200x2 tests/fixtures/h200x2-raw-snap; do
	[ -d "$s/sys" ] && { snap=$s; break; }
done
if [ -z "$snap" ]; then
	echo "run.sh: this host has no NVIDIA GPU and no bundled snapshot was found; running on it anyway" >&2
	exec "$bi" "$@"
fi
echo "run.sh: this host has no NVIDIA GPU; showing the bundled snapshot $snap (a real 2 x H200 machine)" \
	"— on a GPU host this runs on the host itself" >&2
exec "$bi" --root "$snap" "$@"
