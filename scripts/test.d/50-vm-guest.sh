#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Guest integration tests with a Debian kernel (tests/vm/, docs/vm-tests.md):
# boots a q35 guest under TCG twice, with the switch's root port ACS on and
# off, runs bar-inspect inside through sysfs and through VFIO, and asserts the
# facts QEMU was told (check-guest.py). P2PS_VM_BREAK=1 flips one expected
# value to show the step fails on a wrong fact.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
step=50-vm-guest
. tests/vm/step-lib.sh

rc=0
start=$(date +%s)
# --capture: lspci in the guest too, for tests/vm/update-fixtures.sh; the host
# replays the guest's capture (--root, --lspci-dump) with --replay.
boot_and_check acs-on --capture -- --replay "$bi" || rc=1
boot_and_check acs-off --capture --rp1-acs off -- --replay "$bi" || rc=1
echo "$step: both boots in $(($(date +%s) - start)) s (boot.json in build-vm/out/*/)"
exit $rc
