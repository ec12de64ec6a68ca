/* SPDX-License-Identifier: MIT */
/* Golden cases per row of the driver table: the same hosts put to every series and flavor
 * the model has, each expected outcome read off that driver's code (NVIDIA's tags, and the
 * forks' diffs on them), never from the model. A row's every column decides at least one
 * case here, so a wrong value in the table fails a case (scripts/driver-mutation.py holds
 * the model to that).
 *
 * The host: two GPUs behind a PLX 87xx switch in a VM whose hypervisor puts them in one
 * P2P clique (so the PCIe mailbox path is OK without asking GSP: _kp2pCapsGetStatusOverPcie,
 * hypervisorPcieP2pDetection), a Xeon SPR CPU (cpu.c: family 6 model 143, which
 * _p2pCapsGetHostSystemStatusOverPcieBar1 lets read), H100s (GH100) with 80 GiB and a
 * 128 GiB BAR1 the driver cannot grow, unless a case says otherwise.
 *
 * The sources, per series (NVIDIA/open-gpu-kernel-modules; the forks change only what
 * their rows' patch columns say: p2pOverride 0x11, forceP2PType BAR1P2P for tinygrad's
 * 550.54.15-p2p / 565.57.01-p2p and aikitoria's 570.86.16-p2p, pcieP2PType BAR1 for
 * aikitoria's 575/580 ports, and ReBAR without EnableResizableBar):
 *   p2p_caps.c: p2pGetCapsStatus (C2C from 580.65.06), _gpumgrGetP2PCapsStatusOverNvLink,
 *     _kgetP2PCapsStatusOverC2C, _kp2pCapsCheckStatusOverridesForPcie (an atomics field
 *     from 565.57.01), _kp2pCapsGetStatusOverPcieBar1 (550.54.15 .. 570.86.15: forceP2PType
 *     must be BAR1P2P, overrides before the mapping check; 575.51.02+: forceP2PType DEFAULT
 *     or PCIEP2P and pcieP2PType BAR1 or AUTO, the mapping check first);
 *   nvrm_registry.h: RMForceP2PType (550-570: MAILBOXP2P 1, BAR1P2P 2, NVLINK 3, C2C 4;
 *     575+: PCIEP2P 1, NVLINK 2, C2C 3), RMPcieP2PType (575+), RMForceStaticBar1 and its
 *     default (565/570 ONLY_GPU, 575 DISABLE, 580+ AUTO in kern_bus.c);
 *   kern_bus_tu102.c kbusIsStaticBar1Supported_TU102, kern_bus_gh100.c
 *     kbusIsBar1P2PCapable_GH100 (550) and kbusIsPcieBar1P2PMappingSupported_GH100
 *     (PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT from 590.44.01), kern_bus_gm107.c
 *     kbusInitBar1_GM107 (mappableLength = BAR1 - 1 - 4 KiB; start 512 MiB-aligned from
 *     580.65.06) and _kbusRequiresP2PMailboxBar1_GM107 (mailbox space before the static
 *     mapping from 570.86.15 unless forceP2PType is BAR1P2P; from 575.51.02 unless
 *     pcieP2PType is BAR1; 565.57.01 reserves it after the static mapping);
 *   cpu.c cpuidInfoAMD: 570.86.15+ "Assuming new Ryzen" for an unlisted family.
 * The FB address space, UserD, console and mailbox sizes are the model's stated estimates
 * (driver_bar1.c: VRAM up to 512 MiB, 2 MiB, 8 MiB, 4 MiB): the figures below apply the
 * driver's formulas to them. */
#include <stdlib.h>
#include <string.h>

#include "driver_dm.h"
#include "../../src/host/analysis/driver_internal.h"
#include "p2pscope/driver_model.h"

#define GH100 0x2330 /* H100 SXM */
#define TU102 0x1e04 /* RTX 2080 Ti */
#define GB202 0x2b85 /* RTX 5090 */

#define OK  P2PS_NV_ST_OK
#define NS  P2PS_NV_ST_NOT_SUPPORTED
#define DR  P2PS_NV_ST_DISABLED_BY_REGKEY
#define MBX P2PS_NV_PATH_PCIE_MAILBOX
#define B1  P2PS_NV_PATH_PCIE_BAR1

/* What the model is asked about one row: the host, and what differs from the default. */
struct host_spec {
	uint16_t chip;
	uint64_t bar1, vram;
	bool console;      /* GPU 0 drives the boot console */
	bool grow;         /* the VBIOS offers a larger BAR1 than the one set */
	int cpu_family;    /* Linux "cpu family"; 0: Intel 6 model 143 */
	const char *keys;  /* NVreg_RegistryDwords */
	uint16_t switch_d; /* the switch ports' device id (vendor PLX); 0: 0x8747 */
	bool arm;          /* an Arm host (a Grace CPU's /proc/cpuinfo) */
	bool no_clique;    /* no hypervisor P2P clique: the host checks decide */
	uint16_t hb;       /* the Intel host bridge 00:00.0's device id; 0: none */
};

