/* SPDX-License-Identifier: MIT */
/* p2pscope: what the NVIDIA kernel driver will decide for each GPU pair, and why.
 *
 * A model of the driver's peer-to-peer capability decision (p2pGetCapsStatus and the
 * functions it calls in src/nvidia/src/kernel/platform/p2p/p2p_caps.c, the static BAR1
 * rules of kern_bus_*.c, the CPU type of platform/cpu.c) per driver series and flavor
 * (NVIDIA's own modules, tinygrad's and aikitoria's P2P patches). The differences between
 * series are the rows of the driver table (src/gmmu/nvidia_drivers.c, each with the tag and
 * the functions it was read from); the order of the checks is a few small predicates
 * (driver_model.c).
 *
 * Per GPU pair and per path (C2C, NVLink, NVLink indirect, PCIe mailbox, PCIe BAR1) the
 * model gives the statuses for read, write and atomics, in the codes of the driver's
 * NV0000_P2P_CAPS_STATUS_* (what `nvidia-smi topo -p2p r|w|n|a|p` prints), the gate
 * that decided each, and the path the driver will use. Pure functions over the host
 * model: nothing here reads files or touches hardware.
 */
#ifndef P2PSCOPE_DRIVER_MODEL_H
#define P2PSCOPE_DRIVER_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/host.h"
#include "p2pscope/nvidia_drivers.h"

