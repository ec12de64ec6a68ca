/* SPDX-License-Identifier: MIT */
/* Static BAR1 per driver series: whether the driver maps all of the GPU's memory into
 * BAR1 at load (what BAR1 P2P rests on), where the mapping starts, and what BAR1 size the
 * driver itself will give the GPU (nv_resize_pcie_bars). Rules per series:
 *   550    kern_bus_gh100.c kbusIsBar1P2PCapable_GH100: forceP2PType BAR1P2P and
 *          BAR1 VA (BAR1 - 4 KiB) - 128 KiB >= ALIGN_UP(usable FB, 2 MiB); start 0.
 *   565    kern_bus_tu102.c kbusIsStaticBar1Supported_TU102: default ONLY_GPU (the 550
 *          rule on the FB address space); AUTO: BAR1 >= 2 x FB.
 *   570    the same function: ONLY_GPU default; AUTO: FB + UserD + 128 KiB + console +
 *          mailbox; start where the BAR1 allocator puts it (after console and mailbox).
 *   575    NV_REG_STR_RM_FORCE_STATIC_BAR1_DEFAULT is DISABLE.
 *   580+   kern_bus.c: AUTO when unset; AUTO adds the padding up to 512 MiB after console
 *          and mailbox; kern_bus_gm107.c kbusInitBar1_GM107 starts the mapping at
 *          ALIGN_UP(console + mailbox, 512 MiB).
 *   ENABLE (565+): BAR1 VA >= client FB (2 MiB aligned).
 *   A fork row with a display-aware window (aikitoria 610.43.03-p2p, kern_bus_tu102.c at
 *          d682adc5, the predicate bar1_p2p_policy_test.c asserts at 26e1ff53), on a chip
 *          with BAR1 P2P by default: the window starts at ALIGN_UP(console + mailbox,
 *          512 MiB) and maps min(client FB, BAR1 VA - start), both 2 MiB aligned down;
 *          AUTO needs window + start + what of UserD/MMIO/doorbell the padding does not
 *          hold. A window shorter than client FB is partial: CUDA refuses peer memory past
 *          it (README at 26e1ff53).
 * The AUTO and ENABLE checks compare the BAR1 VA aligned down to 2 MiB (bar1VASizeAligned:
 * kbusInitBar1_GM107's mappableLength, BAR1 - 1 - 4 KiB): the BAR1 they need is the
 * requirement aligned up to 2 MiB plus 2 MiB. The ONLY_GPU and 550 checks take the VA as
 * it is (BAR1 - 4 KiB - 128 KiB >= FB).
 * The FB address space and the UserD/mailbox/console reservations are the driver's own
 * numbers; from outside they are estimated from the VRAM NVML reports (flagged). */
#include <stdio.h>
#include <string.h>

#include "driver_internal.h"
#include "p2pscope/analysis.h"

#define MIB            (1024ull * 1024)
#define ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))
#define ALIGN_DN(x, a) ((x) / (a) * (a))
#define SZ_2M          (2 * MIB)
#define SZ_512M        (512 * MIB)
#define DOORBELL_MMIO  (128 * 1024ull) /* 32 x 4 KiB: doorbell + MMIO priv */
#define BAR1_VA_GUARD  (4 * 1024ull)   /* kbusInitBar1_GM107: vaRangeMax -= 4 KiB */
#define EST_USERD      (2 * MIB)       /* UserD x channels: estimate */
#define EST_CONSOLE    (8 * MIB)       /* preserved boot console: estimate */
#define EST_MAILBOX    (4 * MIB)       /* mailbox P2P BAR1 reservation: estimate */

/* The smallest BAR1 (BARs are powers of two, 2 MiB-aligned) whose VA less 4 KiB, aligned
 * down to 2 MiB (kbusIsStaticBar1Supported_TU102's bar1VASizeAligned), holds r. */
static uint64_t bar1_for_aligned_va(uint64_t r)
{
	return ALIGN_UP(r, SZ_2M) + SZ_2M;
}

static long eff(long reg, long patch, long dflt)
{
	return reg >= 0 ? reg : patch >= 0 ? patch : dflt;
}

