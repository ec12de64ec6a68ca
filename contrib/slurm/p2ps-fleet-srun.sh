#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# p2ps-fleet-srun.sh — bar-inspect on every node of a Slurm allocation, one task per
# node (srun --ntasks-per-node=1), the reports collected on this host and summarised
# with bar-inspect --fleet (docs/fleet.md).
#
# Usage: p2ps-fleet-srun.sh [-o DIR] [--bar-inspect PATH] [--control-bar-inspect PATH]
#                           [--task-cmd CMD] [-- SRUN-ARGS...]
#
#   -o DIR                  results (default ./p2ps-fleet): reports/<node>.json,
#                           expected-hosts.txt, summary.txt, summary.json, summary.csv
#   --bar-inspect PATH      bar-inspect on the nodes (default: bar-inspect on PATH)
#   --control-bar-inspect P bar-inspect on this host for the summary (default: the same)
#   --task-cmd CMD          what each task runs instead of "PATH --json" (a shell
#                           command; $SLURMD_NODENAME names the node), e.g.
#                           "sudo -n bar-inspect --json" (see below)
#   SRUN-ARGS               passed to srun: inside an allocation (salloc, sbatch) none
#                           are needed; outside one, say which nodes (-N 16 -p gpu)
#
# The reports travel through srun's own output, labelled per task (--label), so no
# shared file system is needed: each task prints "#p2ps-node NAME" and its report, and
# this script splits the stream by task. Nodes of the allocation without a report (the
# task failed, bar-inspect is missing) are listed as missing in the summary.
#
# Root: tasks run as the job's user, and without root the kernel shows only 64 bytes of
# config space (ACS, Resizable BAR and link registers unknown: verdicts say "unknown").
# For full reports run the job as root, or allow the one command through sudo, e.g.
#   /etc/sudoers.d/p2ps: ALL ALL=(root) NOPASSWD: /usr/local/bin/bar-inspect --json
# and pass --task-cmd "sudo -n /usr/local/bin/bar-inspect --json". bar-inspect only
# reads; the nodes are not changed.
#
# Exit status: bar-inspect --fleet's (0 all nodes reported, 1 skipped or missing
# reports), or 2 when srun or the summary could not run.
set -uo pipefail

out=./p2ps-fleet
bi=bar-inspect
control_bi=""
task_cmd=""
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--bar-inspect) bi=$2; shift 2 ;;
	--control-bar-inspect) control_bi=$2; shift 2 ;;
	--task-cmd) task_cmd=$2; shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '2,35p' "$0"; exit 0 ;;
	*) echo "p2ps-fleet-srun.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
control_bi=${control_bi:-$bi}
task_cmd=${task_cmd:-"$(printf '%q' "$bi") --json"}
command -v srun >/dev/null || { echo "p2ps-fleet-srun.sh: srun not found" >&2; exit 2; }

mkdir -p "$out/reports" || exit 2
rm -f "$out"/reports/*.json

# One task per node; the marker names the node, whatever happens to bar-inspect after it.
# shellcheck disable=SC2016  # $SLURMD_NODENAME is expanded by each task, not here
srun --ntasks-per-node=1 --label "$@" \
	bash -c 'printf "#p2ps-node %s\n" "${SLURMD_NODENAME:-$(hostname -s)}"; '"$task_cmd" \
	>"$out/srun.out" 2>"$out/srun.err"
srun_rc=$?
[ "$srun_rc" -eq 0 ] || echo "p2ps-fleet-srun.sh: srun exit status $srun_rc" \
	"(a task failed; its node shows as missing): $out/srun.err" >&2

# Split "TASK: line" by task into reports/<node>.json; list every node that ran a task.
awk -v dir="$out/reports" -v nodes="$out/task-nodes.txt" '
	match($0, /^ *[0-9]+: /) {
		id = substr($0, 1, RLENGTH - 2) + 0
		line = substr($0, RLENGTH + 1)
		if (line ~ /^#p2ps-node /) { node[id] = substr(line, 12); next }
		text[id] = text[id] line "\n"
	}
	END {
		for (id in node) print node[id] > nodes
		for (id in text) {
			name = (id in node) ? node[id] : "task" id
			printf "%s", text[id] > (dir "/" name ".json")
		}
	}' "$out/srun.out" || exit 2

# Expected: the allocation's nodes (when inside one) and every node that ran a task.
{
	[ -n "${SLURM_JOB_NODELIST:-}" ] && scontrol show hostnames "$SLURM_JOB_NODELIST"
	[ -f "$out/task-nodes.txt" ] && cat "$out/task-nodes.txt"
} | sort -u >"$out/expected-hosts.txt"

status=0
for fmt in txt json csv; do
	flag=""
	[ "$fmt" = json ] && flag=--json
	[ "$fmt" = csv ] && flag=--csv
	# shellcheck disable=SC2086
	"$control_bi" --fleet $flag --expect "$out/expected-hosts.txt" "$out/reports" \
		>"$out/summary.$fmt"
	rc=$?
	[ "$rc" -le "$status" ] || status=$rc
done
cat "$out/summary.txt"
exit "$status"
