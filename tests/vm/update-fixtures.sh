#!/usr/bin/env bash
# Refreshes tests/fixtures/qemu-switch/ from the last guest runs of
# scripts/test.d/50-vm-guest.sh (build-vm/out/acs-on and acs-off, both booted
# with --capture): the guest's sysfs snapshot per boot, `lspci -xxxx` and
# `lspci -vvv` as run inside the guest, and what bar-inspect printed there.
#
#   scripts/test.sh with P2PS_ONLY_STEPS=50-vm-guest, then tests/vm/update-fixtures.sh
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=$top/tests/fixtures/qemu-switch
for boot in acs-on acs-off; do
	out=$top/build-vm/out/$boot
	[ -f "$out/blocks/lspci-xxxx" ] && [ -d "$out/snapshot/sys" ] ||
		{ echo "update-fixtures: no captured '$boot' run in $out" >&2; exit 2; }
	python3 "$top/tests/vm/check-guest.py" check --out "$out" --boot "$boot" >/dev/null ||
		{ echo "update-fixtures: the '$boot' run fails its checks; not copying it" >&2; exit 1; }
done
rm -rf "$dest/acs-on" "$dest/acs-off"
mkdir -p "$dest"
for boot in acs-on acs-off; do
	out=$top/build-vm/out/$boot
	cp -a "$out/snapshot" "$dest/$boot"
	cp "$out/blocks/lspci-xxxx" "$dest/lspci-xxxx-$boot.txt"
	cp "$out/blocks/lspci-vvv" "$dest/lspci-vvv-$boot.txt"
	for b in "$out"/blocks/bi-*; do
		[ -e "$b" ] || continue
		case $b in *.stderr) continue ;; esac
		mkdir -p "$dest/bar-inspect-$boot"
		cp "$b" "$dest/bar-inspect-$boot/${b##*/}"
	done
done
echo "update-fixtures: $dest refreshed (kernel $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"])' "$top/build-vm/out/acs-on/boot.json"))"