/* The BAR1 the driver will see: nv_resize_pcie_bars grows it to the largest ReBAR size
 * when EnableResizableBar is 1 (the patches skip that check) and the platform lets the
 * kernel place it. */
static void driver_resize(const struct p2ps_analysis *a, const struct p2ps_gpu_report *g,
                          const struct p2ps_nv_driver *s, const struct p2ps_drv_config *cfg,
                          struct p2ps_drv_static_bar1 *o)
{
	const struct p2ps_dev *d = &a->host->devs[g->dev_idx];
	char s1[24], s2[24];
	o->bar1 = g->bar1_size;
	if (!g->rebar_max || g->rebar_max <= g->bar1_size)
		return;
	bool asks = s->patch_rebar || cfg->reg.enable_rebar == 1;
	if (!asks) {
		snprintf(o->fix, sizeof(o->fix),
		         "NVreg_EnableResizableBar=1 (modprobe option) lets the driver resize BAR1 "
		         "to "
		         "%s; ",
		         p2ps_size_format(g->rebar_max, s1, sizeof(s1)));
		return;
	}
	const struct p2ps_dev *up = d->parent;
	uint64_t win = up && up->bridge.pref.present
	                       ? up->bridge.pref.limit - up->bridge.pref.base + 1
	                       : 0;
	o->rebar_to = g->rebar_max;
	if (up && up->bridge.pref.present && (!up->bridge.pref.is_64bit || win < g->rebar_max)) {
		snprintf(o->fix, sizeof(o->fix),
		         "the driver will try to resize BAR1 to %s, which needs platform Resizable "
		         "BAR support (the %s window above it is %s): enable Above 4G Decoding and "
		         "Resizable BAR in the firmware; ",
		         p2ps_size_format(g->rebar_max, s1, sizeof(s1)),
		         up->bridge.pref.is_64bit ? "64-bit" : "32-bit",
		         p2ps_size_format(win, s2, sizeof(s2)));
		return;
	}
	o->resized = true;
	o->bar1 = g->rebar_max;
}

/* Required BAR1 under the policy; 0 with o->why set when no size rule applies. */
static uint64_t required(const struct p2ps_nv_driver *s, long policy, long force_type, uint64_t fb,
                         uint64_t client, struct p2ps_drv_static_bar1 *o, long tail_mb)
{
	uint64_t con = o->console ? EST_CONSOLE : 0, mbx = o->mailbox ? EST_MAILBOX : 0;
	switch (policy) {
	case P2PS_NV_SB_NONE:
	case P2PS_NV_SB_ONLY_GPU:
		snprintf(o->rule, sizeof(o->rule), "%s, RMForceP2PType BAR1P2P (%d) required",
		         policy == P2PS_NV_SB_NONE ? "kbusIsBar1P2PCapable" : "ONLY_GPU",
		         s->ft_bar1);
		if (force_type != s->ft_bar1 || !s->ft_bar1)
			return 0;
		return ALIGN_UP(policy == P2PS_NV_SB_NONE ? client : fb, SZ_2M) + DOORBELL_MMIO +
		       BAR1_VA_GUARD;
	case P2PS_NV_SB_ENABLE:
		snprintf(o->rule, sizeof(o->rule), "ENABLE (RMForceStaticBar1=1)");
		return bar1_for_aligned_va(ALIGN_DN(client, SZ_2M));
	case P2PS_NV_SB_AUTO: break;
	default: snprintf(o->rule, sizeof(o->rule), "DISABLE"); return 0;
	}
	/* requiredAutoBar1Size: FB, UserD of every channel, MMIO priv and doorbell (16 pages
	 * each), console, mailbox. */
	uint64_t need = ALIGN_UP(fb, SZ_2M) + EST_USERD + DOORBELL_MMIO + con + mbx;
	switch (s->sb_auto) {
	case P2PS_NV_AUTO_2X_FB:
		snprintf(o->rule, sizeof(o->rule), "AUTO (2 x FB)");
		return bar1_for_aligned_va(2 * ALIGN_UP(fb, SZ_2M));
	case P2PS_NV_AUTO_RESERVES:
		snprintf(o->rule, sizeof(o->rule), "AUTO (FB + UserD + console + mailbox)");
		return bar1_for_aligned_va(need);
	case P2PS_NV_AUTO_RESERVES_512M:
		snprintf(o->rule, sizeof(o->rule), "AUTO (FB + reserves + 512 MiB padding)");
		return bar1_for_aligned_va(con + mbx ? need + SZ_512M - (con + mbx) % SZ_512M
		                                     : need);
	case P2PS_NV_AUTO_CLIENT_FLOOR:
	default: {
		snprintf(o->rule, sizeof(o->rule),
		         "AUTO (client FB + ALIGN_UP(console+mailbox, 512M))");
		uint64_t r = ALIGN_UP(client, SZ_2M) + ALIGN_UP(con + mbx, SZ_512M) + BAR1_VA_GUARD;
		uint64_t trim = tail_mb > 1 ? (uint64_t)tail_mb * MIB : 0;
		return r > trim ? r - trim : 0;
	}
	}
}