static void host(struct dm *m, const struct host_spec *s)
{
	struct fx *f = &m->f;
	build_switch(f);
	struct p2ps_host *h = &f->h;
	if (s->switch_d)
		h->devs[f->usp].device_id = h->devs[f->dsp0].device_id =
		        h->devs[f->dsp1].device_id = s->switch_d;
	h->vm.in_vm = true;
	h->cpu = (struct p2ps_host_cpu){.known = true,
	                                .arch = "x86_64",
	                                .vendor = "GenuineIntel",
	                                .family = 6,
	                                .model = 143};
	if (s->cpu_family)
		h->cpu = (struct p2ps_host_cpu){.known = true,
		                                .arch = "x86_64",
		                                .vendor = "AuthenticAMD",
		                                .family = s->cpu_family,
		                                .model = 1};
	if (s->keys) {
		h->nvidia.params_known = true;
		snprintf(h->nvidia.registry_dwords, sizeof(h->nvidia.registry_dwords), "%s",
		         s->keys);
	}
	int log2 = 0;
	while ((1ull << log2) < s->bar1)
		log2++;
	for (int k = 0; k < 2; k++) {
		struct p2ps_dev *d = &h->devs[k ? f->g1 : f->g0];
		d->device_id = s->chip;
		d->bars[1].size = s->bar1;
		d->gpu.vram_bytes = s->vram;
		d->rebar.e[0].current = (uint8_t)(log2 - 20);
		d->rebar.e[0].sizes = (1ull << (log2 - 20)) | (s->grow ? 1ull << (log2 - 19) : 0);
		/* the hypervisor's P2P clique 1 (objClLoadPcieVirtualP2PApproval, nvpcie.h) */
		if (s->no_clique)
			continue;
		d->config[0x34] = 0xc8;
		const uint8_t cap[8] = {0x09, 0x00, 0x08, 0x50, 0x32, 0x50, 1 << 3, 0x00};
		memcpy(d->config + 0xc8, cap, sizeof(cap));
	}
	h->devs[f->g0].boot_vga = s->console;
	if (s->arm)
		h->cpu = (struct p2ps_host_cpu){
		        .known = true, .arch = "arm64", .family = -1, .model = -1};
	if (s->hb)
		tm_dev(h, "0000:00:00.0", 0x8086, s->hb, 0x060000, -1);
}

/* The model of spec's row, or of row where one is given (a row the table has not yet),
 * on the host s, both GPUs the chip named chip where one is given (a chip without a public
 * device id), else the chip of s->chip's device id. */
static const struct p2ps_drv_pair *run_model(struct dm *m, const char *spec,
                                             const struct host_spec *s,
                                             const struct p2ps_nv_driver *row, const char *chip)
{
	char err[160] = "";
	struct p2ps_error e = {0};
	p2ps_drv_report_free(&m->r);
	p2ps_analysis_free(&m->f.a);
	p2ps_host_free(&m->f.h);
	host(m, s);
	tm_finish(&m->f.h);
	if (chip) {
		m->f.h.devs[m->f.g0].chip = m->f.h.devs[m->f.g1].chip = p2ps_nvidia_chip_find(chip);
		assert_non_null(m->f.h.devs[m->f.g0].chip);
	}
	assert_int_equal(p2ps_drv_config_make(&m->f.h, spec, NULL, &m->cfg, err, sizeof(err)), 0);
	if (row)
		m->cfg.row = row;
	else
		assert_true(m->cfg.row_exact);
	struct p2ps_analysis_opts ao = {.driver = &m->cfg};
	assert_int_equal(p2ps_analysis_run_opts(&m->f.h, &ao, &m->f.a, &e), 0);
	assert_int_equal(p2ps_drv_model_run(&m->f.a, &m->cfg, &m->r), 0);
	assert_int_equal(m->r.n_pairs, 1);
	return &m->r.pairs[0];
}

static const struct p2ps_drv_pair *model(struct dm *m, const char *spec, const struct host_spec *s)
{
	return run_model(m, spec, s, NULL, NULL);
}

#define GIB  (1024ull * TM_MIB)
#define H100 .chip = GH100, .bar1 = 128 * GIB, .vram = 80 * GIB

/* The registry keys that ask each series for BAR1 P2P: forceP2PType BAR1P2P (550-570),
 * PCIEP2P with pcieP2PType BAR1 and static BAR1 AUTO (575, whose default is DISABLE; 580+
 * default to AUTO). The forks need none: their patches build it in; the ports get
 * RMForceP2PType=1 so that its PCIEP2P value is the one compared. */
#define ASK_550     "RMForceP2PType=2"
#define ASK_575     "RMForceP2PType=1;RMPcieP2PType=1;RMForceStaticBar1=2"
#define ASK_PORT    "RMForceP2PType=1"
#define ASK_550_X   ASK_550 ";ForceP2P=0x111"
#define ASK_575_X   ASK_575 ";ForceP2P=0x111"
#define ASK_FORK_X  "ForceP2P=0x111"
#define ASK_PORT_X  ASK_PORT ";ForceP2P=0x111"
#define ASK_550_DIS ASK_550 ";RMForceStaticBar1=0"
#define ASK_575_DIS "RMForceP2PType=1;RMPcieP2PType=1;RMForceStaticBar1=0"

/* One row: its spec, the keys that ask it for BAR1 P2P (with ForceP2P=0x111), and what
 * the cases expect of it. */
struct row {
	const char *spec;
	const char *ask, *ask_x;
	/* BAR1 asked for (ASK_*): atomics on the BAR1 path, and the gate of its read (the
	 * mailbox's hypervisor verdict, or the patch's override) */
	enum p2ps_nv_status atomics;
	enum p2ps_nv_gate read_gate;
	/* ... with ForceP2P=0x111: atomics (the field exists from 565.57.01) */
	enum p2ps_nv_status atomics_x;
	bool c2c;                    /* the C2C path is tried (580.65.06+) */
	enum p2ps_nv_gate force_c2c; /* RMForceP2PType=3: NVLink's gate (3 is NVLINK before 575) */
	/* ForceP2P=0x111 with static BAR1 off (BAR1 64 GiB): the path chosen (overrides before
	 * the mapping check up to 570.86.15) and its atomics */
	enum p2ps_nv_path forced;
	enum p2ps_nv_status forced_atomics;
	/* no keys: NVLink's gate, the path, and the key the fix names */
	enum p2ps_nv_gate plain_nvlink;
	enum p2ps_nv_path plain;
	const char *plain_fix;
	/* BAR1 64 GiB < 80 GiB, asked for BAR1: the static-BAR1 fix's key, or "" */
	const char *small_fix;
	/* GPU 0 on the console, no keys: static BAR1 status, rule, start offset */
	enum p2ps_nv_status console_st;
	const char *console_rule;
	uint64_t console_start;
	/* RMForceStaticBar1=2, no console: the BAR1 the rule needs (0: no rule) */
	uint64_t auto_needs;
	/* TU102s, BAR1 asked for: the path (the BAR1 HAL: Hopper+ in stock, every chip in the
	 * forks) */
	enum p2ps_nv_path turing;
	/* RMPcieP2PType=2 (AUTO) on H100s: the path (590.44.01+: only chips with BAR1 P2P by
	 * default) */
	enum p2ps_nv_path auto_type;
	bool grows;          /* asks to grow BAR1 without NVreg_EnableResizableBar */
	bool ryzen;          /* an AMD family cpu.c does not list is RYZEN */
	bool unaligned;      /* console + BAR1 asked: the peer DMA address is not 512 MiB aligned */
	const char *dis_fix; /* RMForceStaticBar1=0: the static-BAR1 fix's key, or "" */
	bool auto_mailbox;   /* RMPcieP2PType=2 and BAR1 asked for: mailbox space in BAR1 */
	bool force3_mailbox; /* RMForceP2PType=3: mailbox space in BAR1 */
	/* RMForceStaticBar1=2 with GPU 0 on the console: the BAR1 the rule needs */
	uint64_t auto_console_needs;
};

