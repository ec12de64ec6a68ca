#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the guest kernel for the iommufd / VFIO-cdev / no-IOMMU tests from
# Debian's linux-source-6.12 package (x86_64_defconfig + guest-kernel.config).
#
#   tests/vm/build-kernel.sh [OUT_DIR]     # default OUT_DIR: build-vm/kernel
#
# Prints the path of the bzImage on stdout. The image is cached under OUT_DIR,
# keyed by the source package version and the hash of the fragment and of this
# script, so a second call in the same tree returns at once. The build runs
# under nice with JOBS (default 2) parallel jobs; about 8 minutes on two idle
# cores. Nothing is installed: the source tarball is unpacked under OUT_DIR.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-$top/build-vm/kernel}
jobs=${JOBS:-2}
tarball=/usr/src/linux-source-6.12.tar.xz

log() { echo "build-kernel: $*" >&2; }

[ -f "$tarball" ] || { log "no $tarball (apt-get install linux-source-6.12)"; exit 2; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$(cat "$here/guest-kernel.config" "$here/build-kernel.sh" | sha256sum | cut -c1-12)
image=$out/bzImage-$srcver-$key
if [ -f "$image" ]; then
	log "cached $image"
	echo "$image"
	exit 0
fi

mkdir -p "$out"
src=$out/linux-source-6.12
if [ ! -f "$src/.unpacked" ]; then
	log "unpacking $tarball ($srcver)"
	rm -rf "$src"
	tar -C "$out" -xJf "$tarball"
	touch "$src/.unpacked"
fi

obj=$out/obj-$key
mkdir -p "$obj"
start=$(date +%s)
make -s -C "$src" O="$obj" x86_64_defconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$here/guest-kernel.config" >/dev/null
make -s -C "$src" O="$obj" olddefconfig >/dev/null
# A fragment line that Kconfig dropped (a dependency missing) would silently
# give a kernel without the interface under test: check the ones that matter.
for opt in IOMMUFD VFIO_DEVICE_CDEV VFIO_NOIOMMU VFIO_CONTAINER VFIO_PCI INTEL_IOMMU IRQ_REMAP; do
	grep -q "^CONFIG_$opt=y" "$obj/.config" || { log "CONFIG_$opt did not stick"; exit 1; }
done
log "building bzImage with -j$jobs (log: $obj/build.log)"
if ! nice -n 10 make -C "$src" O="$obj" -j"$jobs" bzImage >"$obj/build.log" 2>&1; then
	tail -30 "$obj/build.log" >&2
	log "kernel build failed"
	exit 1
fi
cp "$obj/arch/x86/boot/bzImage" "$image.tmp"
mv "$image.tmp" "$image"
log "built $image in $(($(date +%s) - start)) s"
echo "$image"