/* The display-aware window (see above); false when the rule does not apply to this GPU. */
static bool display_window(const struct p2ps_nv_driver *s, const struct p2ps_dev *d, long policy,
                           uint64_t client, struct p2ps_drv_static_bar1 *o)
{
	if (!(s->props & P2PS_NV_FP_DISPLAY_PARTIAL_BAR1) || policy != P2PS_NV_SB_AUTO ||
	    !d->chip ||
	    !p2ps_nv_chip_listed(P2PS_NV_LIST_BAR1_BY_DEFAULT, s->series, d->chip->gmmu.name))
		return false;
	uint64_t con = o->console ? EST_CONSOLE : 0, mbx = o->mailbox ? EST_MAILBOX : 0;
	uint64_t start = ALIGN_UP(con + mbx, SZ_512M);
	uint64_t va = o->bar1 > BAR1_VA_GUARD ? ALIGN_DN(o->bar1 - 1 - BAR1_VA_GUARD, SZ_2M) : 0;
	uint64_t room = va > start ? ALIGN_DN(va - start, SZ_2M) : 0, fb = ALIGN_DN(client, SZ_2M);
	if (!room || !fb)
		return false;
	uint64_t window = fb < room ? fb : room, dynamic = EST_USERD + DOORBELL_MMIO;
	uint64_t padding = start - (con + mbx);
	uint64_t need = window + start +
	                (con + mbx ? (dynamic > padding ? dynamic - padding : 0) : dynamic);
	snprintf(o->rule, sizeof(o->rule), "AUTO (display-aware window after console+mailbox)");
	o->start = start;
	o->map_size = window;
	o->partial = window < fb;
	o->required = bar1_for_aligned_va(need);
	return true;
}

static void static_fix(const struct p2ps_nv_driver *s, struct p2ps_drv_static_bar1 *o, long policy)
{
	size_t n = strlen(o->fix);
	char s1[24];
	if (policy == P2PS_NV_SB_DISABLE ||
	    ((policy == P2PS_NV_SB_NONE || policy == P2PS_NV_SB_ONLY_GPU) && !o->required)) {
		if (s->pcie_type_key)
			snprintf(o->fix + n, sizeof(o->fix) - n,
			         "NVreg_RegistryDwords=\"RMForceStaticBar1=2\" (AUTO) asks for "
			         "static "
			         "BAR1");
		else
			snprintf(o->fix + n, sizeof(o->fix) - n,
			         "NVreg_RegistryDwords=\"RMForceP2PType=%d\" (BAR1P2P; risk: no "
			         "mailbox "
			         "fallback) or a P2P-patched module",
			         s->ft_bar1);
		return;
	}
	if (o->bar1 >= o->required)
		return;
	if (o->console)
		snprintf(o->fix + n, sizeof(o->fix) - n,
		         "drive the display from another GPU or the iGPU (the preserved console "
		         "costs up to 512 MiB of BAR1 alignment); ");
	n = strlen(o->fix);
	if (s->tail_reserve)
		snprintf(o->fix + n, sizeof(o->fix) - n,
		         "NVreg_RegistryDwords=\"RMP2PFbTailReserveMb=1\" trims the shortfall "
		         "(risk: "
		         "the last %s of VRAM is not reachable by peers)",
		         p2ps_size_format(o->required - o->bar1, s1, sizeof(s1)));
	else if (s->static_bar1_key)
		snprintf(o->fix + n, sizeof(o->fix) - n,
		         "a BAR1 of at least %s, else NVreg_RegistryDwords=\"RMForceStaticBar1=1\" "
		         "(ENABLE; risk: no BAR1 space left for the driver's own dynamic mappings)",
		         p2ps_size_format(o->required, s1, sizeof(s1)));
}

