#!/usr/bin/env bash
# bar-inspect against its yardsticks, in one run, alternating: on this host
# `bar-inspect --all` against `lspci -vvv` (and `nvidia-smi topo -m` where there is one),
# on each snapshot `bar-inspect --root S --all` against
# `lspci -vvv -A linux-sysfs -O sysfs.path=S/sys/bus/pci` (the same files through the
# same library). Prints per command the median and minimum wall time and the ratio of
# medians to the yardstick (lspci), which is the figure to watch: the goal is at most 0.5.
#
#   bench/bar-inspect-vs-lspci.sh [--short] [--runs N] [--no-live] [--timings] [SNAPSHOT...]
#
#   --short    3 runs, and only the first snapshot: what CI runs, to keep the script alive
#              (no figure is checked there)
#   --runs N   runs per command (default 20; environment RUNS too)
#   --no-live  snapshots only
#   --timings  also print one `bar-inspect --timings` breakdown per scenario
#   SNAPSHOT   directories captured by scripts/capture-host.sh (default: the committed
#              tests/fixtures/{h100,h200x2,qemu-switch/acs-on})
#
# On a host with the NVIDIA driver it also times NVML alone (bench/nvml-init.c, built
# here with cc): a process that only loads libnvidia-ml and runs nvmlInit_v2/nvmlShutdown,
# and prints the in-process cost of each NVML query bar-inspect makes.
#
# Environment: BUILD_DIR (default build), LSPCI (default lspci), RUNS. Each sample is
# one process run with its output to /dev/null, timed by bash ($EPOCHREALTIME), so
# process start and exit are counted for every command alike.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
runs=${RUNS:-20} short=0 live=1 timings=0
snaps=()
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1 runs=${RUNS:-3} ;;
	--runs) runs=$2; shift ;;
	--no-live) live=0 ;;
	--timings) timings=1 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bar-inspect-vs-lspci: unknown option $1 (try --help)" >&2; exit 2 ;;
	*) snaps+=("$1") ;;
	esac
	shift
done
bi=${BUILD_DIR:-build}/tools/bar-inspect
lspci=${LSPCI:-lspci}
[ -x "$bi" ] || { echo "bar-inspect-vs-lspci: $bi not built (cmake --build ${BUILD_DIR:-build} --target bar-inspect)" >&2; exit 2; }
command -v "$lspci" >/dev/null || { echo "bar-inspect-vs-lspci: $lspci not installed" >&2; exit 2; }
[ ${#snaps[@]} -gt 0 ] || snaps=(tests/fixtures/h100 tests/fixtures/h200x2 tests/fixtures/qemu-switch/acs-on)
[ "$short" = 0 ] || snaps=("${snaps[0]}")

# group TITLE LABEL CMD [LABEL CMD]...: runs the commands round-robin $runs times (after
# one untimed run of each, which must succeed), then prints one line per command. CMD is
# a string for eval; the first command is the yardstick.
group() {
	local title=$1 i j t0 t1
	shift
	local -a labels=() cmds=()
	while [ $# -gt 0 ]; do labels+=("$1") cmds+=("$2"); shift 2; done
	local n=${#cmds[@]}
	local -a samples=()
	echo "== $title"
	for ((j = 0; j < n; j++)); do
		if ! eval "${cmds[j]}" >/dev/null 2>&1; then
			echo "  FAILED: ${cmds[j]}"
			return 0
		fi
	done
	for ((i = 0; i < runs; i++)); do
		for ((j = 0; j < n; j++)); do
			t0=$EPOCHREALTIME
			eval "${cmds[j]}" >/dev/null 2>&1
			t1=$EPOCHREALTIME
			samples[j]+=" $(((${t1/./} - ${t0/./})))"
		done
	done
	local base=
	printf '  %-52s %10s %9s %8s\n' command "median ms" "min ms" "x ${labels[0]%% *}"
	for ((j = 0; j < n; j++)); do
		read -r med min <<<"$(printf '%s\n' ${samples[j]} | sort -n |
			awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1] }')"
		[ -n "$base" ] || base=$med
		awk -v l="${labels[j]}" -v m="$med" -v n="$min" -v b="$base" \
			'BEGIN { printf "  %-52s %10.2f %9.2f %8.2f\n", l, m / 1000, n / 1000, m / b }'
	done
}

ndev() { find "$1/sys/bus/pci/devices" -mindepth 1 -maxdepth 1 | wc -l; }
q() { printf '%q' "$1"; }

echo "bar-inspect-vs-lspci: bar-inspect $("$bi" --version | awk '{print $2}'), lspci $("$lspci" --version | awk '{print $3}')," \
	"$runs alternating runs each; $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"

if [ "$live" = 1 ] && [ -d /sys/bus/pci/devices ]; then
	cmds=("lspci -vvv" "$(q "$lspci") -vvv")
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
		cmds+=("nvidia-smi topo -m" "nvidia-smi topo -m")
	fi
	cmds+=("bar-inspect --all" "$(q "$bi") --all"
		"bar-inspect --all --no-nvml" "$(q "$bi") --all --no-nvml"
		"bar-inspect (NVIDIA GPUs only)" "$(q "$bi")"
		"bar-inspect --all -n (no pci.ids names)" "$(q "$bi") --all -n")
	nvml=
	if [ -e /dev/nvidiactl ] && command -v cc >/dev/null; then
		nvml=$(mktemp /tmp/nvml-init.XXXXXX)
		if cc -O2 -o "$nvml" bench/nvml-init.c -ldl && "$nvml" init 2>/dev/null; then
			cmds+=("NVML alone: process start (nvml-init none)" "$(q "$nvml") none"
				"NVML alone: dlopen" "$(q "$nvml") dlopen"
				"NVML alone: dlopen, nvmlInit_v2, nvmlShutdown" "$(q "$nvml") init")
		else
			rm -f "$nvml"
			nvml=
		fi
	fi
	group "this host (/sys: $(ndev "") devices)" "${cmds[@]}"
	if [ -n "$nvml" ]; then
		"$nvml" calls 2>&1 | sed 's/^/  /'
		rm -f "$nvml"
	fi
	[ "$timings" = 0 ] || "$bi" --all --timings 2>&1 >/dev/null | sed 's/^/  /'
fi

for s in "${snaps[@]}"; do
	[ -d "$s/sys/bus/pci" ] || { echo "bar-inspect-vs-lspci: $s is not a snapshot" >&2; continue; }
	group "snapshot $s ($(ndev "$s") devices)" \
		"lspci -vvv -A linux-sysfs" "$(q "$lspci") -vvv -A linux-sysfs -O sysfs.path=$(q "$s/sys/bus/pci")" \
		"bar-inspect --root S --all" "$(q "$bi") --root $(q "$s") --all" \
		"bar-inspect --root S --all --json" "$(q "$bi") --root $(q "$s") --all --json" \
		"bar-inspect --root S (NVIDIA GPUs only)" "$(q "$bi") --root $(q "$s")"
	[ "$timings" = 0 ] || "$bi" --root "$s" --all --timings 2>&1 >/dev/null | sed 's/^/  /'
done
