#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# QEMU's -device arguments are comma-separated property lists, not array typos.
# shellcheck disable=SC2054
# Boots one throw-away QEMU guest for the VFIO / host-inspection integration
# tests and collects what the guest printed.
#
#   tests/vm/run-guest.sh [options]
#     --out DIR           results (default build-vm/out/<boot>)
#     --boot NAME         a label for this boot (default acs-on)
#     --rp1-acs on|off    ACS capability of the root port above the switch
#                         (QEMU's pcie-root-port disable-acs=on removes it)
#     --kernel-pkg PKG    Debian kernel package to boot (default
#                         linux-image-6.12-cloud-amd64); it is fetched with
#                         `apt-get download` and unpacked, never installed
#     --kernel-image F    boot this bzImage instead (VFIO built in, e.g. from
#                         tests/vm/build-kernel.sh); no modules are loaded
#     --mode M            iommu (default): emulated Intel IOMMU, legacy VFIO
#                         groups; cdev: the same plus the VFIO cdev/iommufd
#                         interface; noiommu: no IOMMU, VFIO no-IOMMU mode
#     --bar-inspect F     the bar-inspect binary to run in the guest (default:
#                         build-vm/bar/tools/bar-inspect, then build/tools/...;
#                         `none`: only the sysfs snapshot checks)
#     --capture           put lspci and pci.ids into the guest too, so that the
#                         capture holds lspci -xxxx/-vvv/-tv (for fixtures)
#
# The guest is a q35 machine under TCG (no KVM needed) with this PCIe tree;
# the sizes are what tests/vm/check-guest.py asserts:
#
#   pcie.0 -- intel-iommu (intremap=on)
#    |- 00:01.0 rp1 pcie-root-port (ACS unless --rp1-acs off)
#    |   `- 01:00.0 x3130-upstream switch port (no ACS)
#    |       |- 02:00.0 xio3130-downstream -> 03:00.0 ivshmem-plain, BAR2 4 GiB
#    |       |- 02:01.0 xio3130-downstream -> 04:00.0 ivshmem-plain, BAR2 8 GiB
#    |       `- 02:02.0 xio3130-downstream -> 05:00.0 nvme, PMR BAR4 1 GiB
#    |- 00:02.0 rp2 pcie-root-port -> 06:00.0 ivshmem-plain, BAR2 16 GiB
#    `- 00:03.0 rp3 pcie-root-port -> 07:00.0 e1000e (no network backend)
#
# Output in --out: console.log (serial port 0: kernel and /init messages),
# data.log (serial port 1: the marked result blocks), blocks/<name> (each
# block, see guest-init.sh), snapshot/ (the guest's scripts/capture-host.sh
# capture, unpacked), qemu.argv, boot.json (timings, exit status per block).
# Exit status: 0 when the guest ran to its end marker; the facts are checked
# by check-guest.py, not here.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${P2PS_VM_CACHE:-$top/build-vm}

boot=acs-on
rp1_acs=on
kernel_pkg=linux-image-6.12-cloud-amd64
kernel_image=
mode=iommu
bar_inspect=
capture=0
out=
timeout_s=${P2PS_VM_TIMEOUT:-400}

usage() { sed -n '4,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
die() {
	echo "run-guest: $*" >&2
	exit 2
}
log() { echo "run-guest[$boot]: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--boot) boot=$2; shift ;;
	--rp1-acs) rp1_acs=$2; shift ;;
	--kernel-pkg) kernel_pkg=$2; shift ;;
	--kernel-image) kernel_image=$2; shift ;;
	--mode) mode=$2; shift ;;
	--bar-inspect) bar_inspect=$2; shift ;;
	--capture) capture=1 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
case $rp1_acs in on | off) ;; *) die "--rp1-acs must be on or off" ;; esac
case $mode in iommu | cdev | noiommu) ;; *) die "--mode must be iommu, cdev or noiommu" ;; esac
out=${out:-$cache/out/$boot}

[ -f "$top/scripts/capture-host.sh" ] || die "scripts/capture-host.sh is missing"
for tool in qemu-system-x86_64 cpio busybox; do
	command -v "$tool" >/dev/null || [ -x "/bin/$tool" ] ||
		die "$tool not found (install scripts/deps.d/vm.txt)"
done

