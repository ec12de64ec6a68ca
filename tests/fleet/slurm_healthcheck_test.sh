#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# contrib/slurm/p2ps-healthcheck.sh against the real Slurm daemons: a one-host cluster of
# three nodes (slurm-cluster.sh). Stand-ins take the GPU part: a bar-inspect and a
# functional check that print what the real ones print and exit with the code this test
# writes per node (1, then 0, then 3...). After each step the node's state and reason are
# read back from slurmctld (scontrol show node, sinfo):
#   gpu01  the script run by hand as slurmd runs it (SLURMD_NODENAME): a blocker drains
#          with the first blocker line as reason, a clean run resumes, unknown drains or
#          only logs as configured, a functional failure drains, a node drained by an
#          administrator stays drained with its reason, a missing bar-inspect only logs,
#          the Prolog exit status, every run logs through logger;
#   gpu02  slurmd's own HealthCheckProgram runs (HealthCheckInterval=1) drain and resume;
#   gpu03  slurmd's Prolog: a job on a node with a blocker does not run there.
set -uo pipefail
. "$(dirname "$0")/fleet-lib.sh"
# shellcheck source=tests/fleet/slurm-cluster.sh
. "$(dirname "$0")/slurm-cluster.sh"
slurm_cluster_need
tmp=$(mktemp -d)
trap 'slurm_cluster_stop; rm -rf "$tmp"' EXIT
hc=$top/contrib/slurm/p2ps-healthcheck.sh
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

# The stand-ins: bar-inspect --check and a functional check, one exit code per node
# (files rc/bi.NODE, rc/fn.NODE), and a logger that records its arguments.
mkdir -p "$tmp/bin" "$tmp/rc"
# slurmd runs its own health checks while a step runs: every file a stand-in writes, and every
# file a step writes for them, is written aside and renamed into place, so that no reader
# ever sees it half written.
cat >"$tmp/bin/fake-bar-inspect" <<EOF
#!/bin/sh
echo "\$*" >"$tmp/bi-args.\$\$" && mv -f "$tmp/bi-args.\$\$" "$tmp/bi-args"
rc=\$(cat "$tmp/rc/bi.\$SLURMD_NODENAME" 2>/dev/null || echo 0)
echo "bar-inspect 0.2.0: host \$SLURMD_NODENAME"
case \$rc in
1) printf '%s\n' "GPU0 <-> GPU1 (0000:18:00.0 <-> 0000:2a:00.0)  PHB  BAR1 P2P: not ready (1 blocker)" \\
	"	blocker  GPU0 0000:18:00.0: BAR1 (256M) is smaller than VRAM (80G): a peer cannot reach all of it" \\
	"	         fix: enable Above 4G Decoding and Resizable BAR in the firmware setup" ;;
3) printf '%s\n' "GPU0 <-> GPU1 (0000:18:00.0 <-> 0000:2a:00.0)  PHB  BAR1 P2P: unknown" \\
	"	unknown  GPU0 0000:18:00.0: IOMMU mode unknown: the source carries no IOMMU state" ;;
*) echo "GPU0 <-> GPU1 (0000:18:00.0 <-> 0000:2a:00.0)  PHB  BAR1 P2P: ready" ;;
esac
exit \$rc
EOF
cat >"$tmp/bin/fake-functional" <<EOF
#!/bin/sh
rc=\$(cat "$tmp/rc/fn.\$SLURMD_NODENAME" 2>/dev/null || echo 0)
case \$rc in
1) echo "GPU0 -> GPU1: 12 words of the peer copy differ" ;;
3) echo "no CUDA device visible" ;;
*) echo "2 GPUs, 2 pairs: peer copies verified" ;;
esac
exit \$rc
EOF
cat >"$tmp/bin/logger" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/logger.log"
EOF
chmod +x "$tmp/bin/"*
# What slurmd runs: settings from a file (slurmd passes almost no environment); gpu01 is
# left to the runs by hand.
# The settings file starts as the example contrib/slurm/p2ps-healthcheck.default.
cp "$top/contrib/slurm/p2ps-healthcheck.default" "$tmp/hc.conf"
echo "P2PS_HC_BAR_INSPECT=$tmp/bin/fake-bar-inspect" >>"$tmp/hc.conf"
cat >"$tmp/hc-slurmd.sh" <<EOF
#!/bin/sh
[ "\$SLURMD_NODENAME" = gpu01 ] && exit 0
PATH=$tmp/bin:/usr/bin:/bin SLURM_CONF=$tmp/cluster/slurm.conf P2PS_HC_CONFIG=$tmp/hc.conf \
	exec "$hc"
EOF
chmod +x "$tmp/hc-slurmd.sh"

