#!/usr/bin/env bash
# Guest integration tests with a Debian kernel (tests/vm/, docs/vm-tests.md):
# boots a q35 guest under TCG twice, with the switch's root port ACS on and
# off, runs bar-inspect inside through sysfs and through VFIO, and asserts the
# facts QEMU was told (check-guest.py). P2PS_VM_BREAK=1 flips one expected
# value to show the step fails on a wrong fact.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
top=$(pwd)
build=${BUILD_DIR:-$top/build}
bi=$build/tools/bar-inspect
args=()
checks=()
if [ -x "$bi" ]; then
	args=(--bar-inspect "$bi")
	# the host replays the guest's capture (--root, --lspci-dump) too
	checks=(--replay "$bi")
elif [ -f tools/bar-inspect/CMakeLists.txt ]; then
	echo "50-vm-guest: $bi was not built" >&2
	exit 1
else
	echo "50-vm-guest: no bar-inspect in this tree yet: sysfs checks only"
	args=(--bar-inspect none)
	checks=(--no-bar-inspect)
fi

rc=0
start=$(date +%s)
for boot in acs-on acs-off; do
	out=$top/build-vm/out/$boot
	# --capture: lspci in the guest too, for tests/vm/update-fixtures.sh
	extra=(--capture)
	[ "$boot" = acs-off ] && extra+=(--rp1-acs off)
	if ! tests/vm/run-guest.sh --boot "$boot" --out "$out" "${args[@]}" "${extra[@]}"; then
		echo "--- console of the '$boot' guest:"
		tail -40 "$out/console.log"
		rc=1
		continue
	fi
	python3 tests/vm/check-guest.py check --out "$out" --boot "$boot" "${checks[@]}" || rc=1
done
echo "50-vm-guest: both boots in $(($(date +%s) - start)) s (boot.json in build-vm/out/*/)"
exit $rc
