#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# p2pscope-capture-host (scripts/capture-host.sh in the source tree): a read-only capture
# of what bar-inspect needs, for bug reports and for `bar-inspect --root DIR`. The usage
# text below says what it writes; `cmake --install` installs it as p2pscope-capture-host
# with the project's version filled in.
set -uo pipefail

prog=p2pscope-capture-host
version="@PROJECT_VERSION@"
# Run from the source tree: the version of the tree it sits in.
if [[ $version == @* ]]; then
	version=$(sed -n 's/^project(p2pscope VERSION \([0-9.]*\).*/\1/p' \
		"$(dirname "$0")/../CMakeLists.txt" 2>/dev/null)
	version=${version:-unknown}
fi

usage() {
	cat <<EOF
Usage: $prog [-o FILE.tar.gz] [--keep-dir DIR] [--no-tools]
       $prog -h | --help | -V | --version

Captures what bar-inspect reads on this host into one gzip'ed tarball, for a bug report
or for a report made elsewhere: bar-inspect --root DIR, bar-inspect --fleet FILE.tar.gz.
It only reads: no BAR, ROM or VPD file, no write to sysfs or config space. Run it as
root for a full capture: without root the kernel returns only the first 64 bytes of each
device's config space (no ACS, Resizable BAR or link registers), and bar-inspect then
says which facts need root.

Options:
  -o FILE.tar.gz   where to write (default ./p2pscope-snap-HOST-DATE.tar.gz)
  --keep-dir DIR   also keep the captured folder in DIR
  --no-tools       do not run nvidia-smi and lspci (sysfs and /proc only)
  -h, --help       this text
  -V, --version    the version

The tarball holds one folder: the sysfs and /proc files under the same paths as on the
host (PCI devices, IOMMU groups, the kernel command line, the NVIDIA driver's version and
parameters), and p2pscope/ with snapshot-info (date, host, kernel), the NCCL_* and
CUDA_VISIBLE_DEVICES variables of this shell, and the output of nvidia-smi -q,
nvidia-smi topo -m, nvidia-smi topo -p2p (r, w, n, a, p), nvidia-smi nvlink --status,
lspci -vvv, lspci -tv and, as root, lspci -xxxx.

Extract with: mkdir DIR && tar xf FILE.tar.gz -C DIR --strip-components=1
Exit status: 0 written, 2 bad usage or the tarball could not be written.
EOF
}

# The layout, for readers of the code: a gzip'ed tarball holding one directory with the sysfs/proc subset under the
# same paths as on the host (sys/bus/pci/devices/<BDF> -> ../../../devices/...,
# sys/kernel/iommu_groups/N/type, sys/class/iommu/*, sys/module/nvidia/version,
# proc/cmdline, proc/driver/nvidia/version and params, proc/cpuinfo (first CPU), proc/sys/kernel/random/boot_id (tells two
# captures of one host apart across reboots), ...), plus p2pscope/:
#   snapshot-info            format, uid, date, hostname, kernel, tool versions
#   env                      NCCL_* and CUDA_VISIBLE_DEVICES of the capturing shell
#   nvidia-smi-q.txt         nvidia-smi -q            (when nvidia-smi is present)
#   nvidia-smi-topo-m.txt    nvidia-smi topo -m
#   nvidia-smi-topo-p2p.txt  nvidia-smi topo -p2p r (-w, -n, -a, -p.txt: the other modes)
#   nvidia-smi-nvlink.txt    nvidia-smi nvlink --status
#   lspci-vvv.txt            lspci -vvv -nn  (lspci -D -vvv; says <access denied> as non-root)
#   lspci-xxxx.txt           lspci -D -xxxx (root only: 4096 bytes per device)
#   lspci-tv.txt             lspci -tv
#
# Safety: it only reads. It never reads BAR files (resourceN), ROMs or VPD, and never
# writes to sysfs or config space. As non-root the kernel returns only the first 64
# bytes of each device's config space; bar-inspect then says which facts need root.
# Extract with: mkdir DIR && tar xf FILE -C DIR --strip-components=1