# slurm.conf: the documented lines (contrib/slurm/p2ps-healthcheck.slurm.conf) with this
# test's program and a 1 s interval, and the Prolog.
snippet=$(sed -e "s|^HealthCheckProgram=.*|HealthCheckProgram=$tmp/hc-slurmd.sh|" \
	-e 's|^HealthCheckInterval=.*|HealthCheckInterval=1|' \
	"$top/contrib/slurm/p2ps-healthcheck.slurm.conf")
grep -q "^HealthCheckProgram=$tmp/hc-slurmd.sh" <<<"$snippet" ||
	{ echo "FAIL: no HealthCheckProgram line in p2ps-healthcheck.slurm.conf"; exit 1; }
slurm_cluster_start "$tmp/cluster" "$snippet
Prolog=$tmp/hc-slurmd.sh" gpu01 gpu02 gpu03 || exit 1

# state NODE: "STATE|REASON" as sinfo prints them (drained, idle...; the reason). The
# "*" sinfo adds to a node not responding yet is left out: slurmctld marks a node so when
# it is resumed, until its next ping.
state() {
	sinfo -h -N -n "$1" -o '%T|%E' | head -n 1 | sed 's/^\([a-z]*\)\*|/\1|/'
}
# wait_state NODE PATTERN [SECONDS]: until state() matches the extended regex.
wait_state() {
	local i
	for i in $(seq $((${3:-10} * 4))); do
		[[ $(state "$1") =~ $2 ]] && return 0
		sleep 0.25
	done
	return 1
}
# run STEP [VAR=VALUE...]: the script by hand on gpu01 as slurmd runs it; sets rc.
run() {
	local step=$1
	shift
	: >"$tmp/logger.log"
	env -i SLURMD_NODENAME=gpu01 SLURM_CONF="$SLURM_CONF" PATH="$tmp/bin:/usr/bin:/bin" \
		P2PS_HC_CONFIG=/nonexistent P2PS_HC_BAR_INSPECT="$tmp/bin/fake-bar-inspect" "$@" \
		"$hc" >"$tmp/out.$step" 2>&1
	rc=$?
}
# expect STEP STATE-REGEX: gpu01's state after the step (waiting for slurmctld).
expect() {
	wait_state gpu01 "$2" 10 ||
		bad "step $1: gpu01 is '$(state gpu01)', expected /$2/ ($(cat "$tmp/out.$1"))"
}
logged() { # STEP REGEX: the run logged a line through logger
	grep -Eq -- "^-t p2ps-healthcheck -p daemon\.[a-z]+ -- $2" "$tmp/logger.log" ||
		bad "step $1: logger got no line /$2/: $(cat "$tmp/logger.log")"
}
set_rc() { # bi|fn NODE CODE
	echo "$3" >"$tmp/rc/.$1.$2.$$" && mv -f "$tmp/rc/.$1.$2.$$" "$tmp/rc/$1.$2"
}

blocker="GPU0 0000:18:00.0: BAR1 \(256M\) is smaller than VRAM \(80G\): a peer cannot reach all of it"

# 1. Every pair ready: nothing changes.
set_rc bi gpu01 0
run 1
[ "$rc" -eq 0 ] || bad "step 1: exit $rc"
expect 1 '^idle\|none$'
logged 1 "node gpu01: every check passed"
grep -qx -- "--check" "$tmp/bi-args" || bad "step 1: bar-inspect ran as '$(cat "$tmp/bi-args")'"

# 2. A blocker: drained, the reason is the first blocker line.
set_rc bi gpu01 1
run 2
[ "$rc" -eq 0 ] || bad "step 2: exit $rc (a HealthCheckProgram exits 0)"
expect 2 "^drained\|p2pscope: bar-inspect: $blocker\$"
scontrol show node gpu01 | grep -Eq "^ +State=IDLE\+DRAIN .*" || bad "step 2: scontrol: $(scontrol show node gpu01 | grep State=)"
scontrol show node gpu01 | grep -Eq "^ +Reason=p2pscope: bar-inspect: $blocker \[root@" ||
	bad "step 2: scontrol: $(scontrol show node gpu01 | grep Reason=)"
logged 2 "node gpu01: drained: bar-inspect: $blocker"

# 3. Ready again: the node this script drained is resumed.
set_rc bi gpu01 0
run 3
expect 3 '^idle\|none$'
logged 3 "node gpu01: every check passed, resumed \(was: p2pscope: bar-inspect: "

# 4. A verdict unknown, the default policy: logged, not drained.
set_rc bi gpu01 3
run 4
[ "$rc" -eq 0 ] || bad "step 4: exit $rc"
expect 4 '^idle\|none$'
logged 4 "node gpu01: unknown: bar-inspect: GPU0 0000:18:00.0: IOMMU mode unknown: .* \(P2PS_HC_ON_UNKNOWN=log: not drained\)"