void p2ps_drv_static_bar1(const struct p2ps_analysis *a, size_t gi,
                          const struct p2ps_drv_config *cfg, struct p2ps_drv_static_bar1 *o)
{
	memset(o, 0, sizeof(*o));
	o->st = P2PS_NV_ST_UNKNOWN;
	const struct p2ps_gpu_report *g = &a->gpus[gi];
	const struct p2ps_dev *d = &a->host->devs[g->dev_idx];
	const struct p2ps_nv_driver *s = p2ps_drv_row(cfg);
	if (!g->is_gpu || !g->bar1_size_known) {
		snprintf(o->why, sizeof(o->why), "needs the BAR1 size");
		return;
	}
	driver_resize(a, g, s, cfg, o);
	if (!d->gpu.vram_known) {
		snprintf(o->why, sizeof(o->why),
		         "needs the GPU memory size (NVML or nvidia-smi -q)");
		return;
	}
	long force_type = eff(cfg->reg.force_p2p_type, s->patch_force, 0);
	long pcie_type = eff(cfg->reg.pcie_p2p_type, s->patch_pcie_type, 0);
	long policy = eff(cfg->reg.force_static_bar1, -1, s->sb_default);
	if (s->sb_default == P2PS_NV_SB_NONE)
		policy = P2PS_NV_SB_NONE;
	o->console = d->boot_vga == 1;
	/* _kbusRequiresP2PMailboxBar1_GM107: mailbox space unless BAR1 P2P is asked for:
	 * forceP2PType BAR1P2P where the BAR1 path needs it (570.86.15), pcieP2PType BAR1
	 * (575.51.02+). */
	o->mailbox = s->mailbox_bar1 &&
	             (s->bar1_needs_force ? force_type != s->ft_bar1 : pcie_type != 1);
	o->estimated = true;
	uint64_t client = d->gpu.vram_bytes, fb = ALIGN_UP(client, SZ_512M);
	o->map_size = ALIGN_DN(client, SZ_2M);
	if (!display_window(s, d, policy, client, o)) {
		o->required =
		        required(s, policy, force_type, fb, client, o, cfg->reg.tail_reserve_mb);
		uint64_t con = o->console ? EST_CONSOLE : 0, mbx = o->mailbox ? EST_MAILBOX : 0;
		o->start = s->sb_start_512m ? ALIGN_UP(con + mbx, SZ_512M) : con + mbx;
	}
	char s1[24], s2[24], s3[24], s4[24];
	if (!o->required) {
		o->st = P2PS_NV_ST_NOT_SUPPORTED;
		snprintf(o->why, sizeof(o->why), "static BAR1 off: policy %s", o->rule);
	} else if (o->bar1 >= o->required) {
		o->st = P2PS_NV_ST_OK;
		snprintf(o->why, sizeof(o->why),
		         "BAR1 %s >= %s needed (%s), mapped from offset %s%s%s",
		         p2ps_size_format(o->bar1, s1, sizeof(s1)),
		         p2ps_size_format(o->required, s2, sizeof(s2)), o->rule,
		         p2ps_size_format(o->start, s3, sizeof(s3)),
		         o->partial ? "; a partial window over the first " : "",
		         o->partial ? p2ps_size_format(o->map_size, s4, sizeof(s4)) : "");
	} else {
		o->st = P2PS_NV_ST_NOT_SUPPORTED;
		snprintf(o->why, sizeof(o->why), "BAR1 %s < %s needed (%s%s%s)",
		         p2ps_size_format(o->bar1, s1, sizeof(s1)),
		         p2ps_size_format(o->required, s2, sizeof(s2)), o->rule,
		         o->console ? ", boot console" : "", o->mailbox ? ", mailbox" : "");
	}
	if (o->st != P2PS_NV_ST_OK)
		static_fix(s, o, policy);
	else
		o->fix[0] = '\0';
}
