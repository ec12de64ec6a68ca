#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bar-inspect of a base commit against this tree on the same GPU host, in one call: both
# are built (Release, bar-inspect and the bench helpers only) and
# bench/bar-inspect-vs-lspci.sh runs for each, with lspci -vvv and nvidia-smi topo -m as
# the yardsticks each time, twice over (base, this, base, this). Run from the repository root:
#
#   bash scripts/device/bench-base.sh BASE.tar.gz      (git archive --format=tar.gz REV)
#
# Build dependencies missing on the machine come from ${DEBS:-.cmp/debs}/*.deb, as in
# scripts/device/rm.sh. Results in $OUT (default /tmp/p2ps-out): bench-base.log.
set -uo pipefail
base=${1:?usage: bench-base.sh BASE.tar.gz}
out=${OUT:-/tmp/p2ps-out}
mkdir -p "$out"
exec > >(tee -a "$out/bench-base.log") 2>&1
. scripts/device-deps.sh
p2ps_unpack_debs "${DEBS:-.cmp/debs}" json-c libpci
p2ps_lspci_from_debs "${DEBS:-.cmp/debs}"
ids=$P2PS_PCI_IDS
nvidia-smi -L
rm -rf /tmp/p2ps-base && mkdir -p /tmp/p2ps-base/src && tar -xzf "$base" -C /tmp/p2ps-base/src
for t in base:/tmp/p2ps-base/src this:.; do
	name=${t%%:*} src=${t#*:}
	cmake -S "$src" -B "/tmp/p2ps-build-$name" -DCMAKE_BUILD_TYPE=Release -DP2PS_TESTS=OFF \
		>"/tmp/p2ps-build-$name.log" 2>&1 &&
		cmake --build "/tmp/p2ps-build-$name" -j "$(nproc)" --target bar-inspect spawn-time nvml-init \
			>>"/tmp/p2ps-build-$name.log" 2>&1 || { tail -30 "/tmp/p2ps-build-$name.log"; exit 1; }
done
for name in base this base this; do
	echo "=== $name ($(date -u +%H:%M:%S))"
	BUILD_DIR=/tmp/p2ps-build-$name bash bench/bar-inspect-vs-lspci.sh --runs 21 \
		${ids:+--ids "$ids"} tests/fixtures/h200x2 2>&1
done
