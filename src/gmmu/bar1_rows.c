/* SPDX-License-Identifier: MIT */
/* The BAR1-P2P entry per (era, path, generation), read from the drivers' code (docs/gmmu.md,
 * "BAR1-P2P rows"). A row holds for a range of one flavor's eras; a driver row of the driver
 * table (nvidia_drivers.c) names its era, which selects the rows here:
 *
 * UVM (nvGpuOpsBuildExternalAllocPtes, CUDA's peer mappings):
 *   - stock 550-575: nvGpuOpsGetExternalAllocAperture has no BAR1-P2P case (PEER, VIDEO or
 *     SYS_COH for indirect peers only);
 *   - stock 580-615: a BAR1-P2P peer is SYS_COH where BAR1-P2P atomics are on (580.142:
 *     arch >= BLACKWELL_GB1XX; 590/595: _nvGpuOpsIsBar1P2pAtomicEnabled, the same test),
 *     else SYS_NONCOH; the address is _nvGpuOpsEncodeBar1P2PAddrs: kbusGetBar1P2PDmaInfo's
 *     base (the static BAR1's DMA address as the mapping GPU sees it: bus address + start,
 *     or its IOVA) + the FB offset; no peer id (the aperture is not PEER);
 *   - aikitoria's 595.71.05 port: NVIDIA's BAR1-P2P case for every generation (AD102 and
 *     GA102 included), SYS_NONCOH before Blackwell, the DMA base: the 580 stock form;
 *   - tinygrad 550.54.15-p2p / 565.57.01-p2p and aikitoria 570.86.16-p2p (the same diff):
 *     the PEER -> SYS_NONCOH rewrite sits in the v2 branch only, fabricBaseAddress =
 *     gpumgrGetGpuPhysFbAddr(peer) (the bus address, never the start offset nor an IOVA),
 *     the peer-index write commented out, and gmmuFmtPtePhysAddrFld(PEER) returning the
 *     sysmem field. Every peer UVM maps PEER gets it, NVLink peers included.
 * RM (NVOS46 map through NV50_P2P, dmaAllocBar1P2PMapping_GH100): a sysmem memdesc at the
 *   peer's bus address + the BAR1 offset kbusMapFbApertureSingle returns (the static BAR1:
 *   start + FB offset), SYSMEM, uncached, CACHE_SNOOP disabled (SYS_NONCOH), KIND
 *   GENERIC_MEMORY; the HAL has it on GH100 and Blackwell only (a stub elsewhere,
 *   g_virt_mem_allocator_nvoc.c). The static BAR1 starts at offset 0 up to 565
 *   (kbusEnableStaticBar1Mapping_GH100 / _TU102, MAP_OFFSET_FIXED at 0), where BAR1's
 *   allocator puts it in 570-575 (2 MiB pages), at ALIGN_UP(console + mailbox, 512 MiB)
 *   from 580 (kbusInitBar1_GM107). tinygrad 550.54.15-p2p comments out
 *   _kbusMapAperture_GM107's static branch, so its RM mappings get a dynamic BAR1 offset.
 */
#include "gmmu_internal.h"
#include "p2pscope/nvidia_drivers.h"

#include <stdio.h>
#include <strings.h>

#define V2 GMMU_BAR1_GEN_BIT(GMMU_BAR1_GEN_V2)
#define GH GMMU_BAR1_GEN_BIT(GMMU_BAR1_GEN_HOPPER)
#define GB GMMU_BAR1_GEN_BIT(GMMU_BAR1_GEN_BLACKWELL)
#define V3 (GH | GB)

#define S550   P2PS_NV_BAR1_STOCK_550
#define S570   P2PS_NV_BAR1_STOCK_570
#define S580   P2PS_NV_BAR1_STOCK_580
#define T550   P2PS_NV_BAR1_TINYGRAD_550
#define T565   P2PS_NV_BAR1_TINYGRAD_565
#define A570   P2PS_NV_BAR1_AIKITORIA_570
#define APRT   P2PS_NV_BAR1_AIKITORIA_PORT
#define DM3    P2PS_NV_BAR1_DUANYLL_METHOD3
#define UVM    GMMU_BAR1_PATH_UVM
#define RM     GMMU_BAR1_PATH_RM
#define NONCOH GMMU_APERTURE_SYS_NONCOH
#define COH    GMMU_APERTURE_SYS_COH
#define PEER   GMMU_APERTURE_PEER

static const char no_stock_v2[] =
        "the stock driver has no BAR1-P2P on Turing..Ada (kbusCreateP2PMappingForBar1P2P and "
        "dmaAllocBar1P2PMapping are stubs in their HAL, g_kern_bus_nvoc.c, "
        "g_virt_mem_allocator_nvoc.c)";
