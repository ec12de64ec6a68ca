#!/usr/bin/env bash
# Short libFuzzer runs of the host model's parsers (issue 3a): the lspci dump backend
# (through libpci's dump method), the config-space decoders and the nvidia-smi text
# parsers of snapshots. Each target runs for
# P2PS_HOST_FUZZ_SECONDS (default 30) on a scratch copy of its seed corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${P2PS_HOST_FUZZ_SECONDS:-30}
dir=build-fuzz-host
CC=clang cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DP2PS_FUZZ=ON \
	>"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j "${JOBS:-2}" --target fuzz_lspci_dump fuzz_host_config fuzz_nvsmi >/dev/null
for t in fuzz_lspci_dump fuzz_host_config fuzz_nvsmi; do
	work=$(mktemp -d)
	cp fuzz/corpus/$t/* "$work/"
	(cd "$work" && "$OLDPWD/$dir/fuzz/$t" -max_total_time="$secs" -max_len=20000 \
		-print_final_stats=1 "$work" >"$work.log" 2>&1) || {
		tail -40 "$work.log"
		echo "host-fuzz: $t found a failure" >&2
		exit 1
	}
	echo "host-fuzz: $t $(grep -m1 'stat::number_of_executed_units' "$work.log" | awk '{print $2}') execs in ${secs}s, no failure"
	rm -rf "$work" "$work.log"
done
