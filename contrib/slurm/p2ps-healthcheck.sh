#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# p2ps-healthcheck.sh — gates a Slurm node on GPU peer-to-peer readiness: runs
# `bar-inspect --check` (and, when configured, a functional GPU check with the same exit
# codes), drains the node when a check finds it broken and resumes it once every check
# passes again, but only when this script drained it (docs/slurm.md).
#
# Usage (no arguments; slurmd runs it as root):
#   slurm.conf: HealthCheckProgram=/usr/local/sbin/p2ps-healthcheck.sh   (periodic)
#               Prolog=/usr/local/sbin/p2ps-healthcheck.sh               (before each job)
#
# Checks and their exit codes: 0 works / every pair ready, 1 broken / a blocker,
# 3 unknown, 2 error (the check could not run; a check killed by the timeout counts as 2).
# What the script does with the worst result:
#   1      drains the node: scontrol update nodename=NODE state=drain
#          reason="p2pscope: <the first blocker line>"
#   3, 2   P2PS_HC_ON_UNKNOWN=log (default): logs only; =drain: drains as for 1
#   0      resumes the node when it is drained with a reason this script wrote
#          (the prefix "p2pscope:"); a node drained for another reason is left alone
# Every run logs one line through logger (tag p2ps-healthcheck, facility daemon).
#
# Settings: environment variables, or the same names in the file P2PS_HC_CONFIG
# (default /etc/default/p2ps-healthcheck, read when it exists; a shell fragment):
#   P2PS_HC_BAR_INSPECT   the bar-inspect command (default: bar-inspect on PATH)
#   P2PS_HC_ARGS          more arguments for bar-inspect --check (e.g. --peers BDF,...)
#   P2PS_HC_FUNCTIONAL    a functional check command line, run by sh -c with the same
#                         exit codes, e.g. "p2p-bench check --quiet" (default: none)
#   P2PS_HC_ON_UNKNOWN    log | drain: what a 3 (unknown) or 2 (error) does (default log)
#   P2PS_HC_TIMEOUT       seconds each check may take (default 50: slurmd kills a
#                         HealthCheckProgram after 60)
#   P2PS_HC_NODE          the Slurm node name (default: SLURMD_NODENAME, which slurmd
#                         sets, else the short host name)
#   P2PS_HC_MODE          healthcheck | prolog (default: prolog in slurmd's Prolog
#                         environment, SLURM_SCRIPT_CONTEXT or SLURM_JOB_ID set)
#
# Exit status: as a HealthCheckProgram 0 whatever it found (the action is the drain;
# slurmd ignores the status, and newer slurmd waits at start-up for a 0); as a Prolog 1
# when it left the node drained, so that Slurm requeues the job instead of starting it
# on this node, else 0; 2 on bad settings.
set -uo pipefail