# 5. Unknown with P2PS_HC_ON_UNKNOWN=drain: drained; then resumed.
run 5 P2PS_HC_ON_UNKNOWN=drain
expect 5 "^drained\|p2pscope: unknown: bar-inspect: GPU0 0000:18:00.0: IOMMU mode unknown"
set_rc bi gpu01 0
run 5b P2PS_HC_ON_UNKNOWN=drain
expect 5b '^idle\|none$'

# 6. The functional check: broken drains (bar-inspect says ready), works resumes,
#    unknown only logs.
fn="P2PS_HC_FUNCTIONAL=$tmp/bin/fake-functional --quiet"
set_rc fn gpu01 1
run 6 "$fn"
expect 6 "^drained\|p2pscope: functional: GPU0 -> GPU1: 12 words of the peer copy differ\$"
set_rc fn gpu01 0
run 6b "$fn"
expect 6b '^idle\|none$'
set_rc fn gpu01 3
run 6c "$fn"
expect 6c '^idle\|none$'
logged 6c "node gpu01: unknown: functional: no CUDA device visible"
set_rc fn gpu01 0

# 7. Drained by an administrator: neither resumed nor given another reason.
scontrol update nodename=gpu01 state=drain reason="PSU swap"
wait_state gpu01 '^drained\|PSU swap$' 10 || bad "step 7: the administrator's drain: $(state gpu01)"
run 7
expect 7 '^drained\|PSU swap$'
set_rc bi gpu01 1
run 7b
expect 7b '^drained\|PSU swap$'
logged 7b "node gpu01: bar-inspect: .* \(already drained for another reason, left as it is\)"
scontrol update nodename=gpu01 state=resume
wait_state gpu01 '^idle\|none$' 10 || bad "step 7: resume by hand: $(state gpu01)"
set_rc bi gpu01 0

# 8. No bar-inspect: the check could not run; logged, not drained.
run 8 P2PS_HC_BAR_INSPECT=/nonexistent/bar-inspect
expect 8 '^idle\|none$'
logged 8 "node gpu01: check failed: bar-inspect: command not found: /nonexistent/bar-inspect"

# 9. As a Prolog (SLURM_JOB_ID set): exit 1 after draining, so that Slurm requeues the
#    job; 0 when every check passes.
set_rc bi gpu01 1
run 9 SLURM_JOB_ID=42
[ "$rc" -eq 1 ] || bad "step 9: Prolog exit $rc after a drain, expected 1"
set_rc bi gpu01 0
run 9b SLURM_JOB_ID=42
[ "$rc" -eq 0 ] || bad "step 9b: Prolog exit $rc when ready, expected 0"
expect 9b '^idle\|none$'

# 10. Bad settings: exit 2 with one line.
run 10 P2PS_HC_ON_UNKNOWN=reboot
[ "$rc" -eq 2 ] && grep -q "P2PS_HC_ON_UNKNOWN is 'reboot' (log or drain)" "$tmp/out.10" ||
	bad "step 10: exit $rc: $(cat "$tmp/out.10")"

# 11. gpu02 through slurmd's own HealthCheckProgram runs: drained, then resumed.
set_rc bi gpu02 1
wait_state gpu02 "^drained\|p2pscope: bar-inspect: $blocker\$" 20 ||
	bad "step 11: slurmd's health check did not drain gpu02: $(state gpu02)"
set_rc bi gpu02 0
wait_state gpu02 '^idle\|none$' 20 || bad "step 11: slurmd's health check did not resume gpu02: $(state gpu02)"

# 12. gpu03: the Prolog before a job finds a blocker; the job does not run there.
set_rc bi gpu03 1
start=$SECONDS
timeout 60 srun -w gpu03 -t 1 touch "$tmp/job-ran" >"$tmp/srun.log" 2>&1
src=$?
echo "srun on gpu03 with a blocker: exit $src in $((SECONDS - start)) s"
[ "$src" -ne 0 ] || bad "step 12: srun succeeded on gpu03"
[ ! -e "$tmp/job-ran" ] || bad "step 12: the job ran on gpu03"
wait_state gpu03 '^drain' 20 || bad "step 12: gpu03 not drained after the Prolog: $(state gpu03)"
echo "gpu03 after the Prolog: $(state gpu03)"
scancel -w gpu03 >/dev/null 2>&1
squeue -h -o '%i' | xargs -r scancel >/dev/null 2>&1

if [ "$fail" -ne 0 ]; then
	tail -n 20 "$tmp/cluster/log/slurmctld.log"
	cat "$tmp/srun.log" 2>/dev/null
	exit 1
fi
echo "slurm_healthcheck: 12 steps on 3 nodes passed"