#define MIB TM_MIB
/* 580+ AUTO, no console (mailbox 4 MiB): ALIGN_UP(80 GiB + UserD 2 MiB + 128 KiB + 4 MiB +
 * (512 - 4) MiB, 2 MiB) + 2 MiB. 570/575 AUTO: ALIGN_UP(80 GiB + 2 MiB + 128 KiB + 4 MiB,
 * 2 MiB) + 2 MiB. 565 AUTO: 2 x 80 GiB + 2 MiB. The ports: client FB + ALIGN_UP(console +
 * mailbox, 512 MiB) + 4 KiB (no mailbox: pcieP2PType BAR1). 550's kbusIsBar1P2PCapable:
 * ALIGN_UP(80 GiB, 2 MiB) + 128 KiB + 4 KiB with BAR1P2P forced, else no rule. */
#define NEEDS_580  (80 * GIB + 518 * MIB)
#define NEEDS_570  (80 * GIB + 10 * MIB)
#define NEEDS_570F (80 * GIB + 6 * MIB) /* forceP2PType BAR1P2P: no mailbox space */
/* With the console (8 MiB): 570/575 ALIGN_UP(80 GiB + 2 MiB + 128 KiB + 8 + 4 MiB, 2 MiB) +
 * 2 MiB, without mailbox space 80 GiB + 14 MiB; 580+ the same as without the console (the
 * padding takes up the console); the ports 80 GiB + ALIGN_UP(8 MiB, 512 MiB) + 4 KiB. */
#define NEEDS_570C  (80 * GIB + 18 * MIB)
#define NEEDS_570FC (80 * GIB + 14 * MIB)
#define NEEDS_PORTC (80 * GIB + 512 * MIB + 4096)
#define NEEDS_565   (160 * GIB + 2 * MIB)
#define NEEDS_PORT  (80 * GIB + 4096)
#define NEEDS_550P  (80 * GIB + 132 * 1024)

#define F_SB1     "RMForceStaticBar1=1"
#define F_TAIL    "RMP2PFbTailReserveMb=1"
#define F_FT2     "RMForceP2PType=2"
#define F_PT1     "RMPcieP2PType=1"
#define F_SB2     "RMForceStaticBar1=2"
#define R_550     "kbusIsBar1P2PCapable"
#define R_ONLY    "ONLY_GPU"
#define R_DIS     "DISABLE"
#define R_AUTO    "AUTO"
#define FT        P2PS_NV_GATE_FORCE_P2P_TYPE
#define NONV      P2PS_NV_GATE_NO_NVLINK
#define HYP       P2PS_NV_GATE_HYPERVISOR
#define OVR       P2PS_NV_GATE_P2P_OVERRIDE
#define START(mb) ((8 + (mb)) * MIB) /* console 8 MiB + mailbox, unaligned */
#define S512      (512 * MIB)

