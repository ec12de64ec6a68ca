/* SPDX-License-Identifier: MIT */
/* A fake NVIDIA RM for tests: a p2ps_rm_sys backend that keeps its own books of the
 * objects, descriptors and mappings a client makes, answers the probe's controls with fixed
 * values, and can fail any one call on purpose. The books are the independent witness that
 * the client releases everything: after a run they must be empty, whichever call failed.
 *
 * Struct offsets are the 580 series' (the fake says it runs 580.159.04). */
#ifndef FAKE_RM_H
#define FAKE_RM_H

#include <stdbool.h>
#include <stdint.h>

#include "p2pscope/rm.h"

#define FAKE_MAX_OBJS 256

enum fake_fail {
	FAKE_FAIL_NONE = 0,
	FAKE_FAIL_IOCTL,  /* the call itself fails (errno), as for a wrong struct size */
	FAKE_FAIL_STATUS, /* the call works and the RM status is NV_ERR_GENERIC */
};

struct fake_obj {
	uint32_t handle, parent, cls;
	bool live;
};

struct fake_map {
	uint32_t hdma, hmem; /* hdma 0: a CPU mapping */
	uint64_t va;
	bool live;
};

#define FAKE_MAX_MAPS 128

struct fake_rm {
	/* Set up by the test. */
	const char *version; /* the version file's text */
	bool root;
	unsigned gpus;    /* cards listed (1 or 2) */
	unsigned fail_at; /* 1-based index of the call to fail (open, escape, mmap), 0: none */
	enum fake_fail fail_mode;
	/* Cards at 0000:00:06.0, 0000:00:07.0 (the 2 x H200 snapshot) instead of 41:00.0, 42:00.0,
	 * and their NVLinks: 0 none, 1 two links to each other, 2 18 links to NVSwitches. */
	bool h200_slots;
	int nvlink_mode;
	/* NV50_P2P's answer where the params have room (590+): l2p/p2lFabricP2PInfo.gpa. */
	uint64_t fabric_gpa[2];
	/* The books. */
	unsigned calls, escapes;
	struct fake_obj objs[FAKE_MAX_OBJS];
	unsigned n_objs;
	int fds_open, dma_maps, cpu_maps, mmaps;
	unsigned bad_frees; /* frees of unknown handles or of parents with live children */
	/* What RM releases by itself: the subtree of a freed object (and the mappings of
	 * freed memory), the client when its descriptor closes. The probe should never
	 * leave work to these except where the call that would have done it failed. */
	unsigned implicit_frees, implicit_unmaps;
	bool failed_release; /* the failed call was a free or an unmap */
	struct fake_map maps[FAKE_MAX_MAPS];
	unsigned n_maps;
	int ctl_fd;
	unsigned escapes_by_nr[256];
	uint32_t controls[64]; /* commands seen, in order */
	unsigned n_controls;
	uint64_t next_va;
	unsigned p2p_caps_calls; /* GET_P2P_CAPS_V2 answered */
};

void fake_rm_init(struct fake_rm *f, struct p2ps_rm_sys *sys);
/* Objects still live (the root client included). */
unsigned fake_rm_live(const struct fake_rm *f);

#endif
