#!/usr/bin/env bash
# The VFIO cdev/iommufd and no-IOMMU paths in a guest (tests/vm/,
# docs/vm-tests.md). No Debian kernel enables CONFIG_IOMMUFD or
# CONFIG_VFIO_NOIOMMU, so this step builds a 6.12 guest kernel from Debian's
# linux-source-6.12 first (tests/vm/build-kernel.sh, cached in
# build-vm/kernel/, so once per tree), then boots it twice: with the emulated
# IOMMU (cdev + iommufd next to the legacy groups) and without it (no-IOMMU).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
top=$(pwd)
build=${BUILD_DIR:-$top/build}
bi=$build/tools/bar-inspect
args=()
checks=()
if [ -x "$bi" ]; then
	args=(--bar-inspect "$bi")
elif [ -f tools/bar-inspect/CMakeLists.txt ]; then
	echo "60-vm-iommufd: $bi was not built" >&2
	exit 1
else
	echo "60-vm-iommufd: no bar-inspect in this tree yet: sysfs checks only"
	args=(--bar-inspect none)
	checks=(--no-bar-inspect)
fi

start=$(date +%s)
image=$(JOBS=${JOBS:-2} tests/vm/build-kernel.sh "$top/build-vm/kernel") || exit 1
echo "60-vm-iommufd: guest kernel ready after $(($(date +%s) - start)) s: $image"

rc=0
for boot in cdev noiommu; do
	out=$top/build-vm/out/$boot
	if ! tests/vm/run-guest.sh --boot "$boot" --out "$out" --kernel-image "$image" \
		--mode "$boot" "${args[@]}"; then
		echo "--- console of the '$boot' guest:"
		tail -40 "$out/console.log"
		rc=1
		continue
	fi
	python3 tests/vm/check-guest.py check --out "$out" --boot "$boot" "${checks[@]}" || rc=1
done
echo "60-vm-iommufd: done in $(($(date +%s) - start)) s"
exit $rc
