#!/bin/sh
# SPDX-License-Identifier: MIT
# p2pscope-node: checks this Kubernetes node with bar-inspect every P2PS_INTERVAL seconds
# and publishes the result where the node's agents read it (docs/kubernetes.md):
#   - node-feature-discovery's labels (bar-inspect --nfd) in P2PS_FEATURES_DIR/p2pscope,
#     with an expiry time (P2PS_EXPIRY seconds on), so that the labels of a node whose
#     checks stopped go away;
#   - Prometheus metrics (bar-inspect --prometheus) in P2PS_TEXTFILE_DIR/p2pscope.prom for
#     node_exporter's textfile collector, through contrib/prometheus/p2pscope-textfile.sh.
# Each file is written under a name its reader ignores (a dot name; not *.prom) and then
# renamed over the old one, so a reader sees the old file or the new one, never half.
# When bar-inspect fails, the old file stays (and the labels expire); the script goes on.
#
# The container image runs it as the DaemonSet of contrib/kubernetes/p2pscope-daemonset.yaml.
# Environment:
#   P2PS_INTERVAL      seconds between checks (default 300); 0: check once and exit with
#                      bar-inspect's failure, if any
#   P2PS_FEATURES_DIR  default /etc/kubernetes/node-feature-discovery/features.d; empty:
#                      no labels
#   P2PS_TEXTFILE_DIR  default /var/lib/prometheus/node-exporter; empty: no metrics
#   P2PS_EXPIRY        seconds the labels stay valid (default three intervals, at least 600)
#   P2PS_ARGS          more bar-inspect options, split at blanks (--nvidia-facts nvml, or
#                      --root DIR to report a snapshot)
#   BAR_INSPECT        the binary (default bar-inspect on PATH)
#   P2PS_TEXTFILE_SH   contrib/prometheus/p2pscope-textfile.sh (default: found beside this
#                      script, in the image's or contrib/'s layout)
set -u
interval=${P2PS_INTERVAL:-300}
features=${P2PS_FEATURES_DIR-/etc/kubernetes/node-feature-discovery/features.d}
textfile=${P2PS_TEXTFILE_DIR-/var/lib/prometheus/node-exporter}
args=${P2PS_ARGS:-}
bi=${BAR_INSPECT:-bar-inspect}
# The textfile script: beside this one in the image (/usr/lib/p2pscope), or in contrib/.
here=$(dirname "$0")
textfile_sh=${P2PS_TEXTFILE_SH:-}
for c in "$here/../lib/p2pscope/p2pscope-textfile.sh" "$here/../prometheus/p2pscope-textfile.sh"; do
	[ -n "$textfile_sh" ] || [ ! -f "$c" ] || textfile_sh=$c
done
case $interval in '' | *[!0-9]*) echo "p2pscope-node: P2PS_INTERVAL '$interval' is no number of seconds" >&2; exit 2 ;; esac
expiry=${P2PS_EXPIRY:-$((interval * 3 > 600 ? interval * 3 : 600))}
case $expiry in '' | *[!0-9]* | 0) echo "p2pscope-node: P2PS_EXPIRY '$expiry' is no number of seconds" >&2; exit 2 ;; esac

# The labels into DIR/p2pscope: a dot file, which nfd-worker ignores, renamed when done.
labels() { # DIR
	tmp=$1/.p2pscope.tmp
	# shellcheck disable=SC2086 # P2PS_ARGS is split at blanks on purpose
	if "$bi" --nfd --nfd-expiry "$expiry" $args >"$tmp"; then
		mv -f "$tmp" "$1/p2pscope"
	else
		echo "p2pscope-node: $bi --nfd failed; $1/p2pscope left to expire" >&2
		rm -f "$tmp"
		return 1
	fi
}

# TERM (the pod stopping) ends the loop at once, with the wait's sleep.
# ($! is unset before the first wait: set -u would end the trap there.)
trap 'kill ${!:-} 2>/dev/null; exit 0' TERM INT
while :; do
	status=0
	if [ -n "$features" ]; then
		labels "$features" || status=1
	fi
	if [ -n "$textfile" ]; then
		# shellcheck disable=SC2086
		BAR_INSPECT=$bi sh "$textfile_sh" "$textfile" $args || status=1
	fi
	[ "$interval" -gt 0 ] || exit "$status"
	# In the background: the shell runs a trap only between commands, and wait is one.
	sleep "$interval" &
	wait $!
done