out=""
keep=""
tools=1
while [ $# -gt 0 ]; do
	case "$1" in
	-o | --keep-dir)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value (try --help)" >&2; exit 2; }
		case $1 in -o) out=$2 ;; *) keep=$2 ;; esac
		shift 2
		;;
	--no-tools) tools=0; shift ;;
	-h | --help) usage; exit 0 ;;
	-V | --version) echo "$prog $version"; exit 0 ;;
	*) echo "$prog: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done

sysroot=${P2PS_CAPTURE_SYSROOT:-} # tests only: capture from a copied tree instead of /
host=$(hostname 2>/dev/null || echo host)
# A copied tree names its own host (tests capture several "hosts" on one machine).
if [ -n "$sysroot" ] && [ -s "$sysroot/proc/sys/kernel/hostname" ]; then
	host=$(cat "$sysroot/proc/sys/kernel/hostname")
fi
stamp=$(date -u +%Y%m%dT%H%M%SZ)
name="p2pscope-snap-${host}-${stamp}"
[ -n "$out" ] || out="$PWD/${name}.tar.gz"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

if [ -n "$keep" ]; then
	work=$keep
	mkdir -p "$work" || exit 2
else
	tmp=$(mktemp -d) || exit 2
	trap 'rm -rf "$tmp"' EXIT
	work="$tmp/$name"
	mkdir -p "$work"
fi

# copy_file SRC-REL: copies one regular attribute file if readable (errors ignored:
# a missing or unreadable attribute simply is not in the snapshot).
copy_file() {
	local rel=$1
	[ -f "$sysroot$rel" ] && [ -r "$sysroot$rel" ] || return 0
	mkdir -p "$work$(dirname "$rel")"
	# cat, not cp: sysfs files report sizes that differ from what a read returns.
	cat "$sysroot$rel" >"$work$rel" 2>/dev/null || rm -f "$work$rel"
}

# copy_link SRC-REL: recreates a symlink with the same (relative) target.
copy_link() {
	local rel=$1 target
	[ -L "$sysroot$rel" ] || return 0
	target=$(readlink "$sysroot$rel") || return 0
	mkdir -p "$work$(dirname "$rel")"
	ln -sfn "$target" "$work$rel"
}

# Per-device attributes bar-inspect (and libpci's sysfs method) reads. Never resourceN,
# resourceN_wc, rom or vpd: those touch the device itself.
dev_attrs="config resource vendor device class revision subsystem_vendor subsystem_device
irq numa_node local_cpulist current_link_speed current_link_width max_link_speed
max_link_width boot_vga enable label d3cold_allowed power_state ari_enabled msi_bus
modalias driver_override reset_method"