/* clang-format off */
static const struct row rows[] = {
	{"550", ASK_550, ASK_550_X, NS, HYP, NS, false, NONV, B1, NS, NONV, MBX, F_FT2, "",
	 NS, R_550, START(0), 0, MBX, B1, false, false, false, F_FT2, false, false, 0},
	{"565", ASK_550, ASK_550_X, NS, HYP, OK, false, NONV, B1, OK, NONV, MBX, F_FT2, F_SB1,
	 NS, R_ONLY, START(0), NEEDS_565, MBX, B1, false, false, false, F_FT2, false, false, NEEDS_565},
	{"570", ASK_550, ASK_550_X, NS, HYP, OK, false, NONV, B1, OK, NONV, MBX, F_FT2, F_SB1,
	 NS, R_ONLY, START(4), NEEDS_570, MBX, B1, false, true, false, F_FT2, false, true, NEEDS_570C},
	{"575", ASK_575, ASK_575_X, NS, HYP, OK, false, FT, MBX, NS, NONV, MBX, F_PT1, F_SB1,
	 NS, R_DIS, START(4), NEEDS_570, MBX, B1, false, true, true, F_SB2, true, true, NEEDS_570C},
	{"580", ASK_575, ASK_575_X, NS, HYP, OK, true, FT, MBX, NS, NONV, MBX, F_PT1, F_SB1,
	 OK, R_AUTO, S512, NEEDS_580, MBX, B1, false, true, false, F_SB2, true, true, NEEDS_580},
	{"590", ASK_575, ASK_575_X, NS, HYP, OK, true, FT, MBX, NS, NONV, MBX, F_PT1, F_SB1,
	 OK, R_AUTO, S512, NEEDS_580, MBX, MBX, false, true, false, F_SB2, true, true, NEEDS_580},
	{"595", ASK_575, ASK_575_X, NS, HYP, OK, true, FT, MBX, NS, NONV, MBX, F_PT1, F_SB1,
	 OK, R_AUTO, S512, NEEDS_580, MBX, MBX, false, true, false, F_SB2, true, true, NEEDS_580},
	/* 610.57.04 (p2p_caps.c of its forks) and 615.71.09: the gates these hosts meet are
	 * 595.45.04's (the clique decides before the chipset check; no GPU here is self-hosted). */
	{"610", ASK_575, ASK_575_X, NS, HYP, OK, true, FT, MBX, NS, NONV, MBX, F_PT1, F_SB1,
	 OK, R_AUTO, S512, NEEDS_580, MBX, MBX, false, true, false, F_SB2, true, true, NEEDS_580},
	{"615", ASK_575, ASK_575_X, NS, HYP, OK, true, FT, MBX, NS, NONV, MBX, F_PT1, F_SB1,
	 OK, R_AUTO, S512, NEEDS_580, MBX, MBX, false, true, false, F_SB2, true, true, NEEDS_580},
	{"550-tinygrad", NULL, ASK_FORK_X, NS, OVR, NS, false, NONV, B1, NS, FT, B1, NULL, "",
	 OK, R_550, START(0), NEEDS_550P, B1, B1, true, false, false, "", false, false, NEEDS_550P},
	{"565-tinygrad", NULL, ASK_FORK_X, DR, OVR, OK, false, NONV, B1, OK, FT, B1, NULL, F_SB1,
	 OK, R_ONLY, START(0), NEEDS_565, B1, B1, true, false, false, F_FT2, false, false, NEEDS_565},
	{"570-aikitoria", NULL, ASK_FORK_X, DR, OVR, OK, false, NONV, B1, OK, FT, B1, NULL, F_SB1,
	 OK, R_ONLY, START(0), NEEDS_570F, B1, B1, true, true, false, F_FT2, false, true, NEEDS_570FC},
	{"575-aikitoria", ASK_PORT, ASK_PORT_X, DR, OVR, OK, false, FT, MBX, NS, NONV, B1, NULL, F_SB1,
	 OK, R_AUTO, START(0), NEEDS_PORT, B1, B1, true, true, true, F_SB2, true, false, NEEDS_PORTC},
	{"580-aikitoria", ASK_PORT, ASK_PORT_X, DR, OVR, OK, true, FT, MBX, NS, NONV, B1, NULL, F_TAIL,
	 OK, R_AUTO, S512, NEEDS_PORT, B1, B1, true, true, false, F_SB2, true, false, NEEDS_PORTC},
	/* aikitoria's 590/595 ports: the 580 port's patch on stock 595's static BAR1 rule (no
	 * mailbox space: pcieP2PType BAR1), with 590.44.01's BAR1-by-default gate; 610/615: the
	 * client-FB rule and RMP2PFbTailReserveMb (the display-aware window needs a GB20x). */
	{"590-aikitoria", ASK_PORT, ASK_PORT_X, DR, OVR, OK, true, FT, MBX, NS, NONV, B1, NULL, F_SB1,
	 OK, R_AUTO, S512, NEEDS_570F, B1, MBX, true, true, false, F_SB2, true, false, NEEDS_580},
	{"595-aikitoria", ASK_PORT, ASK_PORT_X, DR, OVR, OK, true, FT, MBX, NS, NONV, B1, NULL, F_SB1,
	 OK, R_AUTO, S512, NEEDS_570F, B1, MBX, true, true, false, F_SB2, true, false, NEEDS_580},
	{"610-aikitoria", ASK_PORT, ASK_PORT_X, DR, OVR, OK, true, FT, MBX, NS, NONV, B1, NULL, F_TAIL,
	 OK, R_AUTO, S512, NEEDS_PORT, B1, MBX, true, true, false, F_SB2, true, false, NEEDS_PORTC},
	{"615-aikitoria", ASK_PORT, ASK_PORT_X, DR, OVR, OK, true, FT, MBX, NS, NONV, B1, NULL, F_TAIL,
	 OK, R_AUTO, S512, NEEDS_PORT, B1, MBX, true, true, false, F_SB2, true, false, NEEDS_PORTC},
	/* Method 3: the same, but BAR1 without static BAR1 (ForceP2P=0x111 takes it, atomics
	 * on the override's word). */
	{"595-duanyll", ASK_PORT, ASK_PORT_X, DR, OVR, OK, true, FT, B1, OK, NONV, B1, NULL, F_SB1,
	 OK, R_AUTO, S512, NEEDS_570F, B1, MBX, true, true, false, F_SB2, true, false, NEEDS_580},
	{"610-duanyll", ASK_PORT, ASK_PORT_X, DR, OVR, OK, true, FT, B1, OK, NONV, B1, NULL, F_TAIL,
	 OK, R_AUTO, S512, NEEDS_PORT, B1, MBX, true, true, false, F_SB2, true, false, NEEDS_PORTC},
	{"615-duanyll", ASK_PORT, ASK_PORT_X, DR, OVR, OK, true, FT, B1, OK, NONV, B1, NULL, F_TAIL,
	 OK, R_AUTO, S512, NEEDS_PORT, B1, MBX, true, true, false, F_SB2, true, false, NEEDS_PORTC},};
/* clang-format on */

#define ROWS_END (rows + sizeof(rows) / sizeof(rows[0]))

static bool has(const char *text, const char *want)
{
	return want[0] ? strstr(text, want) != NULL : text[0] == '\0';
}

/* BAR1 asked for: chosen everywhere (static BAR1 fits, a Xeon SPR reads); NVLink and C2C
 * refused by the forced type; atomics NS on BAR1 (not implemented) unless an override's
 * atomics field says DISABLE (0x11 >> 8 = 0) or ENABLE (0x111). */
static void bar1_asked(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {H100, .keys = r->ask};
		const struct p2ps_drv_pair *p = model(m, r->spec, &s);
		const struct p2ps_drv_path_result *b = &p->path[B1];
		if (p->chosen != B1 || b->atomics.st != r->atomics || b->read.gate != r->read_gate)
			fail_msg("%s: path %s, atomics %s, read gate %s", r->spec,
			         p2ps_nv_path_name(p->chosen), p2ps_nv_status_code(b->atomics.st),
			         p2ps_nv_gate_name(b->read.gate));
		assert_int_equal(p->path[P2PS_NV_PATH_NVLINK].read.gate, FT);
		assert_int_equal(p->path[P2PS_NV_PATH_C2C].tried, r->c2c);
		if (r->c2c)
			assert_int_equal(p->path[P2PS_NV_PATH_C2C].read.gate, FT);
		const struct host_spec sx = {H100, .keys = r->ask_x};
		p = model(m, r->spec, &sx);
		if (p->chosen != B1 || p->path[B1].atomics.st != r->atomics_x)
			fail_msg("%s, ForceP2P=0x111: path %s, atomics %s", r->spec,
			         p2ps_nv_path_name(p->chosen),
			         p2ps_nv_status_code(p->path[B1].atomics.st));
	}
}

