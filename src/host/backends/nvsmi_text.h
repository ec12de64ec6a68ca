/* SPDX-License-Identifier: MIT */
/* The nvidia-smi text syntaxes, read once for every user: `nvidia-smi -q` (per-GPU
 * sections, nested "Key : value" lines) and the GPU matrices of `nvidia-smi topo -m` and
 * `topo -p2p` ("GPU0 GPU1 ..." header, one row per GPU). The snapshot backend and the
 * paste reader both consume these records; text may separate lines with '\n' or '\0'
 * (the paste's normalised buffer). */
#ifndef P2PS_NVSMI_TEXT_H
#define P2PS_NVSMI_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/host.h"

/* One GPU section of nvidia-smi -q (or, for grep'd output, one run of its lines). Line
 * numbers are 0-based offsets from the first line of the text. */
struct p2ps_nvsmi_rec {
	int index;      /* section order: nvidia-smi's GPU index */
	bool bdf_known; /* "GPU 00000000:01:00.0" or "Bus Id" */
	struct p2ps_bdf bdf;
	int line;         /* the section line (or first line of the run) */
	char product[96]; /* Product Name */
	bool fb_known;    /* FB Memory Usage / Total */
	uint64_t fb;
	int fb_line;
	bool bar1_known; /* BAR1 Memory Usage / Total */
	uint64_t bar1;
	int bar1_line;
	struct p2ps_link link_max; /* PCIe Generation / Link Width, Max and Current */
	struct p2ps_link link_cur;
	int link_line;
	int display_active; /* 1 Enabled, 0 Disabled, -1 not printed */
	/* Fabric / State: 1 "Completed" (the GPU registered with an NVLink fabric: its links
	 * end at NVSwitches), 0 another value ("N/A" without one), -1 not printed. */
	int fabric;
};

typedef void (*p2ps_nvsmi_rec_fn)(void *arg, const struct p2ps_nvsmi_rec *r);

/* Reads nvidia-smi -q text, calling fn once per GPU. driver (size bytes, may be NULL)
 * receives "Driver Version". Linear; never fails (unknown lines are skipped). */
void p2ps_nvsmi_q_read(const char *text, size_t len, p2ps_nvsmi_rec_fn fn, void *arg, char *driver,
                       size_t size);

#define P2PS_NVSMI_CELL     12
#define P2PS_NVSMI_MAX_GPUS 64 /* columns a matrix may have */

/* A topo -m / topo -p2p matrix: n GPU columns, cells row-major ("" where absent). */
struct p2ps_nvsmi_matrix {
	int n;
	char (*cell)[P2PS_NVSMI_CELL]; /* n*n, malloc'ed; free() it */
	int rows;                      /* GPU rows read */
	int header_line;               /* 0-based line of the header, -1 none */
	bool ragged;  /* a row had fewer cells than the header has GPU columns, or an
	               * index outside it */
	bool p2p;     /* the cells are -p2p statuses (OK, CNS, GNS, TNS, NS, DR, U) */
	char why[96]; /* first problem found, "" if none */
};

/* Reads the first matrix of text. Returns 0 with *m filled (m->n == 0 when no header was
 * found), or P2PS_ENOMEM. */
int p2ps_nvsmi_matrix_read(const char *text, size_t len, struct p2ps_nvsmi_matrix *m);

/* NV# cells of an n x n topo -m matrix as NVLink peers: gpus[i] is the device of GPUi
 * (NULL when the source has none). A row with a cell for another GPU makes NVLink known. */
void p2ps_nvsmi_nvlinks(int n, const char (*cell)[P2PS_NVSMI_CELL], struct p2ps_dev *const *gpus);

#endif
