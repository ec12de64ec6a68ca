/* SPDX-License-Identifier: MIT */
/* pte-probe as a library (src/probe, p2psprobe): what one run collects from the driver, what
 * libgmmu's model says about it, and the verdicts. One model, two renderings (the tool's
 * tools/pte-probe/text.c and json.c).
 *
 * A run has two phases. collect.c talks to the driver through p2pscope/rm.h: it maps the
 * plan's memory into its own VA space, asks GET_PDE_INFO/GET_PTE_INFO/GET_SURFACE_PHYS_ATTR
 * about every page and, as root, reads the tables page by page while walking them with
 * libgmmu's walker. compare.c then works on what was collected only: the model of the
 * driver's ordinary mappings (gmmu_drvmap.h) and of its peer mappings (gmmu_p2p_encode)
 * against every entry, leaf and directory, field by field.
 */
#ifndef P2PSCOPE_PROBE_H
#define P2PSCOPE_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/gmmu.h"
#include "p2pscope/gmmu_drvmap.h"
#include "p2pscope/gmmu_dump.h"
#include "p2pscope/gmmu_walk.h"
#include "p2pscope/nvidia_chips.h"
#include "p2pscope/nvidia_drivers.h"
#include "p2pscope/rm.h"
#include "p2pscope/rm_ctrl.h"

#define PROBE_MAX_MAPS   24
#define PROBE_MAX_PAGES  2 /* pages probed per mapping: the first and the second */
#define PROBE_MAX_DIFFS  8
#define PROBE_MAX_TABLES 5

enum probe_mem {
	PROBE_VID = 0,  /* this GPU's video memory */
	PROBE_SYS = 1,  /* system memory */
	PROBE_PEER = 2, /* the peer GPU's video memory (--peer) */
};

/* One allocation of the plan (several mappings may share it). */
struct probe_alloc {
	const char *name;
	enum probe_mem mem;
	unsigned page_shift; /* the page size it is made for */
	uint64_t size, align;
	uint32_t attr, attr2, flags, format;
	bool gpu_cached; /* system memory: ATTR2_GPU_CACHEABLE_YES */
};

/* One mapping of the plan. */
struct probe_spec {
	const char *name;  /* "vid-2m-ro" */
	const char *alloc; /* the allocation's name */
	unsigned page_shift;
	uint32_t map_flags; /* NVOS46 flags besides the page size */
	const char *what;   /* "read-only", "GPU-uncached", "coherent" ... */
};

/* What the driver said about one page. */
struct probe_table {
	uint64_t page_size, pa;
	uint32_t entry_size, aspace; /* NV0080_CTRL_DMA_GET_PDE_INFO_PARAMS_PTE_ADDR_SPACE_* */
};

struct probe_page {
	uint64_t va, offset; /* GPU VA, and offset in the allocation */
	bool phys_known;     /* GET_SURFACE_PHYS_ATTR answered */
	uint64_t phys;
	uint32_t phys_kind, phys_status;
	uint32_t pde_status; /* GET_PDE_INFO */
	uint64_t pdb;
	struct probe_table tables[PROBE_MAX_TABLES];
	unsigned n_tables;
	uint32_t pte_status; /* GET_PTE_INFO */
	struct {
		uint64_t page_size;
		uint32_t kind, flags;
	} pte_info[PROBE_MAX_TABLES];
	unsigned n_pte_info;
	/* Analysis: the PTE found by the walk, and the verdict of GET_PTE_INFO's fields. */
	int pte;              /* index into run.entries, -1: none found */
	bool pte_info_agrees; /* when pte_status is NV_OK */
	char pte_info_diff[128];
};

enum probe_state {
	PROBE_SKIPPED = 0, /* not in this run (page size not asked for, no peer) */
	PROBE_FAILED,      /* the driver refused the allocation or the mapping */
	PROBE_MAPPED,
};

struct probe_map {
	const struct probe_spec *spec;
	const struct probe_alloc *alloc;
	enum probe_state state;
	char why[200];
	uint64_t va, size;
	uint32_t hmem;
	struct probe_page pages[PROBE_MAX_PAGES];
	unsigned n_pages;
	bool agrees; /* every entry on every page's path agrees */
};

/* One entry compared: a PTE, or a directory entry (8 or 16 bytes). */
struct probe_entry {
	bool pte;
	const struct gmmu_level *level;
	uint32_t index;
	enum p2ps_mem_space space;
	uint64_t entry_pa, va;
	uint64_t raw[2], model[2];
	const struct gmmu_entry_format *ef;
	bool modelled; /* a model exists (else `why` says why not) */
	unsigned n_diffs;
	struct gmmu_field_diff diffs[PROBE_MAX_DIFFS];
	const char *addr_source; /* "GET_PDE_INFO", "GET_SURFACE_PHYS_ATTR", "followed" ... */
	const char *owner;       /* mapping name, or NULL: no probed page below it */
	char why[160];
	/* Walk bookkeeping for dual PDEs: which halves were followed, and to where. */
	bool half_seen[3];
	enum p2ps_mem_space half_space[3];
	uint64_t half_pa[3];
};