/* RMForceP2PType=3: NVLINK up to 570 (NVLink allowed: no link, NO_NVLINK), C2C from 575
 * (NVLink refused; where the C2C path exists it is allowed: no C2C link, NO_C2C). */
static void force_type_3(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {H100, .keys = "RMForceP2PType=3"};
		const struct p2ps_drv_pair *p = model(m, r->spec, &s);
		if (p->path[P2PS_NV_PATH_NVLINK].read.gate != r->force_c2c)
			fail_msg("%s: NVLink gate %s", r->spec,
			         p2ps_nv_gate_name(p->path[P2PS_NV_PATH_NVLINK].read.gate));
		if (m->r.bar1[0].mailbox != r->force3_mailbox)
			fail_msg("%s: mailbox space %d", r->spec, m->r.bar1[0].mailbox);
		assert_int_equal(p->path[P2PS_NV_PATH_C2C].tried, r->c2c);
		if (r->c2c)
			assert_int_equal(p->path[P2PS_NV_PATH_C2C].read.gate, P2PS_NV_GATE_NO_C2C);
		/* 3 is neither BAR1P2P (550-570) nor PCIEP2P (575+): BAR1 refused. */
		assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_PCIE_P2P_TYPE);
	}
}

/* ForceP2P=0x111 (and BAR1 asked for) with a 64 GiB BAR1 under 80 GiB: static BAR1 is off
 * everywhere. Up to 570 the overrides come before the mapping check: BAR1 is chosen on
 * ForceP2P's word; from 575 the mapping check comes first and the mailbox stays. */
static void forced_without_static_bar1(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {
		        .chip = GH100, .bar1 = 64 * GIB, .vram = 80 * GIB, .keys = r->ask_x};
		const struct p2ps_drv_pair *p = model(m, r->spec, &s);
		assert_int_equal(m->r.bar1[0].st, NS);
		if (p->chosen != r->forced || p->path[B1].atomics.st != r->forced_atomics)
			fail_msg("%s: path %s, BAR1 atomics %s", r->spec,
			         p2ps_nv_path_name(p->chosen),
			         p2ps_nv_status_code(p->path[B1].atomics.st));
		/* the small BAR1 asked for: the fix for static BAR1 */
		const struct host_spec sm = {.chip = GH100,
		                             .bar1 = 64 * GIB,
		                             .vram = 80 * GIB,
		                             .keys = r->ask ? r->ask : ""};
		model(m, r->spec, &sm);
		if (!has(m->r.bar1[0].fix, r->small_fix))
			fail_msg("%s: static BAR1 fix '%s', wanted '%s'", r->spec, m->r.bar1[0].fix,
			         r->small_fix);
	}
}

/* No keys: stock keeps the mailbox (BAR1 needs a key: the fix names it); the forks' built-in
 * keys take BAR1, and tinygrad's forced type refuses NVLink. */
static void no_keys(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {H100};
		const struct p2ps_drv_pair *p = model(m, r->spec, &s);
		if (p->chosen != r->plain ||
		    p->path[P2PS_NV_PATH_NVLINK].read.gate != r->plain_nvlink)
			fail_msg("%s: path %s, NVLink gate %s", r->spec,
			         p2ps_nv_path_name(p->chosen),
			         p2ps_nv_gate_name(p->path[P2PS_NV_PATH_NVLINK].read.gate));
		const struct p2ps_drv_path_result *mb = &p->path[MBX];
		assert_int_equal(mb->write.st, OK);
		assert_int_equal(mb->write.gate, r->plain == MBX ? HYP : OVR);
		if (r->plain_fix)
			assert_non_null(strstr(p->fix, r->plain_fix));
		else
			assert_null(strstr(p->fix, "NVreg_RegistryDwords"));
	}
}

/* GPU 0 drives the console, no keys: the default policy decides static BAR1, the console
 * (8 MiB) and the mailbox (570+, 4 MiB) sit below it, 512 MiB-aligned from 580. */
static void console_defaults(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {H100, .console = true};
		model(m, r->spec, &s);
		const struct p2ps_drv_static_bar1 *b = &m->r.bar1[0];
		if (b->st != r->console_st ||
		    strncmp(b->rule, r->console_rule, strlen(r->console_rule)) ||
		    b->start != r->console_start)
			fail_msg("%s: static BAR1 %s (%s), start 0x%llx", r->spec,
			         p2ps_nv_status_code(b->st), b->rule, (unsigned long long)b->start);
	}
}

/* RMForceStaticBar1=2 (AUTO; 550 has no such key), no console: the BAR1 each rule needs. */
static void auto_needs(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {H100, .keys = "RMForceStaticBar1=2"};
		model(m, r->spec, &s);
		if (m->r.bar1[0].required != r->auto_needs)
			fail_msg("%s: needs %llu, wanted %llu", r->spec,
			         (unsigned long long)m->r.bar1[0].required,
			         (unsigned long long)r->auto_needs);
		const struct host_spec sc = {H100, .console = true, .keys = "RMForceStaticBar1=2"};
		model(m, r->spec, &sc);
		if (m->r.bar1[0].required != r->auto_console_needs)
			fail_msg("%s, console: needs %llu, wanted %llu", r->spec,
			         (unsigned long long)m->r.bar1[0].required,
			         (unsigned long long)r->auto_console_needs);
	}
}

/* The BAR1 P2P mapping HAL: GH100's in stock (kbusIsPcieBar1P2PMappingSupported, a stub
 * before Hopper), every chip's in the forks: TU102s under BAR1 asked for. */
static void turing_hal(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {
		        .chip = TU102, .bar1 = 32 * GIB, .vram = 11 * GIB, .keys = r->ask};
		const struct p2ps_drv_pair *p = model(m, r->spec, &s);
		if (p->chosen != r->turing)
			fail_msg("%s: TU102 path %s (%s)", r->spec, p2ps_nv_path_name(p->chosen),
			         p2ps_nv_gate_name(p->path[B1].read.gate));
		if (r->turing == MBX)
			assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_BAR1_HAL);
		else /* the HAL is there: no ForceP2P-before-the-mapping warning */
			assert_null(strstr(p->path[B1].why, "mappings will fail"));
	}
}