static const char no_uvm_case[] =
        "UVM has no BAR1-P2P case in these series (nvGpuOpsGetExternalAllocAperture, "
        "570.86.16, 575.64.05)";
static const char rm_stub_v2[] =
        "the RM map step of a BAR1-P2P peer is the stub dmaAllocBar1P2PMapping_46f6a7 "
        "(NV_ERR_NOT_SUPPORTED) on Turing..Ada: the patch leaves g_virt_mem_allocator_nvoc.c "
        "alone";

static const char port_rm_not_read[] =
        "aikitoria's 595.71.05 port was read in its nv_gpu_ops.c only: its RM map step "
        "(dmaAllocBar1P2PMapping) and static-BAR1 placement were not";

static const char rm_peer_v2_550[] =
        "550.54.15-p2p leaves kbusHasPcieBar1P2PMapping a stub outside GH100 "
        "(g_kern_bus_nvoc.c), so RM maps the peer as a PEER entry, not a BAR1-P2P one "
        "(virtual_mem.c: bBar1P2P false); its address goes to the patched sysmem field";

/* first era, last era, path, gens, refused, aperture, adds_start, iova,
 * start_align, dynamic_offset, peer_field_patched, nvlink_too, source */
static const char m3_rm_not_read[] =
        "Method 3 changes the UVM path (nv_gpu_ops.c) and the BAR1-P2P gate; its RM mapping "
        "path (NVOS46 through NV50_P2P) was not read";