#define PROBE_P2P_STATUS_N P2PS_NV_CAPS_COUNT /* NV0000_CTRL_P2P_CAPS_INDEX_TABLE_SIZE */

/* Where the fabric base of an NVLink peer's entries comes from. The driver adds the peer
 * GPU's NVSwitch fabric (GPA) base, assigned by the Fabric Manager, to every peer address
 * (dmaAllocMapping_GM107 -> _dmaGetFabricAddress(peer) -> _kgmmuEncodePeerAddrs); no base
 * without NVSwitch. NV503B reports it from 590 only; nothing read-only does before. */
enum probe_fabric_src {
	PROBE_FABRIC_NONE = 0,   /* not an NVLink peer: no base */
	PROBE_FABRIC_NV503B,     /* the driver's answer (p2lFabricP2PInfo, 590+) */
	PROBE_FABRIC_UNREPORTED, /* the driver reports none: to be taken from a peer entry */
	PROBE_FABRIC_INFERRED,   /* taken from the first peer entry (fabric_entry) */
	PROBE_FABRIC_UNKNOWN,    /* could not be taken (fabric_note says why): 0 assumed */
};

/* Where the static-BAR1 base + start of a BAR1-P2P peer's entries comes from. The driver
 * fills NV503B's window (kbusGetBar1P2PDmaInfo: the static BAR1's DMA address, start
 * included) for kernel clients only; otherwise the first peer entry less its FB offset,
 * held to the alignment the series gives the static BAR1. */
enum probe_bar1_src {
	PROBE_BAR1_NONE = 0,  /* not a BAR1-P2P peer */
	PROBE_BAR1_NV503B,    /* the driver's window (l2pBar1P2PDmaInfo) */
	PROBE_BAR1_INFERRED,  /* from the first peer entry (bar1_entry) */
	PROBE_BAR1_UNKNOWN,   /* could not be taken (bar1_note says why): the bus address assumed */
	PROBE_BAR1_PER_ENTRY, /* the row maps at a BAR1 offset allocated per mapping */
	PROBE_BAR1_NO_ROW,    /* no row, or the row writes no entry (bar1_note) */
};

/* The driver row the peer entries are judged by (bar1.c). */
struct probe_bar1 {
	const struct gmmu_bar1_row *row;
	char row_name[96];
	enum probe_bar1_src src;
	uint64_t bus;            /* the peer's BAR1 bus address (CARD_INFO) */
	uint64_t base;           /* the static BAR1 as the entries hold it: base + start */
	uint64_t start;          /* base - bus, when start_known */
	bool start_known;        /* false: the base is an IOVA (or the source says nothing) */
	unsigned align;          /* log2 of the alignment required of base */
	int entry;               /* PROBE_BAR1_INFERRED: index into run.entries */
	const char *from;        /* ... and its mapping's name */
	char note[240];          /* PROBE_BAR1_UNKNOWN, PROBE_BAR1_NO_ROW: why */
	bool peer_field_patched; /* the flavor's gmmuFmtPtePhysAddrFld(PEER) patch */
	/* The driver table's row for the series and flavor, and, when it is another series'
	 * (the fallback rule), its line ("... (assumed)"); "" otherwise. */
	const struct p2ps_nv_driver *drv;
	char assumed[224];
};

/* The peer (--peer): the second GPU and what the driver said about the pair. */
struct probe_peer {
	bool asked;
	unsigned index;
	struct p2ps_rm_gpu gpu;
	bool opened;
	uint32_t caps, caps_status, peer_id;            /* SYSTEM_GET_P2P_CAPS_V2: A -> B */
	uint8_t p2p_status_by_type[PROBE_P2P_STATUS_N]; /* p2pCapsStatus: read, write, nvlink .. */
	bool caps_known;
	uint32_t p2p; /* NV50_P2P handle */
	uint32_t p2p_status;
	uint64_t bar1_dma_address, bar1_dma_size; /* l2pBar1P2PDmaInfo */
	uint64_t fabric_reported;                 /* p2lFabricP2PInfo.gpa (590+), as answered */
	uint64_t fabric_base;                     /* the base the model adds (see fabric_src) */
	enum probe_fabric_src fabric_src;
	int fabric_entry;        /* PROBE_FABRIC_INFERRED: index into run.entries */
	const char *fabric_from; /* ... and its mapping's name */
	unsigned fabric_align;   /* log2 of the alignment the driver requires of a base */
	char fabric_note[160];   /* PROBE_FABRIC_UNKNOWN: why */
	enum gmmu_p2p_mode mode; /* which model the entries are checked against */
	struct probe_bar1 bar1;  /* BAR1-P2P: the row, base and start */
	char note[200];
};