/* RMPcieP2PType=2 (AUTO): 575/580 take BAR1 on any chip with the HAL; 590.44.01's
 * kbusIsPcieBar1P2PMappingSupported_GH100 wants PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT,
 * which g_kern_bus_nvoc.c sets for GB202..GB20C only: H100s keep the mailbox, RTX 5090s
 * take BAR1. Up to 570 the key does not exist and BAR1P2P decides. */
static void pcie_type_auto(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		char keys[96];
		snprintf(keys, sizeof(keys), "%s%sRMPcieP2PType=2", r->ask ? r->ask : "",
		         r->ask ? ";" : "");
		const struct host_spec s = {H100, .keys = keys};
		const struct p2ps_drv_pair *p = model(m, r->spec, &s);
		if (p->chosen != r->auto_type)
			fail_msg("%s: path %s (%s)", r->spec, p2ps_nv_path_name(p->chosen),
			         p2ps_nv_gate_name(p->path[B1].read.gate));
		if (r->auto_type == MBX)
			assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_BAR1_BY_DEFAULT);
		if (m->r.bar1[0].mailbox != r->auto_mailbox)
			fail_msg("%s: mailbox space %d", r->spec, m->r.bar1[0].mailbox);
		const struct host_spec gb = {
		        .chip = GB202, .bar1 = 64 * GIB, .vram = 32 * GIB, .keys = keys};
		assert_int_equal(model(m, r->spec, &gb)->chosen, B1);
	}
}

/* nv_resize_pcie_bars: stock grows BAR1 only with NVreg_EnableResizableBar=1, the forks
 * always; cpu.c: an AMD family 0x1C (Linux 28) is RYZEN from 570, K8 before. */
static void resize_and_cpu(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {H100, .grow = true, .cpu_family = 28};
		model(m, r->spec, &s);
		if ((m->r.bar1[0].rebar_to != 0) != r->grows)
			fail_msg("%s: grows BAR1 %d", r->spec, m->r.bar1[0].rebar_to != 0);
		assert_string_equal(m->r.cpu_type, r->ryzen ? "RYZEN" : "K8");
		/* NVreg_EnableResizableBar=1: every driver grows it */
		const struct host_spec e = {H100, .grow = true, .keys = "EnableResizableBar=1"};
		model(m, r->spec, &e);
		assert_true(m->r.bar1[0].rebar_to != 0);
	}
}

/* BAR1 asked for with GPU 0 on the console: _kbusCreateStaticBar1IOMMUMapping (575+)
 * wants the peer DMA address (BAR1 + start) 512 MiB aligned; 575's start is console +
 * mailbox (unaligned), 580's ALIGN_UP(console + mailbox, 512 MiB). */
static void iommu_alignment(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {H100, .console = true, .keys = r->ask};
		const struct p2ps_drv_pair *p = model(m, r->spec, &s);
		assert_int_equal(p->chosen, B1);
		if ((strstr(p->fix, "not 512 MiB aligned") != NULL) != r->unaligned)
			fail_msg("%s: fix '%s'", r->spec, p->fix);
		/* without keys: only where BAR1 is chosen all the same (the forks) */
		const struct host_spec plain = {H100, .console = true};
		p = model(m, r->spec, &plain);
		bool want = r->unaligned && r->plain == B1;
		if ((strstr(p->fix, "not 512 MiB aligned") != NULL) != want)
			fail_msg("%s, no keys: fix '%s'", r->spec, p->fix);
	}
}

/* RMForceStaticBar1=0 (DISABLE) where the key exists: static BAR1 off, and the fix is
 * the key that would enable it (RMForceStaticBar1=2 where RMPcieP2PType exists, else
 * RMForceP2PType=2); tinygrad's 550 has neither key: its BAR1P2P rule holds. */
static void static_disabled(void **state)
{
	struct dm *m = *state;
	for (const struct row *r = rows; r < ROWS_END; r++) {
		const struct host_spec s = {H100, .keys = "RMForceStaticBar1=0"};
		model(m, r->spec, &s);
		if (!has(m->r.bar1[0].fix, r->dis_fix))
			fail_msg("%s: fix '%s', wanted '%s'", r->spec, m->r.bar1[0].fix,
			         r->dis_fix);
	}
}

/* The chips of 615.71.09 (NVIDIA/open-gpu-kernel-modules commit
 * 61dcc93722ecb418bb5f2e00923f05b4b8051dd1), src/nvidia/generated/g_kern_bus_nvoc.c:
 * __nvoc_init_funcTable_KernelBus gives GB10C, GR100 and GR102 the GH100 BAR1-P2P HAL
 * (kbusIsPcieBar1P2PMappingSupported_GH100); __nvoc_init_dataField_KernelBus sets
 * PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT for GB202..GB20C, GR100, GR102, and bBar1Disabled
 * for GB10B, GB10C, GB20B, GB20C, whose BAR1 kbusInitBarsSize then sizes 0, so that
 * kbusIsStaticBar1Supported_TU102 refuses static BAR1 and the BAR1-P2P mapping (which wants
 * it on both GPUs, kern_bus_gh100.c) is off. p2p_caps.c, the registry keys and the static
 * BAR1 rules are 595.45.04's (unchanged at 615.71.09).
 *
 * The stock 615 row with its gates: the table's own once it has one (and then it must have
 * the bar1_disabled gate), else the newest stock row as it stands for 615. */
static const struct p2ps_nv_driver *stock_615(struct p2ps_nv_driver *stand_in)
{
	const unsigned dis = P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_DISABLED);
	const struct p2ps_nv_driver *r = p2ps_nv_driver_exact(615, P2PS_NV_FLAVOR_STOCK);
	if (r) {
		assert_true(r->gates & dis);
		return r;
	}
	bool exact;
	*stand_in = *p2ps_nv_driver_find(P2PS_NV_SERIES_NONE, P2PS_NV_FLAVOR_STOCK, &exact);
	stand_in->series = 615;
	stand_in->gates |= dis;
	return stand_in;
}