# slurmd starts it without PATH: bash's default is not exported to the commands it runs
# (which would then miss /usr/local/bin) and ends in ".". Absolute folders only, the
# standard ones appended.
path=
IFS=: read -r -a dirs <<<"${PATH:-}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
for d in "${dirs[@]}"; do
	case $d in /*) [[ ":$path:" == *":$d:"* ]] || path=${path:+$path:}$d ;; esac
done
export PATH=$path

tag=p2ps-healthcheck
prefix="p2pscope:"
config=${P2PS_HC_CONFIG:-/etc/default/p2ps-healthcheck}
if [ -r "$config" ]; then
	# shellcheck source=/dev/null
	. "$config"
fi
bi=${P2PS_HC_BAR_INSPECT:-bar-inspect}
bi_args=${P2PS_HC_ARGS:-}
functional=${P2PS_HC_FUNCTIONAL:-}
on_unknown=${P2PS_HC_ON_UNKNOWN:-log}
timeout_s=${P2PS_HC_TIMEOUT:-50}
node=${P2PS_HC_NODE:-${SLURMD_NODENAME:-$(hostname -s)}}
mode=${P2PS_HC_MODE:-}
if [ -z "$mode" ]; then
	mode=healthcheck
	# slurmd's Prolog environment: SLURM_SCRIPT_CONTEXT=prolog_slurmd (Slurm 21.08 and
	# later) and the job's SLURM_JOB_ID; a HealthCheckProgram gets neither.
	[ -z "${SLURM_SCRIPT_CONTEXT:-}${SLURM_JOB_ID:-}" ] || mode=prolog
fi

# log PRIORITY MESSAGE: one line to syslog (and standard error, which a run by hand shows).
log() {
	echo "$tag: $2" >&2
	command -v logger >/dev/null && logger -t "$tag" -p "daemon.$1" -- "$2" 2>/dev/null
	return 0
}

case $on_unknown in log | drain) ;; *) log err "P2PS_HC_ON_UNKNOWN is '$on_unknown' (log or drain)"; exit 2 ;; esac
case $mode in healthcheck | prolog) ;; *) log err "P2PS_HC_MODE is '$mode' (healthcheck or prolog)"; exit 2 ;; esac
case $timeout_s in '' | *[!0-9]*) log err "P2PS_HC_TIMEOUT is '$timeout_s' (seconds)"; exit 2 ;; esac

# run_check NAME CMD...: runs one check; sets rc (0, 1, 3, or 2 for anything else) and
# why (the line that explains a 1 or 3: its first "blocker"/"unknown" line, else its first
# line of output).
run_check() {
	local name=$1 out
	shift
	out=$(timeout "$timeout_s" "$@" 2>&1)
	rc=$?
	case $rc in
	0 | 1 | 3) ;;
	124) out="timed out after $timeout_s s" rc=2 ;;
	127) out="command not found: $1" rc=2 ;;
	*) rc=2 ;;
	esac
	why=
	case $rc in
	1) why=$(sed -n 's/^[[:space:]]*blocker[[:space:]]\{1,\}//p' <<<"$out" | head -n 1) ;;
	3) why=$(sed -n 's/^[[:space:]]*unknown[[:space:]]\{1,\}//p' <<<"$out" | head -n 1) ;;
	esac
	[ -n "$why" ] || why=$(grep -m 1 -v '^[[:space:]]*$' <<<"$out")
	why="$name: ${why:-exit $rc, no output}"
}

# The worst result decides: 1 (broken) over 2 and 3 (not known), over 0.
worst=0 worst_why="every check passed"
note_result() {
	case "$worst:$rc" in
	1:*) ;;
	*:1 | 0:[23]) worst=$rc worst_why=$why ;;
	esac
}

read -r -a bi_extra <<<"$bi_args"
run_check bar-inspect "$bi" --check "${bi_extra[@]}"
note_result
if [ -n "$functional" ]; then
	run_check functional sh -c "$functional"
	note_result
fi

# The node's state and reason as slurmctld has them.
node_info=$(scontrol show node "$node" 2>&1) || {
	log err "node $node: scontrol show node failed: $node_info"
	exit 2
}
state=$(sed -n 's/^[[:space:]]*State=\([^ ]*\).*/\1/p' <<<"$node_info")
# "Reason=TEXT [user@time]" on a line of its own
reason=$(sed -n 's/^[[:space:]]*Reason=//p' <<<"$node_info")
drained=0
[[ $state == *DRAIN* ]] && drained=1
ours=0
[[ $reason == "$prefix"* ]] && ours=1

# drain WHY: drains the node with our reason (a reason another writer set stays).
drain() {
	local text="$prefix $1"
	text=${text:0:200}
	if [ "$drained" -eq 1 ] && [ "$ours" -eq 0 ]; then
		log warning "node $node: $1 (already drained for another reason, left as it is)"
		return
	fi
	if scontrol update nodename="$node" state=drain reason="$text"; then
		log warning "node $node: drained: $1"
	else
		log err "node $node: $1; scontrol could not drain it"
	fi
}

status=0
case $worst in
0)
	if [ "$drained" -eq 1 ] && [ "$ours" -eq 1 ]; then
		if scontrol update nodename="$node" state=resume; then
			log notice "node $node: every check passed, resumed (was: ${reason% \[*})"
		else
			log err "node $node: every check passed; scontrol could not resume it"
		fi
	else
		log info "node $node: every check passed"
	fi
	;;
1)
	drain "$worst_why"
	status=1
	;;
*)
	what=unknown
	[ "$worst" -eq 2 ] && what="check failed"
	if [ "$on_unknown" = drain ]; then
		drain "$what: $worst_why"
		status=1
	else
		log notice "node $node: $what: $worst_why (P2PS_HC_ON_UNKNOWN=log: not drained)"
	fi
	;;
esac
[ "$mode" = prolog ] && exit $status
exit 0
