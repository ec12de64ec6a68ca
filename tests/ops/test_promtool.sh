#!/bin/sh
# SPDX-License-Identifier: MIT
# promtool (Debian package prometheus) on bar-inspect --prometheus for every committed
# snapshot and lspci dump (plus the switch VM with its stand-in peers, whose pairs have
# blockers), and on the example alert rules: `check rules` and their unit tests
# (tests/ops/alerts_test.yml).
#   test_promtool.sh BAR_INSPECT SOURCE_DIR
. "$2/tests/support/p2ps_test.sh"
bi=$1 src=$2 fails=0 n=0
fx=$src/tests/fixtures
check() { # LABEL ARGS...: one output through promtool check metrics
	label=$1
	shift
	out=$("$bi" --prometheus "$@") || { echo "FAIL $label: bar-inspect exit $?"; fails=$((fails + 1)); return; }
	case $out in
	*"p2pscope_gpus "*) ;;
	*) echo "FAIL $label: no p2pscope_gpus sample"; fails=$((fails + 1)); return ;;
	esac
	if msg=$(printf '%s\n' "$out" | promtool check metrics 2>&1); then
		echo "ok $label"
		n=$((n + 1))
	else
		echo "FAIL $label: promtool check metrics: $msg"
		fails=$((fails + 1))
	fi
}
if p2ps_need_cmd promtool prometheus; then
	for info in "$fx"/*/p2pscope/snapshot-info "$fx"/*/*/p2pscope/snapshot-info; do
		[ -e "$info" ] || continue
		snap=${info%/p2pscope/snapshot-info}
		check "${snap#"$fx"/}" --root "$snap"
	done
	for dump in "$fx"/*/p2pscope/lspci-xxxx.txt; do
		check "${dump#"$fx"/}" --lspci-dump "$dump"
	done
	check "qemu-switch/acs-on with peers" --root "$fx/qemu-switch/acs-on" \
		--peers 0000:03:00.0,0000:04:00.0,0000:06:00.0
	check "h200x2-paste" --paste "$fx/h200x2-paste/paste.txt"
	check "h200x2 -s 00:07.0" --root "$fx/h200x2" -s 00:07.0
	# The driver's per-path status: the replayed RM session of 4 x H200 (NVLink OK,
	# PCIe and BAR1 refused on an NVSwitch board), six pairs x nine paths.
	check "rm h200x4 replay" --root "$fx/rm/h200x4/root" --replay "$fx/rm/h200x4/capture.json"
	out=$("$bi" --prometheus --root "$fx/rm/h200x4/root" --replay "$fx/rm/h200x4/capture.json")
	nok=$(printf '%s\n' "$out" | grep -c 'p2pscope_pair_driver_p2p_ok{.*path="nvlink"} 1$')
	nbar1=$(printf '%s\n' "$out" | grep -c 'p2pscope_pair_driver_p2p_ok{.*path="pci_bar1"} 0$')
	if [ "$nok" -ne 6 ] || [ "$nbar1" -ne 6 ]; then
		echo "FAIL rm h200x4: driver_p2p_ok nvlink 1 on $nok pairs, pci_bar1 0 on $nbar1 (want 6, 6)"
		fails=$((fails + 1))
	fi
	# bar-inspect --prometheus on the live 2 x H200 machine (tests/fixtures/nccl-topo).
	if promtool check metrics <"$fx/nccl-topo/h200x2-live/bar-inspect.prom"; then
		n=$((n + 1))
	else
		echo "FAIL h200x2-live/bar-inspect.prom"
		fails=$((fails + 1))
	fi
	# p2p-bench check --prometheus on every committed run, where p2p-bench is built.
	pb=$(dirname "$bi")/p2p-bench
	for run in "$fx"/p2p-check/*/check-*.json; do
		[ -x "$pb" ] || break
		out=$("$pb" check --prometheus --replay "$run" --root "$(dirname "$run")/snapshot")
		case $? in 0 | 1 | 3) ;; *) echo "FAIL ${run#"$fx"/}: p2p-bench check exit"; fails=$((fails + 1)); continue ;; esac
		if msg=$(printf '%s\n' "$out" | promtool check metrics 2>&1) &&
			printf '%s\n' "$out" | grep -q '^p2pscope_check_status [013]$'; then
			echo "ok ${run#"$fx"/}"
			n=$((n + 1))
		else
			echo "FAIL ${run#"$fx"/}: promtool check metrics: $msg"
			fails=$((fails + 1))
		fi
	done
	[ "$n" -ge 8 ] || { echo "FAIL: only $n outputs checked"; fails=$((fails + 1)); }
	rules=$src/contrib/prometheus/p2pscope-alerts.yml
	promtool check rules "$rules" || fails=$((fails + 1))
	(cd "$src/tests/ops" && promtool test rules alerts_test.yml) || fails=$((fails + 1))
fi
p2ps_test_exit "$fails"
