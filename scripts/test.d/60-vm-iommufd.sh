#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The VFIO cdev/iommufd and no-IOMMU paths in a guest (tests/vm/,
# docs/vm-tests.md). No Debian kernel enables CONFIG_IOMMUFD or
# CONFIG_VFIO_NOIOMMU, so this step builds a 6.12 guest kernel from Debian's
# linux-source-6.12 first (tests/vm/build-kernel.sh, cached in
# build-vm/kernel/, so once per tree), then boots it twice: with the emulated
# IOMMU (cdev + iommufd next to the legacy groups) and without it (no-IOMMU).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
step=60-vm-iommufd
. tests/vm/step-lib.sh

start=$(date +%s)
image=$(JOBS=${JOBS:-2} tests/vm/build-kernel.sh "$top/build-vm/kernel") || exit 1
echo "$step: guest kernel ready after $(($(date +%s) - start)) s: $image"

rc=0
for boot in cdev noiommu; do
	boot_and_check "$boot" --kernel-image "$image" --mode "$boot" || rc=1
done
echo "$step: done in $(($(date +%s) - start)) s"
exit $rc
