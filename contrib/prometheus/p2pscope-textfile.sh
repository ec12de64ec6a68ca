#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes bar-inspect's Prometheus metrics for node_exporter's textfile collector, atomically:
# into a temporary file in the collector's directory (a name node_exporter ignores: it reads
# only *.prom), then renamed over the old one, so a scrape sees the old file or the new one,
# never half of one. On failure the temporary file is removed and the old file is left, so
# node_textfile_mtime_seconds shows how stale it is (see p2pscope-alerts.yml).
#
#   p2pscope-textfile.sh [DIR [BAR-INSPECT-OPTION...]]
#
# DIR defaults to $TEXTFILE_DIR, else /var/lib/prometheus/node-exporter (Debian's
# --collector.textfile.directory); the file is DIR/p2pscope.prom. BAR_INSPECT names the
# binary (default: bar-inspect on PATH). Options after DIR go to bar-inspect (--root DIR to
# report a snapshot, --no-nvml, ...).
set -u
dir=${1:-${TEXTFILE_DIR:-/var/lib/prometheus/node-exporter}}
[ $# -gt 0 ] && shift
bi=${BAR_INSPECT:-bar-inspect}
tmp=$(mktemp "$dir/.p2pscope.prom.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT HUP INT TERM
if ! "$bi" --prometheus "$@" >"$tmp"; then
	echo "p2pscope-textfile: $bi --prometheus failed; $dir/p2pscope.prom left as it was" >&2
	exit 1
fi
chmod 0644 "$tmp" && mv -f "$tmp" "$dir/p2pscope.prom"