struct probe_run {
	/* Inputs. */
	unsigned gpu_index;
	unsigned page_mask; /* bit per page shift asked for */
	const char *chip_override;
	enum p2ps_nv_flavor flavor; /* --flavor: whose driver wrote the peer entries */
	unsigned series;            /* --series: its series (0: the loaded driver's) */
	/* Collected. */
	struct p2ps_rm_driver driver;
	size_t n_cards;
	struct p2ps_rm_gpu gpu;
	const struct p2ps_nvidia_chip *chip; /* the chip's row (--chip or the driver's) */
	const struct gmmu_format *fmt;
	bool root;
	uint64_t pdb;
	bool pdb_known;
	struct probe_map maps[PROBE_MAX_MAPS];
	unsigned n_maps;
	struct probe_peer peer;
	/* Tables read (as root): pages of video memory, by the walk. */
	struct p2ps_mem_set mem;
	uint8_t **pages;
	size_t n_pages, cap_pages;
	bool walked;
	char walk_note[P2PS_ERROR_MSG_MAX];
	struct gmmu_walk_stats walk_stats;
	/* Entries found by the walk (PTEs and directory entries) and their verdicts. */
	struct probe_entry *entries;
	size_t n_entries, cap_entries;
	unsigned agree, differ, unmodelled, missing, extra;
	unsigned pte_info_agree, pte_info_differ; /* GET_PTE_INFO answers against the model */
	struct p2ps_rm_stats rm_stats;
};

/* The plan (plan.c): allocations and mappings, by chip format and peer. */
void probe_plan(struct probe_run *run);
const struct probe_alloc *probe_alloc_find(const char *name);
/* Whether the plan allocates pages of 1 << shift (what --page-sizes may ask for). */
bool probe_plan_has_page(unsigned shift);

/* Phase 1 (collect.c): everything that talks to the driver. Fills run; returns 0 or the
 * error that stopped the run (a partial run still has what it got). */
int probe_collect(struct probe_run *run, const struct p2ps_rm_sys *sys, struct p2ps_error *err);
int probe_peer_collect(struct probe_run *run, struct p2ps_rm *rm, const struct p2ps_rm_card *card,
                       struct p2ps_error *err);
/* Table reading and the walk (tables.c). */
int probe_walk(struct probe_run *run, struct p2ps_rm *rm, struct p2ps_error *err);
int probe_entry_add(struct probe_run *run, struct probe_entry **out, struct p2ps_error *err);
void probe_run_cleanup(struct probe_run *run);

/* Phase 2 (compare.c, peer.c): the model against every entry. */
int probe_compare(struct probe_run *run, struct p2ps_error *err);
int probe_peer_model(const struct probe_run *run, const struct probe_map *m,
                     const struct probe_page *p, struct probe_entry *e, struct p2ps_error *err);
/* An NVLink peer whose driver reports no fabric base: the base from the first peer PTE the
 * walk read (its address less the page's FB offset), held to the driver's rules. */
void probe_peer_fabric(struct probe_run *run);
/* A BAR1-P2P peer (or a flavor with the PEER-field patch): the driver row, then the static
 * BAR1's base and start from NV503B's window or the first peer entry (bar1.c). */
void probe_peer_bar1(struct probe_run *run);
const char *probe_bar1_src_name(enum probe_bar1_src s);
/* The BAR1 part of a peer entry's model: the row, the base + start (bar1.c). */
int probe_bar1_request(const struct probe_run *run, const struct probe_entry *e,
                       struct gmmu_drvmap_peer *rq, struct p2ps_error *err);
const char *probe_bar1_addr_source(const struct probe_run *run, const struct probe_entry *e);
/* The series whose row is used: --series, else the loaded driver's. */
unsigned probe_series(const struct probe_run *run);
/* The first peer PTE the walk read whose page's FB offset the driver reported (peer.c). */
int probe_first_peer_pte(const struct probe_run *run, const struct probe_map **mo,
                         const struct probe_page **po);
const char *probe_fabric_src_name(enum probe_fabric_src s);
/* The KIND the driver gives a plain video-memory allocation on this format. */
uint32_t probe_kind_generic(const struct gmmu_format *f);

/* Renderings (text.c, json.c). */
void probe_print_text(const struct probe_run *run, FILE *out);
int probe_print_json(const struct probe_run *run, FILE *out, struct p2ps_error *err);

/* Copies a message into a fixed buffer, cutting it short when it does not fit. */
static inline void probe_copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Helpers shared by the renderings. */
const char *probe_mem_name(enum probe_mem m);
const char *probe_state_name(enum probe_state s);

#endif
