# SPDX-License-Identifier: MIT
# Shared by scripts/test.d/50-vm-guest.sh and 60-vm-iommufd.sh (sourced from the
# repository root, with `step` set to the step's name). Sets top and bi; the guest
# steps need the normal build's bar-inspect.
top=$(pwd)
bi=${BUILD_DIR:-$top/build}/tools/bar-inspect
if [ ! -x "$bi" ]; then
	echo "$step: $bi was not built" >&2
	exit 1
fi

# boot_and_check BOOT [run-guest.sh options ...] [-- check-guest.py options ...]
# Boots one guest into build-vm/out/BOOT and checks what it reported; on a failed
# boot shows the end of the guest's console.
boot_and_check() {
	local boot=$1
	shift
	local out=$top/build-vm/out/$boot
	local run_args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		run_args+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	if ! tests/vm/run-guest.sh --boot "$boot" --out "$out" --bar-inspect "$bi" "${run_args[@]}"; then
		echo "--- console of the '$boot' guest:"
		tail -40 "$out/console.log"
		return 1
	fi
	python3 tests/vm/check-guest.py check --out "$out" --boot "$boot" "$@"
}