#define GB10     0x2e12 /* NVIDIA GB10 (DGX Spark): GB20B */
#define GB200    0x2901 /* B200: GB100 */
#define ASK_AUTO "RMPcieP2PType=2"
#define ASK_BAR1 "RMPcieP2PType=1"

/* A pair of GB10s (GB20B) asked for BAR1 P2P under 615: the chip has the HAL and BAR1 P2P by
 * default, but its BAR1 is disabled: NS by bar1_disabled (a static BAR1 that would fit
 * otherwise), the mailbox stays. GB10C (no BAR1 P2P by default) meets bar1_disabled when
 * BAR1 is asked for outright, and bar1_by_default first under AUTO. The gate is the row's:
 * a row without it does not check bBar1Disabled. */
static void gb10_bar1_disabled(void **state)
{
	struct dm *m = *state;
	struct p2ps_nv_driver stand_in, without;
	const struct p2ps_nv_driver *row = stock_615(&stand_in);
	const struct host_spec s = {
	        .chip = GB10, .bar1 = 128 * GIB, .vram = 80 * GIB, .keys = ASK_AUTO};
	const struct p2ps_drv_pair *p = run_model(m, "615", &s, row, NULL);
	assert_int_equal(p->path[B1].read.st, NS);
	assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_BAR1_DISABLED);
	assert_int_equal(p->path[B1].write.gate, P2PS_NV_GATE_BAR1_DISABLED);
	assert_non_null(strstr(p->path[B1].why, "GB20B"));
	assert_int_equal(p->chosen, MBX);
	const struct host_spec ask = {
	        .chip = GB10, .bar1 = 128 * GIB, .vram = 80 * GIB, .keys = ASK_BAR1};
	p = run_model(m, "615", &ask, row, "GB10C");
	assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_BAR1_DISABLED);
	p = run_model(m, "615", &s, row, "GB10C");
	assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_BAR1_BY_DEFAULT);
	without = *row;
	without.gates &= ~P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_DISABLED);
	p = run_model(m, "615", &s, &without, NULL);
	assert_int_equal(p->chosen, B1);
}

/* GR100 and GR102 under 615 with RMPcieP2PType=2 (AUTO): BAR1 P2P by default, so BAR1 is
 * chosen (static BAR1 fits, a Xeon SPR reads); a B200 pair (GB100, not by default) keeps
 * the mailbox. Under 595.45.04 GR100 is in no list: no BAR1-P2P HAL (the series does not
 * know the chip). */
static void gr100_by_default(void **state)
{
	struct dm *m = *state;
	struct p2ps_nv_driver stand_in;
	const struct p2ps_nv_driver *row = stock_615(&stand_in);
	const struct host_spec s = {
	        .chip = GB200, .bar1 = 128 * GIB, .vram = 80 * GIB, .keys = ASK_AUTO};
	static const char *const rubin[] = {"GR100", "GR102"};
	for (size_t i = 0; i < 2; i++) {
		const struct p2ps_drv_pair *p = run_model(m, "615", &s, row, rubin[i]);
		if (p->chosen != B1)
			fail_msg("%s: path %s (%s)", rubin[i], p2ps_nv_path_name(p->chosen),
			         p2ps_nv_gate_name(p->path[B1].read.gate));
		assert_int_equal(p->st[P2PS_NV_CAPS_PCI_BAR1], OK);
	}
	const struct p2ps_drv_pair *p = run_model(m, "615", &s, row, NULL);
	assert_int_equal(p->chosen, MBX);
	assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_BAR1_BY_DEFAULT);
	p = run_model(m, "595", &s, NULL, "GR100");
	assert_int_equal(p->chosen, MBX);
	assert_int_equal(p->path[B1].read.gate, P2PS_NV_GATE_BAR1_HAL);
}

#define GH200 0x2342 /* GH200 120GB: README.md's supported GPUs, 615.71.09 */
#define CNS   P2PS_NV_ST_CHIPSET_NOT_SUPPORTED
#define U     P2PS_NV_ST_UNKNOWN

/* A Grace-Hopper pair (GH200, GH100 chip) on its Arm host. 615.71.09 p2p_caps.c
 * _kp2pCapsGetStatusOverPcie: after the ForceP2P override, gpuIsSelfHosted on any GPU of
 * the mask gives read = write = NOT_SUPPORTED, before the GSP cache and the hypervisor
 * check; nothing is OK, so BAR1 is not tried and the connectivity is UNKNOWN
 * (p2pGetCapsStatus): every index NS (client_resource.c). With ForceP2P=0x11 the override
 * returns OK first: PCIE_PROPRIETARY. 595.45.04 and the 610.57.04 forks have no such gate:
 * the hypervisor's clique answers OK. */
static void self_hosted(void **state)
{
	struct dm *m = *state;
	const struct host_spec s = {
	        .chip = GH200, .bar1 = 128 * GIB, .vram = 96 * GIB, .arm = true};
	const struct p2ps_drv_pair *p = model(m, "615.71.09", &s);
	const struct p2ps_drv_path_result *mb = &p->path[MBX];
	assert_int_equal(mb->read.st, NS);
	assert_int_equal(mb->read.gate, P2PS_NV_GATE_SELF_HOSTED);
	assert_int_equal(mb->write.gate, P2PS_NV_GATE_SELF_HOSTED);
	assert_int_equal(p->chosen, P2PS_NV_PATH_NONE);
	assert_false(p->path[B1].tried);
	for (int k = 0; k < P2PS_NV_CAPS_COUNT; k++)
		if (p->st[k] != NS)
			fail_msg("615 self-hosted: %s is %s, wanted NS", p2ps_nv_caps_index_name(k),
			         p2ps_nv_status_code(p->st[k]));
	assert_int_equal(p->gate[P2PS_NV_CAPS_READ], P2PS_NV_GATE_SELF_HOSTED);

	const struct host_spec forced = {.chip = GH200,
	                                 .bar1 = 128 * GIB,
	                                 .vram = 96 * GIB,
	                                 .arm = true,
	                                 .keys = "ForceP2P=0x11"};
	p = model(m, "615.71.09", &forced);
	assert_int_equal(p->chosen, MBX);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_WRITE], OK);
	assert_int_equal(p->st[P2PS_NV_CAPS_PROP], OK);
	assert_int_equal(p->path[MBX].read.gate, OVR);

	for (const char *const *v = (const char *const[]){"595.45.04", "610.57.04", NULL}; *v;
	     v++) {
		p = model(m, *v, &s);
		if (p->path[MBX].read.gate != HYP || p->st[P2PS_NV_CAPS_READ] != OK)
			fail_msg("%s: read %s [%s], wanted OK [hypervisor]", *v,
			         p2ps_nv_status_code(p->st[P2PS_NV_CAPS_READ]),
			         p2ps_nv_gate_name(p->path[MBX].read.gate));
	}
}

