#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Converts the first raw GPU-host capture (../shared/fixtures/h200x2-raw, taken before
# scripts/capture-host.sh existed) into the snapshot format bar-inspect --root reads
# (docs/host-model.md): the same files under the same sysfs/proc paths.
#
# Usage: tests/host/convert-raw-capture.sh RAW_DIR OUT_DIR
# The raw capture stores per device: attribute files, REALPATH (the sysfs path) and
# driver (a file holding the driver's name); cmdline; class_iommu (a listing of
# /sys/class/iommu); iommu_groups/ (empty here: the guest has no IOMMU; its "*"
# entry is an unexpanded shell glob, skipped); probe.log with nvidia-smi topo -m.
set -euo pipefail
raw=${1:?raw capture dir}
out=${2:?output dir}
[ -d "$raw/snap/devices" ] || { echo "convert-raw-capture: $raw/snap/devices missing" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out/sys/bus/pci/devices" "$out/sys/class/iommu" "$out/sys/kernel/iommu_groups" \
	"$out/proc" "$out/p2pscope"

attrs="config resource vendor device class revision subsystem_vendor subsystem_device irq
numa_node local_cpulist current_link_speed current_link_width max_link_speed max_link_width
boot_vga enable"
for d in "$raw"/snap/devices/*; do
	bdf=$(basename "$d")
	real=$(cat "$d/REALPATH")
	case "$real" in /sys/devices/*) ;; *) echo "convert-raw-capture: $bdf: bad REALPATH" >&2; exit 2 ;; esac
	mkdir -p "$out$real"
	for a in $attrs; do
		[ -f "$d/$a" ] && cp "$d/$a" "$out$real/$a"
	done
	if [ -f "$d/driver" ] && [ -s "$d/driver" ]; then
		ln -s "../../../bus/pci/drivers/$(cat "$d/driver")" "$out$real/driver"
	fi
	ln -s "../../../${real#/sys/}" "$out/sys/bus/pci/devices/$bdf"
done
# class_iommu is a listing of /sys/class/iommu: one unit name per line (none here).
while read -r unit; do
	[ -n "$unit" ] && mkdir -p "$out/sys/class/iommu/$unit"
done <"$raw/snap/class_iommu"
cp "$raw/snap/cmdline" "$out/proc/cmdline"
cp "$raw/nvidia-smi-q.txt" "$out/p2pscope/nvidia-smi-q.txt"
# The topo -m matrix: from its header line (starts with a tab and the ANSI underline)
# up to the line before "Legend:".
awk '/^\t.*GPU0\tGPU1\tCPU Affinity/ {on = 1} on && /^Legend:/ {exit} on {print}' \
	"$raw/probe.log" >"$out/p2pscope/nvidia-smi-topo-m.txt"
[ -s "$out/p2pscope/nvidia-smi-topo-m.txt" ] || { echo "convert-raw-capture: no topo -m in probe.log" >&2; exit 2; }
drv=$(sed -n 's/^Driver Version *: *//p' "$raw/nvidia-smi-q.txt" | head -1)
{
	echo "format=1"
	echo "uid=0"
	echo "hostname=h200x2-firecracker"
	echo "kernel=$(sed -n '2p' "$raw/probe.log" | awk '{print $3}')"
	echo "source=converted from shared/fixtures/h200x2-raw by tests/host/convert-raw-capture.sh"
	echo "nvidia_driver=$drv"
} >"$out/p2pscope/snapshot-info"
: >"$out/p2pscope/env"
echo "convert-raw-capture: $(ls "$out/sys/bus/pci/devices" | wc -l) devices -> $out"
# The same config bytes as an `lspci -D -xxxx` dump, so the dump backend and Debian's
# lspci can be compared on a real GPU's config space (tests/host/CMakeLists.txt).
for l in "$out"/sys/bus/pci/devices/*; do
	echo "$(basename "$l") $(cat "$l/class")"
	od -An -tx1 -v -w16 "$l/config" | awk '{ printf "%02x:%s\n", (NR - 1) * 16, $0 }'
	echo
done >"$out/p2pscope/lspci-xxxx.txt"
find "$out" -type d -empty -exec touch {}/.keep \;  # git keeps empty directories only with a file in them
