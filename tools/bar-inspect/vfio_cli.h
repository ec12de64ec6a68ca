/* bar-inspect's VFIO options: --vfio, --vfio-flow, --read-reg, --map-peer.
 * main.c keeps one struct bi_vfio_cli in its option state, forwards the four
 * option handlers here and, when bi_vfio_wanted(), hands the whole run to
 * bi_vfio_run() (load through VFIO, the usual report, then the VFIO sections). */
#ifndef BAR_INSPECT_VFIO_CLI_H
#define BAR_INSPECT_VFIO_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/host.h"
#include "p2pscope/render.h"
#include "p2pscope/vfio.h"

struct bi_vfio_cli {
	char devices[512];        /* --vfio BDF[,BDF...] (plus --map-peer's two) */
	bool vfio;                /* --vfio given */
	enum p2ps_vfio_flow flow; /* --vfio-flow */
	bool read_reg;            /* --read-reg given */
	unsigned reg_bar;
	uint64_t reg_off;
	bool map_peer; /* --map-peer given */
	char peer_a[16], peer_b[16];
	int peer_bar; /* -1: the largest mmappable BAR */
};

/* Option handlers: 0, or -1 with a one-line message in err. */
int bi_vfio_opt_vfio(struct bi_vfio_cli *v, const char *arg, char *err, size_t err_size);
int bi_vfio_opt_flow(struct bi_vfio_cli *v, const char *arg, char *err, size_t err_size);
int bi_vfio_opt_read_reg(struct bi_vfio_cli *v, const char *arg, char *err, size_t err_size);
int bi_vfio_opt_map_peer(struct bi_vfio_cli *v, const char *arg, char *err, size_t err_size);

/* True when any VFIO option was given. */
bool bi_vfio_wanted(const struct bi_vfio_cli *v);

/* The whole run with VFIO options: returns the process exit status (0, or 2
 * after printing one line to stderr). json/dot pick the output format; ao (may be
 * NULL) carries the analysis options such as --peers. */
int bi_vfio_run(struct bi_vfio_cli *v, struct p2ps_host_source *src,
                const struct p2ps_render_opts *ro, const struct p2ps_analysis_opts *ao, bool json,
                bool dot);

#endif