/* H100 PCIe boards (GH100, a chip whose HAL can be self-hosted: g_gpu_nvoc.c
 * gpuDetermineSelfHostedMode, 615.71.09) on an Arm host: a Grace server may hold PCIe GPUs
 * or be the superchip itself, which the snapshot does not tell: unknown on 615, never a
 * guess. On an x86 host they are not self-hosted (the rows above). */
static void self_hosted_unknown(void **state)
{
	struct dm *m = *state;
	const struct host_spec s = {H100, .arm = true};
	const struct p2ps_drv_pair *p = model(m, "615.71.09", &s);
	assert_int_equal(p->path[MBX].read.st, U);
	assert_int_equal(p->path[MBX].read.gate, P2PS_NV_GATE_UNKNOWN_FACT);
	assert_non_null(strstr(p->path[MBX].why, "self-hosted"));
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], U);
	/* 595.45.04 has no self-hosted gate: the clique decides. */
	assert_int_equal(model(m, "595.45.04", &s)->st[P2PS_NV_CAPS_READ], OK);
}

/* No hypervisor clique, switch ports the driver does not accept (PLX 0x8600 is not in
 * IS_SUPPORTED_PCIE_SWITCH), QEMU q35's host bridge 8086:29c0, which chipset_pcie.c's table
 * does not list as peer-capable. 610.57.04 (p2p_caps.c of its forks,
 * _kp2pCapsGetStatusOverPcie): no common switch and the chipset not peer read/write capable:
 * CHIPSET_NOT_SUPPORTED. 615.71.09: the same unless GSP set the GPU's bSkipChipsetCheck
 * (gpuGetPcieP2PSkipChipsetCheck), which the open source does not show: unknown. 595.45.04:
 * GSP's per-pair INTERNAL_GET_PCIE_P2P_CAPS decides: unknown. */
static void chipset_check(void **state)
{
	struct dm *m = *state;
	const struct host_spec q35 = {H100, .no_clique = true, .switch_d = 0x8600, .hb = 0x29c0};
	const struct {
		const char *spec;
		enum p2ps_nv_status st;
		enum p2ps_nv_gate gate;
	} want[] = {
	        {"610.57.04", CNS, P2PS_NV_GATE_CHIPSET},
	        {"615.71.09", U, P2PS_NV_GATE_CHIPSET_SKIP},
	        {"595.45.04", U, P2PS_NV_GATE_GSP},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct p2ps_drv_pair *p = model(m, want[i].spec, &q35);
		const struct p2ps_drv_path_result *mb = &p->path[MBX];
		if (mb->read.st != want[i].st || mb->read.gate != want[i].gate ||
		    mb->write.st != want[i].st)
			fail_msg("%s: read %s [%s], wanted %s [%s]", want[i].spec,
			         p2ps_nv_status_code(mb->read.st), p2ps_nv_gate_name(mb->read.gate),
			         p2ps_nv_status_code(want[i].st), p2ps_nv_gate_name(want[i].gate));
	}
	const struct p2ps_drv_pair *p = model(m, "610.57.04", &q35);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], CNS);
	assert_int_equal(p->st[P2PS_NV_CAPS_PCI], NS);
	assert_int_equal(p->st[P2PS_NV_CAPS_PCI_BAR1], NS);
	/* The same with two RTX 3090s (GA102) in a QEMU q35 guest without a clique: CNS, as
	 * nvidia-smi topo -p2p showed there with 610.57.04 (noonghunna/club-3090
	 * docs/PCIE_P2P.md, e8581033). */
	const struct host_spec rtx3090 = {.chip = GA102,
	                                  .bar1 = 32 * GIB,
	                                  .vram = 24 * GIB,
	                                  .no_clique = true,
	                                  .switch_d = 0x8600,
	                                  .hb = 0x29c0};
	p = model(m, "610.57.04", &rtx3090);
	assert_int_equal(p->st[P2PS_NV_CAPS_READ], CNS);
	assert_int_equal(p->st[P2PS_NV_CAPS_WRITE], CNS);
	/* A common supported switch (PLX 8747) passes the check: the per-GPU caps GSP
	 * reported at init decide (unknown for a non-GeForce board). */
	const struct host_spec plx = {H100, .no_clique = true, .hb = 0x29c0};
	p = model(m, "610.57.04", &plx);
	assert_int_equal(p->path[MBX].read.gate, P2PS_NV_GATE_GSP);
	/* A host bridge the model does not know: whether it is peer-capable is unknown. */
	const struct host_spec other = {H100, .no_clique = true, .switch_d = 0x8600, .hb = 0x1234};
	p = model(m, "610.57.04", &other);
	assert_int_equal(p->path[MBX].read.st, U);
	assert_int_equal(p->path[MBX].read.gate, P2PS_NV_GATE_CHIPSET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        CASE(bar1_asked),       CASE(force_type_3),     CASE(forced_without_static_bar1),
	        CASE(no_keys),          CASE(console_defaults), CASE(auto_needs),
	        CASE(turing_hal),       CASE(pcie_type_auto),   CASE(resize_and_cpu),
	        CASE(iommu_alignment),  CASE(static_disabled),  CASE(gb10_bar1_disabled),
	        CASE(gr100_by_default), CASE(self_hosted),      CASE(self_hosted_unknown),
	        CASE(chipset_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