static const struct gmmu_bar1_row rows[] = {
        /* ---- UVM: CUDA's peer mappings ---------------------------------------------- */
        {S550, S570, UVM, V2 | V3, no_uvm_case, NONCOH, false, false, 0, false, false, false,
         "nvGpuOpsGetExternalAllocAperture, 570.86.16"},
        {S580, S580, UVM, V2, no_stock_v2, NONCOH, false, false, 0, false, false, false,
         "kbusCreateP2PMappingForBar1P2P: a stub in the Turing..Ada HAL (g_kern_bus_nvoc.c), "
         "580.142"},
        {S580, S580, UVM, GH, NULL, NONCOH, true, true, 29, false, false, false,
         "nvGpuOpsGetExternalAllocAperture (pre-Blackwell: SYS_NONCOH) + "
         "_nvGpuOpsEncodeBar1P2PAddrs(kbusGetBar1P2PDmaInfo_GH100), 580.142, 595.45.04"},
        {S580, S580, UVM, GB, NULL, COH, true, true, 29, false, false, false,
         "nvGpuOpsGetExternalAllocAperture (arch >= BLACKWELL_GB1XX, 580.142; "
         "_nvGpuOpsIsBar1P2pAtomicEnabled, 595.45.04) + _nvGpuOpsEncodeBar1P2PAddrs"},
        {T550, T565, UVM, V2, NULL, NONCOH, false, false, 0, false, true, true,
         "nvGpuOpsBuildExternalAllocPtes (v2 branch: PEER -> SYS_NONCOH, fabricBaseAddress = "
         "gpumgrGetGpuPhysFbAddr), tinygrad 550.54.15-p2p, 565.57.01-p2p"},
        {T550, T565, UVM, V3, NULL, PEER, false, false, 0, false, true, true,
         "nvGpuOpsBuildExternalAllocPtes (v3 branch not rewritten: PEER, peer write commented "
         "out), tinygrad 550.54.15-p2p, 565.57.01-p2p"},
        {A570, A570, UVM, V2, NULL, NONCOH, false, false, 21, false, true, true,
         "nvGpuOpsBuildExternalAllocPtes (v2 branch; the bus address without the start its "
         "static BAR1 has), aikitoria 570.86.16-p2p"},
        {A570, A570, UVM, V3, NULL, PEER, false, false, 21, false, true, true,
         "nvGpuOpsBuildExternalAllocPtes (v3 branch not rewritten: PEER), aikitoria "
         "570.86.16-p2p"},
        /* aikitoria's 595.71.05 port (commit 08b4e9b5 of its nv_gpu_ops.c): the pair goes
         * to NVIDIA's own BAR1-P2P case on every generation; its aperture is the stock test
         * of the owning GPU (SYS_COH from Blackwell), the base kbusGetBar1P2PDmaInfo's. Its
         * static-BAR1 placement (bar1_p2p_policy.h) was not read: 2 MiB assumed. */
        {APRT, APRT, UVM, V2 | GH, NULL, NONCOH, true, true, 21, false, false, false,
         "nvGpuOpsGetExternalAllocAperture (_nvGpuOpsIsBar1P2pAtomicEnabled: owning GPU < "
         "BLACKWELL_GB1XX), aikitoria 595.71.05 port (08b4e9b5)"},
        {APRT, APRT, UVM, GB, NULL, COH, true, true, 21, false, false, false,
         "nvGpuOpsGetExternalAllocAperture (_nvGpuOpsIsBar1P2pAtomicEnabled: owning GPU >= "
         "BLACKWELL_GB1XX), aikitoria 595.71.05 port (08b4e9b5)"},
        /* Method 3 (Duanyll's 595.71.05-p2p-48g and 615.71.09-p2p-48g, LingzheZhao's
         * 610.57.04-p2p-48g; nv_gpu_ops.c _nvGpuOpsDynBar1Create, Duanyll's
         * method3-impl-notes.md at 12870848): a peer without static BAR1 gets a window
         * mapped into its BAR1 per allocation (kbusMapFbAperture_HAL), and each entry is the
         * window's DMA base + the offset in the allocation; a peer with static BAR1 keeps
         * the aikitoria port's base + FB offset. The window's BAR1 offset is the driver's
         * choice per mapping, so only the aperture and the flags are held to the row. The
         * aperture test is the port's (SYS_COH from Blackwell). */
        {DM3, DM3, UVM, V2 | GH, NULL, NONCOH, false, true, 21, true, false, false,
         "nvGpuOpsBuildExternalAllocPtes + _nvGpuOpsDynBar1Create (window DMA base + offset), "
         "Duanyll 595.71.05-p2p-48g"},
        {DM3, DM3, UVM, GB, NULL, COH, false, true, 21, true, false, false,
         "nvGpuOpsBuildExternalAllocPtes + _nvGpuOpsDynBar1Create (window DMA base + offset), "
         "Duanyll 595.71.05-p2p-48g"},
        {DM3, DM3, RM, V2 | V3, m3_rm_not_read, NONCOH, false, false, 0, false, false, false,
         "Duanyll 595.71.05-p2p-48g: nv_gpu_ops.c and kern_bus_gh100.c only"},
        /* ---- RM: NVOS46 maps through NV50_P2P (pte-probe) --------------------------------- */
        {S550, S580, RM, V2, no_stock_v2, NONCOH, false, false, 0, false, false, false,
         "dmaAllocBar1P2PMapping: a stub in the Turing..Ada HAL (g_virt_mem_allocator_nvoc.c), "
         "550.54.15 .. 595.45.04"},
        {S550, S550, RM, V3, NULL, NONCOH, true, true, 0, false, false, false,
         "dmaAllocBar1P2PMapping_GH100 + kbusEnableStaticBar1Mapping_GH100/_TU102 (static BAR1 "
         "at offset 0), 550.54.15, 565.57.01"},
        {S570, S570, RM, V3, NULL, NONCOH, true, true, 21, false, false, false,
         "dmaAllocBar1P2PMapping_GH100 + kbusEnableStaticBar1Mapping_TU102 (start where BAR1's "
         "allocator puts it), 570.86.16, 575.64.05"},
        {S580, S580, RM, V3, NULL, NONCOH, true, true, 29, false, false, false,
         "dmaAllocBar1P2PMapping_GH100 + kbusInitBar1_GM107 (start = ALIGN_UP(console + "
         "mailbox, 512 MiB)), 580.142, 595.45.04"},
        {T550, T550, RM, V2, rm_peer_v2_550, NONCOH, false, false, 0, false, true, false,
         "kbusHasPcieBar1P2PMapping: a stub outside GH100 (g_kern_bus_nvoc.c), so "
         "virtual_mem.c maps a PEER entry; tinygrad 550.54.15-p2p"},
        {T565, T565, RM, V2, rm_stub_v2, NONCOH, false, false, 0, false, true, false,
         "dmaAllocBar1P2PMapping_46f6a7, the stub of g_virt_mem_allocator_nvoc.c; tinygrad "
         "565.57.01-p2p"},
        {T550, T550, RM, V3, NULL, NONCOH, true, true, 0, true, true, false,
         "dmaAllocBar1P2PMapping_GH100; _kbusMapAperture_GM107's static-BAR1 branch commented "
         "out, tinygrad 550.54.15-p2p"},
        {T565, T565, RM, V3, NULL, NONCOH, true, true, 0, false, true, false,
         "dmaAllocBar1P2PMapping_GH100 (not edited), tinygrad 565.57.01-p2p"},
        {A570, A570, RM, V2, rm_stub_v2, NONCOH, false, false, 21, false, true, false,
         "dmaAllocBar1P2PMapping_46f6a7, the stub of g_virt_mem_allocator_nvoc.c; aikitoria "
         "570.86.16-p2p"},
        {A570, A570, RM, V3, NULL, NONCOH, true, true, 21, false, true, false,
         "dmaAllocBar1P2PMapping_GH100 (not edited), aikitoria 570.86.16-p2p"},
        {APRT, APRT, RM, V2 | V3, port_rm_not_read, NONCOH, false, false, 0, false, false, false,
         "aikitoria 595.71.05 port (08b4e9b5): nv_gpu_ops.c only"},
};