# --------------------------------------------------------------- guest kernel
# The Debian package is downloaded into the cache and unpacked with dpkg-deb,
# never installed: nothing on the host changes. A meta package is resolved to
# the versioned image package it depends on.
fetch_kernel() {
	local pkg=$1 dep deb
	dep=$(apt-cache depends --important "$pkg" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[ -n "$dep" ] && pkg=$dep
	kroot=$cache/kernel-pkg/$pkg
	if [ ! -d "$kroot" ]; then
		mkdir -p "$cache/debs"
		log "apt-get download $pkg"
		# The sandbox user _apt cannot write into a root-owned cache dir. A fresh
		# machine may have no package lists yet: update them once and retry.
		if ! (cd "$cache/debs" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null); then
			[ "$(id -u)" = 0 ] || die "apt-get download $pkg failed (try apt-get update as root)"
			apt-get update -qq || die "apt-get update failed"
			(cd "$cache/debs" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null) ||
				die "apt-get download $pkg failed"
		fi
		deb=$(ls "$cache/debs/${pkg}_"*.deb | head -1)
		rm -rf "$kroot.tmp"
		mkdir -p "$kroot.tmp"
		dpkg-deb -x "$deb" "$kroot.tmp"
		mv "$kroot.tmp" "$kroot"
	fi
	kver=$(ls "$kroot/lib/modules" | head -1)
	vmlinuz=$kroot/boot/vmlinuz-$kver
	[ -f "$vmlinuz" ] || die "no kernel image in $kroot"
	# depmod normally runs in the package's postinst, which we never run.
	[ -f "$kroot/lib/modules/$kver/modules.dep" ] || depmod -b "$kroot" "$kver"
}

kroot=
kver=
if [ -n "$kernel_image" ]; then
	[ -f "$kernel_image" ] || die "no kernel image $kernel_image"
	vmlinuz=$(realpath "$kernel_image")
	kver=custom
else
	fetch_kernel "$kernel_pkg"
fi
log "guest kernel ${kver:-?} ($vmlinuz)"

# ------------------------------------------------------------------ initramfs
stage=$out/initramfs
rm -rf "$out"
mkdir -p "$stage"/{bin,dev,proc,sys,etc,lib/modules,tmp,usr/share/misc} "$out/blocks"
cp "$(command -v busybox || echo /bin/busybox)" "$stage/bin/busybox"

# A dynamically linked program with every shared object ldd names, each at the
# same path as on the host (Debian has no static libpci, so bar-inspect and
# lspci are dynamic; the host's libraries are Debian 12's, like the guest's
# would be).
add_program() { # src dest-in-guest
	local src=$1 dst=$2 lib
	cp "$src" "$stage$dst"
	for lib in $(ldd "$src" | awk '/=>/ { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }'); do
		[ -f "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

if [ -z "$bar_inspect" ]; then
	for cand in "$cache/bar/tools/bar-inspect" "$top/build/tools/bar-inspect"; do
		[ -x "$cand" ] && { bar_inspect=$cand; break; }
	done
fi
[ "$bar_inspect" = none ] && bar_inspect=
if [ -n "$bar_inspect" ]; then
	[ -x "$bar_inspect" ] || die "bar-inspect '$bar_inspect' is not executable"
	add_program "$bar_inspect" /bin/bar-inspect
	log "bar-inspect: $bar_inspect"
else
	log "no bar-inspect binary: the guest runs the sysfs checks only"
fi
if [ "$capture" = 1 ]; then
	command -v lspci >/dev/null || die "--capture needs lspci (pciutils)"
	add_program "$(command -v lspci)" /bin/lspci
	cp /usr/share/misc/pci.ids "$stage/usr/share/misc/pci.ids"
fi
# The sysfs snapshot that check-guest.py reads (and --capture keeps) is taken by
# scripts/capture-host.sh, in the format `bar-inspect --root` replays.
cp "$top/scripts/capture-host.sh" "$stage/bin/capture-host.sh"
cp "$here/guest-init.sh" "$stage/init"
chmod +x "$stage/init" "$stage"/bin/*

# Modules for a Debian kernel, dependencies first, decompressed (busybox
# insmod reads neither .ko.xz nor .ko.zst).
: >"$stage/etc/modules"
if [ -n "$kroot" ]; then
	for m in vfio vfio_iommu_type1 vfio_pci; do
		modprobe -d "$kroot" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r ko; do
		name=$(basename "$ko")
		name=${name%.xz}
		name=${name%.zst}
		case $ko in
		*.xz) xz -dc "$ko" >"$stage/lib/modules/$name" ;;
		*.zst) zstd -qdc "$ko" >"$stage/lib/modules/$name" ;;
		*) cp "$ko" "$stage/lib/modules/$name" ;;
		esac
		echo "$name" >>"$stage/etc/modules"
	done
fi

# What /init should do; plain shell assignments read with `.`.
cat >"$stage/etc/p2ps-vm.conf" <<EOF
P2PS_BOOT=$boot
P2PS_MODE=$mode
P2PS_CAPTURE=$capture
EOF
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out/initramfs.cpio"

# ---------------------------------------------------------------------- QEMU
append="console=ttyS0,115200 rdinit=/init panic=-1 loglevel=4 edd=off"
iommu_dev=()
case $mode in
iommu | cdev)
	# Debian leaves INTEL_IOMMU_DEFAULT_ON unset: ask for it. intremap=on:
	# vfio_iommu_type1 refuses a container without interrupt remapping.
	append+=" intel_iommu=on"
	iommu_dev=(-device intel-iommu,intremap=on)
	;;
noiommu) append+=" intel_iommu=off vfio.enable_unsafe_noiommu_mode=1" ;;
esac
acs_off=$([ "$rp1_acs" = off ] && echo on || echo off)

# vendor=GenuineIntel: TCG's max CPU is AMD by default, and QEMU then reserves
# the AMD HyperTransport hole below 1 TiB where a large BAR can land and fail
# to mmap. memfd backends are sparse: the GiB-sized BARs cost no host RAM.
# One vCPU: with two, a 6.12 guest under multi-threaded TCG now and then dies
# early in boot with "Oops: int3" in code the kernel was live-patching
# (text_poke_bp), and the guest gains nothing from a second CPU.
qemu=(
	qemu-system-x86_64 -machine q35 -accel tcg -cpu max,vendor=GenuineIntel
	-smp 1 -m 1G -display none -vga none -nic none -no-reboot -monitor none
	-kernel "$vmlinuz" -initrd "$out/initramfs.cpio" -append "$append"
	-serial "file:$out/console.log" -serial "file:$out/data.log"
	"${iommu_dev[@]}"
	-device pcie-root-port,id=rp1,bus=pcie.0,addr=0x1,chassis=1,slot=1,disable-acs="$acs_off"
	-device x3130-upstream,id=up1,bus=rp1
	-device xio3130-downstream,id=dn1,bus=up1,addr=0x0,chassis=2,slot=1
	-device xio3130-downstream,id=dn2,bus=up1,addr=0x1,chassis=3,slot=1
	-device xio3130-downstream,id=dn3,bus=up1,addr=0x2,chassis=4,slot=1
	-object memory-backend-memfd,id=m1,size=4G,share=on
	-device ivshmem-plain,memdev=m1,bus=dn1
	-object memory-backend-memfd,id=m2,size=8G,share=on
	-device ivshmem-plain,memdev=m2,bus=dn2
	-object memory-backend-memfd,id=pmr,size=1G,share=on
	-device nvme,serial=p2ps0,pmrdev=pmr,bus=dn3
	-device pcie-root-port,id=rp2,bus=pcie.0,addr=0x2,chassis=5,slot=2
	-object memory-backend-memfd,id=m3,size=16G,share=on
	-device ivshmem-plain,memdev=m3,bus=rp2
	-device pcie-root-port,id=rp3,bus=pcie.0,addr=0x3,chassis=6,slot=3
	-device e1000e,bus=rp3
)
printf '%s\n' "${qemu[@]}" >"$out/qemu.argv"
log "booting (mode=$mode, rp1 ACS $rp1_acs)"
start=$(date +%s.%N)
set +e
timeout "$timeout_s" "${qemu[@]}" </dev/null >"$out/qemu.log" 2>&1
qrc=$?
set -e
end=$(date +%s.%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
log "QEMU exit $qrc after $wall s"
[ "$qrc" = 124 ] && log "guest timed out after $timeout_s s"

python3 "$here/check-guest.py" extract --out "$out" --wall "$wall" --qemu-rc "$qrc" \
	--kernel "${kver:-$vmlinuz}" --mode "$mode" --rp1-acs "$rp1_acs"