#ifdef __cplusplus
extern "C" {
#endif

struct p2ps_analysis;

/* The driver's vocabulary (statuses, caps indices, paths, flavors, gates) and the rows per
 * series and flavor are the driver table's (p2pscope/nvidia_drivers.h). */

/* Registry keys and module parameters the model reads; -1 = not set (driver default). */
struct p2ps_drv_regkeys {
	long force_p2p; /* ForceP2P (NV_REG_STR_CL_FORCE_P2P): read 1:0 write 5:4 atomics 9:8 */
	long force_p2p_type;    /* RMForceP2PType */
	long pcie_p2p_type;     /* RMPcieP2PType (575+): 0 mailbox, 1 BAR1, 2 auto */
	long force_static_bar1; /* RMForceStaticBar1: 0 disable, 1 enable, 2 auto, 3 only-gpu */
	long tail_reserve_mb;   /* RMP2PFbTailReserveMb (aikitoria PR #41) */
	long enable_rebar;      /* NVreg_EnableResizableBar module parameter */
};

/* Which driver the model answers for. */
struct p2ps_drv_config {
	bool known;       /* a series was asked for or read */
	int series;       /* as asked or read: 550, 565, 580, 610, ... */
	int model_series; /* the series of the row used */
	enum p2ps_nv_flavor flavor;
	/* The driver table's row the model reads (p2ps_nv_driver_find(): the series' own, else
	 * the fallback rule's, "assumed" in note); never NULL once p2ps_drv_config_make()
	 * returned 0. */
	const struct p2ps_nv_driver *row;
	bool row_exact;
	bool flavor_guessed; /* flavor not said: stock assumed */
	char version[32];    /* full version when read ("580.159.04") */
	char source[64];     /* "/proc/driver/nvidia/version", "--driver", "nvidia-smi" */
	char note[224];      /* p2ps_nv_driver_assumed()'s line, or a registry note */
	struct p2ps_drv_regkeys reg;
	char reg_source[64]; /* where the keys came from ("" = defaults) */
	/* The row's module parameters as /proc/driver/nvidia/params shows them: -1 where the row
	 * has no such key or the params were not read. */
	long dmabuf_p2p; /* row->dmabuf_key */
	long pcie_p2p;   /* row->pcie_p2p_key */
	/* libcuda, where it was hashed: patched, unpatched, or unknown (never guessed) */
	enum p2ps_nv_libcuda_state libcuda;
	const struct p2ps_nv_libcuda *libcuda_row; /* the digest's row; NULL: unknown */
};

/* Fills cfg from the host (driver version, RegistryDwords, module parameters), then
 * applies spec ("580", "565-tinygrad", "590.44.01-aikitoria"; NULL: none) and flavor
 * ("stock", "tinygrad", "aikitoria"; NULL: recognise or assume stock). Returns 0, or -1
 * with a one-line message in err for a malformed spec or flavor. */
int p2ps_drv_config_make(const struct p2ps_host *host, const char *spec, const char *flavor,
                         struct p2ps_drv_config *cfg, char *err, size_t err_size);

/* Parses "Key=value;Key2=0x10" (NVreg_RegistryDwords) into reg (unknown keys ignored).
 * Returns how many keys it took, -1 for malformed text. */
int p2ps_drv_registry_parse(const char *text, struct p2ps_drv_regkeys *reg);

/* One status with the gate that decided it. */
struct p2ps_drv_verdict {
	enum p2ps_nv_status st;
	enum p2ps_nv_gate gate;
};

/* One path of a pair. */
struct p2ps_drv_path_result {
	bool tried; /* the driver reached this path's check */
	struct p2ps_drv_verdict read, write, atomics;
	char why[200]; /* the deciding gate's detail, one line ("" when all OK) */
};

/* What static BAR1 (the mapping BAR1 P2P rests on) does on one GPU. */
struct p2ps_drv_static_bar1 {
	enum p2ps_nv_status st; /* OK: enabled; NS: not enabled; U: facts missing */
	uint64_t bar1;          /* BAR1 size the driver will see (after its resize) */
	uint64_t required;      /* what the rule asks for (0 when no rule applies) */
	uint64_t start;         /* start offset of the static mapping in BAR1 */
	uint64_t map_size;      /* bytes mapped (client FB aligned down to 2 MiB) */
	bool partial;           /* a window over the first map_size bytes of FB only (a fork's
	                         * display-aware rule): peer memory beyond it is refused */
	bool resized;           /* the driver resizes BAR1 at load (rebar_to) */
	uint64_t rebar_to;
	bool console;   /* a boot console is preserved at BAR1 offset 0 */
	bool mailbox;   /* mailbox P2P reserves BAR1 space */
	bool estimated; /* FB address space / reserves were estimated from VRAM */
	char rule[96];  /* "AUTO (580+)", "ONLY_GPU (565-570)", ... */
	char why[240];  /* one line: the comparison, or the missing fact */
	char fix[320];  /* what would make it enabled ("" when none is needed) */
};

/* What the driver itself reported for one pair (the seam, see p2ps_drv_reported_pair). */
struct p2ps_drv_reported {
	bool known;
	char source[64];                            /* "NVML", "nvidia-smi topo -p2p", "RM" */
	enum p2ps_nv_status st[P2PS_NV_CAPS_COUNT]; /* U where not reported */
};

struct p2ps_drv_pair {
	int a, b; /* analysis->gpus indices */
	struct p2ps_drv_path_result path[P2PS_NV_PATH_COUNT];
	enum p2ps_nv_path chosen;
	/* What the driver's status array will hold (P2PS_NV_CAPS_*), as nvidia-smi prints. */
	enum p2ps_nv_status st[P2PS_NV_CAPS_COUNT];
	enum p2ps_nv_gate gate[P2PS_NV_CAPS_COUNT];
	struct p2ps_drv_reported reported;
	int agree; /* over the reported indices: 1 all agree, 0 some differ, -1 nothing to compare
	            */
	char fix[400]; /* persistent fixes for the deciding gates, printed never applied */
};

struct p2ps_drv_report {
	struct p2ps_drv_config cfg;
	char cpu_type[24]; /* the CPU type the driver will recognise: "RYZEN", "XEON_SPR", ... */
	size_t n_gpus;
	struct p2ps_drv_static_bar1 *bar1; /* per analysis->gpus entry */
	size_t n_pairs;
	struct p2ps_drv_pair *pairs;
};

/* Runs the model over an analysed host. Returns 0 or -1 (out of memory). */
int p2ps_drv_model_run(const struct p2ps_analysis *a, const struct p2ps_drv_config *cfg,
                       struct p2ps_drv_report *out);
void p2ps_drv_report_free(struct p2ps_drv_report *r);

/* The static BAR1 rule of cfg's series for one GPU (analysis->gpus[gi]). */
void p2ps_drv_static_bar1(const struct p2ps_analysis *a, size_t gi,
                          const struct p2ps_drv_config *cfg, struct p2ps_drv_static_bar1 *out);

/* THE seam to the driver's own per-pair, per-path caps: fills out for GPUs gi, gj from
 * what the model holds (host->driver_caps: NVML live, nvidia-smi topo -p2p captured in a
 * snapshot or a paste; the RM API's GET_P2P_CAPS_V2 per pair, live or replayed). */
void p2ps_drv_reported_pair(const struct p2ps_analysis *a, size_t gi, size_t gj,
                            struct p2ps_drv_reported *out);

#ifdef __cplusplus
}
#endif

#endif