static const char *const path_names[] = {"uvm", "rm"};
static const char *const gen_names[] = {"Turing..Ada", "Hopper", "Blackwell"};

size_t gmmu_bar1_row_count(void)
{
	return GMMU_ARRAY_SIZE(rows);
}

const struct gmmu_bar1_row *gmmu_bar1_row_at(size_t i)
{
	return i < GMMU_ARRAY_SIZE(rows) ? &rows[i] : NULL;
}

enum gmmu_bar1_gen gmmu_bar1_gen_of(const struct gmmu_format *f)
{
	if (f->version < 3)
		return GMMU_BAR1_GEN_V2;
	return f->flags & GMMU_FORMAT_F_BAR1P2P_COHERENT ? GMMU_BAR1_GEN_BLACKWELL
	                                                 : GMMU_BAR1_GEN_HOPPER;
}

const char *gmmu_bar1_gen_name(enum gmmu_bar1_gen g)
{
	return (unsigned)g < GMMU_ARRAY_SIZE(gen_names) ? gen_names[g] : "unknown";
}

const char *gmmu_bar1_path_name(enum gmmu_bar1_path p)
{
	return (unsigned)p < GMMU_ARRAY_SIZE(path_names) ? path_names[p] : "unknown";
}

int gmmu_bar1_path_parse(const char *s, enum gmmu_bar1_path *out, struct p2ps_error *err)
{
	for (size_t i = 0; s && i < GMMU_ARRAY_SIZE(path_names); i++)
		if (!strcasecmp(s, path_names[i])) {
			*out = (enum gmmu_bar1_path)i;
			return 0;
		}
	return p2ps_error_set(err, P2PS_EINVAL, "unknown path '%s' (%s, %s)", s ? s : "",
	                      path_names[0], path_names[1]);
}

static bool holds(const struct gmmu_bar1_row *r, enum p2ps_nv_bar1_era e)
{
	return e != P2PS_NV_BAR1_NONE && r->first <= e && e <= r->last;
}

const struct gmmu_bar1_row *gmmu_bar1_row_of(const struct p2ps_nv_driver *d,
                                             enum gmmu_bar1_path path, enum gmmu_bar1_gen g)
{
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(rows); i++)
		if (holds(&rows[i], d->bar1) && rows[i].path == path &&
		    (rows[i].gens & GMMU_BAR1_GEN_BIT(g)))
			return &rows[i];
	return NULL;
}

int gmmu_bar1_row_find(const struct p2ps_nv_driver *d, enum gmmu_bar1_path path,
                       const struct gmmu_format *f, const struct gmmu_bar1_row **out,
                       struct p2ps_error *err)
{
	*out = gmmu_bar1_row_of(d, path, gmmu_bar1_gen_of(f));
	if (*out)
		return 0;
	char name[32];
	p2ps_nv_driver_str(d, name, sizeof(name));
	if (d->bar1 == P2PS_NV_BAR1_NONE)
		return p2ps_error_set(err, P2PS_ENOTSUP,
		                      "driver %s (%s): its BAR1-P2P entries were not read", name,
		                      d->ref);
	return p2ps_error_set(err, P2PS_ENOTSUP, "no %s row of driver %s (%s) on %s",
	                      gmmu_bar1_path_name(path), name, d->ref, f->name);
}

bool gmmu_bar1_peer_field_patched(const struct p2ps_nv_driver *d)
{
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(rows); i++)
		if (holds(&rows[i], d->bar1) && rows[i].peer_field_patched)
			return true;
	return false;
}

const char *gmmu_bar1_row_series(const struct gmmu_bar1_row *r, char *buf, size_t len)
{
	size_t n;
	const struct p2ps_nv_driver *t = p2ps_nv_driver_table(&n);
	unsigned lo = ~0u, hi = 0;
	for (size_t i = 0; i < n; i++)
		if (holds(r, t[i].bar1)) {
			lo = t[i].series < lo ? t[i].series : lo;
			hi = t[i].series > hi ? t[i].series : hi;
		}
	if (lo == hi || lo > hi)
		snprintf(buf, len, "%u", lo > hi ? 0 : lo);
	else
		snprintf(buf, len, "%u-%u", lo, hi);
	return buf;
}

const char *gmmu_bar1_row_str(const struct gmmu_bar1_row *r, enum gmmu_bar1_gen g, char *buf,
                              size_t len)
{
	char series[16];
	gmmu_bar1_row_series(r, series, sizeof(series));
	snprintf(buf, len, "%s %s %s %s", series,
	         p2ps_nv_flavor_name(p2ps_nv_bar1_era_flavor(r->first)),
	         gmmu_bar1_path_name(r->path), gmmu_bar1_gen_name(g));
	return buf;
}
