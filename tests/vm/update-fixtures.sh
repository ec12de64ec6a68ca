#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Refreshes tests/fixtures/qemu-switch/ from the last guest runs of
# scripts/test.d/50-vm-guest.sh (build-vm/out/acs-on and acs-off): per boot the
# guest's snapshot as scripts/capture-host.sh took it inside the guest
# (unpacked: `bar-inspect --root tests/fixtures/qemu-switch/acs-on` replays it;
# p2pscope/lspci-xxxx.txt is the guest's `lspci -D -xxxx`), and what bar-inspect
# printed live in the guest (<boot>.live.json: --all --json through sysfs;
# <boot>.vfio.json: --all --json --vfio all), for replay-equals-live tests.
#
#   P2PS_ONLY_STEPS=50-vm-guest scripts/test.sh && tests/vm/update-fixtures.sh
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=$top/tests/fixtures/qemu-switch
for boot in acs-on acs-off; do
	out=$top/build-vm/out/$boot
	if [ ! -f "$out/snapshot/p2pscope/lspci-xxxx.txt" ] || [ ! -f "$out/blocks/bi-sysfs" ]; then
		echo "update-fixtures: no captured '$boot' run with bar-inspect in $out" >&2
		exit 2
	fi
	python3 "$top/tests/vm/check-guest.py" check --out "$out" --boot "$boot" >/dev/null ||
		{ echo "update-fixtures: the '$boot' run fails its checks; not copying it" >&2; exit 1; }
done
mkdir -p "$dest"
for boot in acs-on acs-off; do
	out=$top/build-vm/out/$boot
	rm -rf "${dest:?}/$boot"
	cp -a "$out/snapshot" "$dest/$boot"
	# The capturing shell's environment is the guest's /init, and lspci's only
	# complaint is the missing modules.alias (no kernel modules tree in the guest).
	rm -f "$dest/$boot/p2pscope/env" "$dest/$boot"/p2pscope/*.err
	cp "$out/blocks/bi-sysfs" "$dest/$boot.live.json"
	cp "$out/blocks/bi-vfio" "$dest/$boot.vfio.json"
done
echo "update-fixtures: $dest refreshed"