ndev=0
for dev in "$sysroot"/sys/bus/pci/devices/*; do
	[ -e "$dev" ] || continue
	bdf=$(basename "$dev")
	real=$(readlink -f "$dev") || continue
	real=${real#"$sysroot"}
	mkdir -p "$work$real"
	for a in $dev_attrs; do
		copy_file "$real/$a"
	done
	for r in "$sysroot$real"/resource[0-9]_resize; do
		[ -e "$r" ] && copy_file "$real/$(basename "$r")"
	done
	copy_link "$real/driver"
	copy_link "$real/iommu_group"
	mkdir -p "$work/sys/bus/pci/devices"
	ln -sfn "../../../${real#/sys/}" "$work/sys/bus/pci/devices/$bdf"
	ndev=$((ndev + 1))
done

for g in "$sysroot"/sys/kernel/iommu_groups/*; do
	[ -d "$g" ] || continue
	rel=${g#"$sysroot"}
	copy_file "$rel/type"
	copy_file "$rel/reserved_regions"
	for l in "$g"/devices/*; do
		[ -L "$l" ] && copy_link "${l#"$sysroot"}"
	done
done
mkdir -p "$work/sys/class/iommu" "$work/sys/kernel/iommu_groups"
for u in "$sysroot"/sys/class/iommu/*; do
	[ -e "$u" ] && mkdir -p "$work/sys/class/iommu/$(basename "$u")"
done

for f in /sys/module/nvidia/version /sys/module/nvidia_uvm/version /sys/hypervisor/type \
	/sys/class/dmi/id/sys_vendor /sys/class/dmi/id/product_name \
	/sys/class/dmi/id/board_vendor /sys/class/dmi/id/board_name \
	/sys/class/dmi/id/bios_version /proc/cmdline /proc/driver/nvidia/version /proc/driver/nvidia/params \
	/sys/module/vfio/parameters/enable_unsafe_noiommu_mode /proc/sys/kernel/random/boot_id; do
	copy_file "$f"
done
for p in "$sysroot"/sys/module/nvidia/parameters/*; do
	[ -f "$p" ] && copy_file "${p#"$sysroot"}"
done
# GPUDirect RDMA: the peer-memory modules (loaded or not) and the RDMA devices with the
# PCI function behind each (/sys/class/infiniband/NAME/device -> ../../../BDF).
for m in nvidia_peermem nv_peer_mem; do
	copy_file "/sys/module/$m/initstate"
done
for ib in "$sysroot"/sys/class/infiniband/*; do
	[ -e "$ib" ] && copy_link "${ib#"$sysroot"}/device"
done
# The first CPU's block of /proc/cpuinfo carries the model and the hypervisor flag.
if [ -r "$sysroot/proc/cpuinfo" ]; then
	mkdir -p "$work/proc"
	awk 'NF == 0 { exit } { print }' "$sysroot/proc/cpuinfo" >"$work/proc/cpuinfo"
fi

meta="$work/p2pscope"
mkdir -p "$meta"
{
	echo "format=1"
	echo "uid=$(id -u)"
	echo "date=$stamp"
	echo "hostname=$host"
	echo "kernel=$(uname -r)"
	echo "devices=$ndev"
	command -v lspci >/dev/null && echo "lspci=$(lspci --version 2>/dev/null)"
	command -v nvidia-smi >/dev/null && echo "nvidia_smi=$(command -v nvidia-smi)"
} >"$meta/snapshot-info"
env | grep -E '^(NCCL_|CUDA_VISIBLE_DEVICES=)' >"$meta/env" || true

# run_tool FILE CMD...: saves a tool's output (with a timeout: a wedged GPU can make
# nvidia-smi hang); a failure leaves a note instead of the file.
run_tool() {
	local file=$1
	shift
	command -v "$1" >/dev/null || return 0
	if ! timeout 120 "$@" >"$meta/$file" 2>"$meta/$file.err"; then
		echo "exit status $?: $*" >>"$meta/$file.err"
	fi
	[ -s "$meta/$file.err" ] || rm -f "$meta/$file.err"
}

if [ "$tools" -eq 1 ] && [ -z "$sysroot" ]; then
	run_tool nvidia-smi-q.txt nvidia-smi -q
	run_tool nvidia-smi-topo-m.txt nvidia-smi topo -m
	run_tool nvidia-smi-topo-p2p.txt nvidia-smi topo -p2p r
	# The driver's statuses per pair for writes, NVLink, atomics and PCIe (bar-inspect
	# --driver compares its model with them).
	for m in w n a p; do
		run_tool "nvidia-smi-topo-p2p-$m.txt" nvidia-smi topo -p2p "$m"
	done
	run_tool nvidia-smi-nvlink.txt nvidia-smi nvlink --status
	run_tool lspci-vvv.txt lspci -D -vvv -nn
	run_tool lspci-tv.txt lspci -tv
	if [ "$(id -u)" -eq 0 ]; then
		run_tool lspci-xxxx.txt lspci -D -xxxx
	fi
fi

# An empty directory is a fact here (no IOMMU units, no groups), but git drops empty
# directories when a capture becomes a test fixture: mark each with a dotfile, which
# bar-inspect skips as sysfs has none.
find "$work" -type d -empty -exec touch {}/.keep \;

tar -C "$(dirname "$work")" -czf "$out" "$(basename "$work")" || {
	echo "$prog: cannot write $out" >&2
	exit 2
}
echo "$prog: $ndev PCI devices captured into $out"
if [ "$(id -u)" -ne 0 ]; then
	echo "$prog: not root: config space is cut at 64 bytes (no ACS, ReBAR, link" \
		"registers); run as root for a full capture" >&2
fi
