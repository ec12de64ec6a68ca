/* SPDX-License-Identifier: MIT */
/* The NVIDIA driver table (include/p2pscope/nvidia_drivers.h): one row per driver series and
 * flavor, the vocabulary around it, the version parser and the fallback rule.
 *
 * A row's columns are read at its ref in its flavor's repository; `sources` names file (a
 * path in that repository) and function per column group. The
 * stock rows' tags are the releases whose RM headers were compiled against
 * (tests/rm/fixtures/ctrl-offsets/TAG.txt); the decision columns hold for ref, the first. */
#include "p2pscope/nvidia_drivers.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gmmu_internal.h"

/* ---- flavors ---------------------------------------------------------------------------- */

static const struct p2ps_nv_flavor_row flavors[P2PS_NV_FLAVOR_COUNT] = {
        [P2PS_NV_FLAVOR_STOCK] = {"stock", "NVIDIA/open-gpu-kernel-modules", P2PS_NV_FLAVOR_STOCK,
                                  0, "NVIDIA's open kernel modules as released"},
        [P2PS_NV_FLAVOR_TINYGRAD] = {"tinygrad", "tinygrad/open-gpu-kernel-modules",
                                     P2PS_NV_FLAVOR_STOCK, 0,
                                     "the P2P patch: BAR1 P2P forced on for every chip"},
        [P2PS_NV_FLAVOR_AIKITORIA] = {"aikitoria", "aikitoria/open-gpu-kernel-modules",
                                      P2PS_NV_FLAVOR_STOCK,
                                      P2PS_NV_FP_DISPLAY_PARTIAL_BAR1 |
                                              P2PS_NV_FP_LIBCUDA_MIXED_GEN |
                                              P2PS_NV_FP_NEEDS_IOMMU_PT,
                                      "tinygrad's patch carried to newer series, then ports "
                                      "onto NVIDIA's own BAR1 P2P"},
        /* Duanyll 595.71.05-p2p-48g (README 23b7fb82, docs/48g-4090-p2p/method3-*.md at
         * 12870848): forked from aikitoria's 595.71.05-p2p; LingzheZhao 610.57.04-p2p-48g
         * forks aikitoria's 610.57.04-p2p-v2 and takes Method 3 from Duanyll. */
        [P2PS_NV_FLAVOR_DUANYLL] = {"duanyll", "Duanyll/open-gpu-kernel-modules",
                                    P2PS_NV_FLAVOR_AIKITORIA, P2PS_NV_FP_BAR1_ON_DEMAND,
                                    "aikitoria's ports with peer BAR1 windows mapped per "
                                    "allocation where BAR1 is smaller than VRAM (Method 3)"},
};

static const char *const prop_names[P2PS_NV_FP_COUNT] = {
        "bar1_on_demand", "display_partial_bar1", "libcuda_mixed_generations", "needs_iommu_pt"};

const char *p2ps_nv_flavor_prop_name(unsigned bit_index)
{
	return bit_index < P2PS_NV_FP_COUNT ? prop_names[bit_index] : NULL;
}

const struct p2ps_nv_flavor_row *p2ps_nv_flavor_row(enum p2ps_nv_flavor f)
{
	return (unsigned)f < P2PS_NV_FLAVOR_COUNT ? &flavors[f] : NULL;
}

const char *p2ps_nv_flavor_name(enum p2ps_nv_flavor f)
{
	return (unsigned)f < P2PS_NV_FLAVOR_COUNT ? flavors[f].name : "?";
}

const char *p2ps_nv_flavor_list(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (int f = 0; len && f < P2PS_NV_FLAVOR_COUNT; f++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", f ? ", " : "", flavors[f].name);
	}
	return buf;
}

int p2ps_nv_flavor_parse(const char *s, size_t n, enum p2ps_nv_flavor *out, struct p2ps_error *err)
{
	for (int f = 0; s && f < P2PS_NV_FLAVOR_COUNT; f++)
		if (strlen(flavors[f].name) == n && !strncasecmp(flavors[f].name, s, n)) {
			*out = (enum p2ps_nv_flavor)f;
			return 0;
		}
	char list[96];
	return p2ps_error_set(err, P2PS_EINVAL, "unknown flavor '%.*s' (%s)", s ? (int)n : 0,
	                      s ? s : "", p2ps_nv_flavor_list(list, sizeof(list)));
}

/* The forks' branch suffixes. tinygrad's newest branch is 565.57.01-p2p (9e39420b, its
 * repository stalled since); aikitoria names its branches VERSION-p2p from 570.86.16-p2p to
 * 615.71.09-p2p (c8bff540), with 610.57.04-p2p-v2 and -p2p-v3 (461d638b) beside
 * 610.57.04-p2p. Duanyll's Method 3 branches are 595.71.05-p2p-48g and 615.71.09-p2p-48g;
 * LingzheZhao's 610.57.04-p2p-48g; 615.71.09-p2p-3080-20g carries the same method (its
 * usage guide: aikitoria's P2P, then Duanyll's Method 3). */
static const struct p2ps_nv_branch branches[] = {
        {"p2p", 0, 565, P2PS_NV_FLAVOR_TINYGRAD, "tinygrad/open-gpu-kernel-modules 565.57.01-p2p"},
        {"p2p", 566, 9999, P2PS_NV_FLAVOR_AIKITORIA,
         "aikitoria/open-gpu-kernel-modules 615.71.09-p2p"},
        {"p2p-v2", 0, 9999, P2PS_NV_FLAVOR_AIKITORIA,
         "aikitoria/open-gpu-kernel-modules 610.57.04-p2p-v2"},
        {"p2p-v3", 0, 9999, P2PS_NV_FLAVOR_AIKITORIA,
         "aikitoria/open-gpu-kernel-modules 610.57.04-p2p-v3"},
        {"p2p-48g", 0, 9999, P2PS_NV_FLAVOR_DUANYLL,
         "Duanyll/open-gpu-kernel-modules 595.71.05-p2p-48g, LingzheZhao/open-gpu-kernel-modules "
         "610.57.04-p2p-48g"},
        {"p2p-3080-20g", 0, 9999, P2PS_NV_FLAVOR_DUANYLL, "615.71.09-p2p-3080-20g"},
};

size_t p2ps_nv_branch_count(void)
{
	return GMMU_ARRAY_SIZE(branches);
}

const struct p2ps_nv_branch *p2ps_nv_branch_at(size_t i)
{
	return i < GMMU_ARRAY_SIZE(branches) ? &branches[i] : NULL;
}

static const struct p2ps_nv_branch *branch_of(const char *s, size_t n, unsigned series)
{
	for (size_t i = 0; s && i < GMMU_ARRAY_SIZE(branches); i++) {
		const struct p2ps_nv_branch *b = &branches[i];
		if (strlen(b->suffix) == n && !strncasecmp(b->suffix, s, n) &&
		    (!series || (b->first <= series && series <= b->last)))
			return b;
	}
	return NULL;
}

int p2ps_nv_branch_flavor(const char *suffix, size_t n, unsigned series, enum p2ps_nv_flavor *out)
{
	const struct p2ps_nv_branch *b = branch_of(suffix, n, series);
	if (!b)
		return -1;
	*out = b->flavor;
	return 0;
}

/* Whether c ends a word (a suffix is followed by none of these). */
static bool word_end(char c)
{
	return !isalnum((unsigned char)c) && c != '-' && c != '_';
}

const struct p2ps_nv_branch *p2ps_nv_branch_find(const char *text, unsigned series,
                                                 enum p2ps_nv_flavor *out)
{
	const struct p2ps_nv_branch *best = NULL;
	for (size_t i = 0; text && i < GMMU_ARRAY_SIZE(branches); i++) {
		const struct p2ps_nv_branch *b = &branches[i];
		if (series && (series < b->first || series > b->last))
			continue;
		size_t n = strlen(b->suffix);
		for (const char *p = text; (p = strchr(p, '-')) != NULL; p++)
			if (!strncasecmp(p + 1, b->suffix, n) && word_end(p[1 + n]) &&
			    (!best || n > strlen(best->suffix)))
				best = b;
	}
	if (best)
		*out = best->flavor;
	return best;
}

/* ---- the driver's P2P vocabulary ---------------------------------------------------------- */

static const struct {
	const char *name, *code;
} statuses[] = {
        [P2PS_NV_ST_OK] = {"OK", "OK"},
        [P2PS_NV_ST_CHIPSET_NOT_SUPPORTED] = {"CHIPSET_NOT_SUPPORTED", "CNS"},
        [P2PS_NV_ST_GPU_NOT_SUPPORTED] = {"GPU_NOT_SUPPORTED", "GNS"},
        [P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED] = {"IOH_TOPOLOGY_NOT_SUPPORTED", "TNS"},
        [P2PS_NV_ST_DISABLED_BY_REGKEY] = {"DISABLED_BY_REGKEY", "DR"},
        [P2PS_NV_ST_NOT_SUPPORTED] = {"NOT_SUPPORTED", "NS"},
};
static const char unknown_name[] = "UNKNOWN", unknown_code[] = "U";

bool p2ps_nv_status_is_driver(unsigned v)
{
	return v < GMMU_ARRAY_SIZE(statuses);
}

const char *p2ps_nv_status_name(unsigned v)
{
	if (p2ps_nv_status_is_driver(v))
		return statuses[v].name;
	return v == P2PS_NV_ST_UNKNOWN ? unknown_name : "?";
}

const char *p2ps_nv_status_code(unsigned v)
{
	return p2ps_nv_status_is_driver(v) ? statuses[v].code : unknown_code;
}

int p2ps_nv_status_from_code(const char *s, enum p2ps_nv_status *out)
{
	for (unsigned i = 0; s && i < GMMU_ARRAY_SIZE(statuses); i++)
		if (!strcmp(s, statuses[i].code)) {
			*out = (enum p2ps_nv_status)i;
			return 0;
		}
	if (s && !strcmp(s, unknown_code)) {
		*out = P2PS_NV_ST_UNKNOWN;
		return 0;
	}
	return -1;
}

int p2ps_nv_status_parse(const char *s, enum p2ps_nv_status *out)
{
	if (!p2ps_nv_status_from_code(s, out))
		return 0;
	for (unsigned i = 0; s && i < GMMU_ARRAY_SIZE(statuses); i++)
		if (!strcmp(s, statuses[i].name)) {
			*out = (enum p2ps_nv_status)i;
			return 0;
		}
	/* nvidia-smi's legend spells TNS out as IOH topology. */
	if (s && !strcmp(s, "IOH")) {
		*out = P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED;
		return 0;
	}
	if (s && !strcmp(s, unknown_name)) {
		*out = P2PS_NV_ST_UNKNOWN;
		return 0;
	}
	return -1;
}

/* C2C and NVLink name an index and a path alike. */
static const char name_c2c[] = "c2c", name_nvlink[] = "nvlink";
static const char *const caps_names[P2PS_NV_CAPS_COUNT] = {
        "read", "write", name_nvlink, "atomics", "prop", "loopback", "pci", name_c2c, "pci_bar1"};

const char *p2ps_nv_caps_index_name(unsigned i)
{
	return i < P2PS_NV_CAPS_COUNT ? caps_names[i] : "?";
}

static const char *const path_names[P2PS_NV_PATH_COUNT + 1] = {
        name_c2c, name_nvlink, "nvlink_indirect", "pcie_mailbox", "pcie_bar1", "none"};

const char *p2ps_nv_path_name(unsigned p)
{
	return p < P2PS_NV_PATH_COUNT ? path_names[p] : path_names[P2PS_NV_PATH_NONE];
}

#define CAPS "p2p_caps.c "
static const struct {
	const char *name;
	const char *source;
} gates[] = {
        {"none", ""},
        {"force_p2p_type", CAPS "_kgetP2PCapsStatusOverC2C/_gpumgrGetP2PCapsStatusOverNvLink/"
                                "_kp2pCapsGetStatusOverPcieBar1 (forceP2PType), 595.45.04"},
        {"no_c2c", CAPS "_kgetP2PCapsStatusOverC2C (kbifIsC2CP2PSupported), 580.65.06+"},
        {"no_nvlink", CAPS "_gpumgrGetP2PCapsStatusOverNvLink (knvlinkIsNvlinkP2pSupported)"},
        {"nvswitch", CAPS "p2pGetCapsStatus (NVSwitch present: no PCIe fallback), 595.45.04"},
        {"p2p_override", CAPS "_kp2pCapsCheckStatusOverridesForPcie (ForceP2P / p2pOverride)"},
        {"hypervisor", CAPS "_kp2pCapsGetStatusOverPcie (hypervisorPcieP2pDetection)"},
        {"ioh_topology", CAPS "_kp2pCapsGetStatusOverPcie (Intel IOH root ports), 550.54.15+"},
        {"gpu_compat", CAPS "areGpusP2PCompatible (arch, impl, mobile)"},
        {"gsp", CAPS "_kp2pCapsGetStatusOverPcie (NV2080_CTRL_CMD_INTERNAL_GET_PCIE_P2P_CAPS: "
                     "GSP firmware, not in the open source)"},
        {"mailbox_atomics", CAPS "_kp2pCapsGetStatusOverPcie (atomics never over mailbox)"},
        {"pcie_p2p_type", CAPS "_kp2pCapsGetStatusOverPcieBar1 (RMForceP2PType BAR1P2P <= "
                               "570; RMPcieP2PType BAR1/AUTO 575.51.02+)"},
        {"bar1_hal", "g_kern_bus_nvoc.c kbusIsPcieBar1P2PMappingSupported (GH100 HAL only)"},
        {"bar1_by_default", "kern_bus_gh100.c kbusIsPcieBar1P2PMappingSupported_GH100 "
                            "(PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT), 590.44.01+"},
        {"static_bar1", "kern_bus_gh100.c kbusIsPcieBar1P2PMappingSupported_GH100 "
                        "(kbusIsStaticBar1Enabled on both GPUs)"},
        {"host_read", CAPS "_p2pCapsGetHostSystemStatusOverPcieBar1 (common switch, RYZEN, "
                           "XEON_SPR)"},
        {"bar1_atomics", CAPS "_p2pCapsGetPcieToplogySupportForBar1Atomics (not implemented)"},
        {"unknown_fact", "a fact the gate needs is missing"},
        {"bar1_disabled", "g_kern_bus_nvoc.c __nvoc_init_dataField_KernelBus (bBar1Disabled), "
                          "kern_bus_gm107.c kbusInitBarsSize (BAR1 sized 0), 615.71.09"},
        {"self_hosted", CAPS "_kp2pCapsGetStatusOverPcie (gpuIsSelfHosted on any GPU of the "
                             "mask: NOT_SUPPORTED, after the ForceP2P override and before the "
                             "GSP cache), 615.71.09"},
        {"chipset", CAPS "_kp2pCapsGetStatusOverPcie (bPciePeerReadCapable/WriteCapable of "
                         "the host bridge, no common switch: CHIPSET_NOT_SUPPORTED; replaces "
                         "INTERNAL_GET_PCIE_P2P_CAPS per pair), 610.57.04 forks, 615.71.09"},
        {"chipset_skip", CAPS "_kp2pCapsGetStatusOverPcie (gpuGetPcieP2PSkipChipsetCheck: GSP's "
                              "bSkipChipsetCheck per GPU), 615.71.09"},
};
_Static_assert(GMMU_ARRAY_SIZE(gates) == P2PS_NV_GATE_COUNT, "a gate without a name");
_Static_assert(P2PS_NV_GATE_COUNT <= 32, "gates are bits of an unsigned");

const char *p2ps_nv_gate_name(unsigned g)
{
	return g < P2PS_NV_GATE_COUNT ? gates[g].name : "?";
}

const char *p2ps_nv_gate_source(unsigned g)
{
	return g < P2PS_NV_GATE_COUNT ? gates[g].source : "";
}

/* ---- the bus HAL's chip lists, by series ------------------------------------------------- */

static const char *const chip_list_names[P2PS_NV_LIST_COUNT] = {"bar1_hal", "bar1_by_default",
                                                                "bar1_disabled"};

const char *p2ps_nv_chip_list_name(enum p2ps_nv_chip_list l)
{
	return (unsigned)l < P2PS_NV_LIST_COUNT ? chip_list_names[l] : "?";
}

/* Read in g_kern_bus_nvoc.c: the HAL dispatch of kbusIsPcieBar1P2PMappingSupported (and
 * kbusGetBar1P2PDmaInfo, kbusCreate/RemoveP2PMappingForBar1P2P, kbusHasPcieBar1P2PMapping,
 * which follow the same chips) in __nvoc_init_funcTable_KernelBus, and the property and
 * field of __nvoc_init_dataField_KernelBus. 615.71.09 is NVIDIA/open-gpu-kernel-modules
 * commit 61dcc93722ecb418bb5f2e00923f05b4b8051dd1. A list read at a newer tag holds for the
 * older series too (their chips are a subset: a chip a series does not know never meets it). */
#define BUS_NVOC   "src/nvidia/generated/g_kern_bus_nvoc.c "
#define BUS_HAL    BUS_NVOC "__nvoc_init_funcTable_KernelBus (kbusIsPcieBar1P2PMappingSupported"
#define BUS_FIELDS BUS_NVOC "__nvoc_init_dataField_KernelBus ("
#define GB_HAL     "GH100 GB100 GB102 GB10B GB110 GB112 GB202 GB203 GB205 GB206 GB207 GB20B GB20C "
#define GB_DEFAULT "GB202 GB203 GB205 GB206 GB207 GB20B GB20C "

/* clang-format off */
static const struct p2ps_nv_chip_list_row chip_lists[] = {
	{P2PS_NV_LIST_BAR1_HAL, 550, GB_HAL, BUS_HAL " -> _GH100), 595.45.04"},
	{P2PS_NV_LIST_BAR1_HAL, 615, GB_HAL "GB10C GR100 GR102 ", BUS_HAL " -> _GH100), 615.71.09"},
	{P2PS_NV_LIST_BAR1_BY_DEFAULT, 590, GB_DEFAULT,
	 BUS_FIELDS "PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT), 590.44.01, 595.45.04"},
	{P2PS_NV_LIST_BAR1_BY_DEFAULT, 615, GB_DEFAULT "GR100 GR102 ",
	 BUS_FIELDS "PDB_PROP_KBUS_SUPPORT_BAR1_P2P_BY_DEFAULT), 615.71.09"},
	{P2PS_NV_LIST_BAR1_DISABLED, 595, "GB10B GB20B GB20C ", BUS_FIELDS "bBar1Disabled), 595.45.04"},
	{P2PS_NV_LIST_BAR1_DISABLED, 615, "GB10B GB10C GB20B GB20C ",
	 BUS_FIELDS "bBar1Disabled), 615.71.09"},
};
/* clang-format on */

size_t p2ps_nv_chip_list_count(void)
{
	return GMMU_ARRAY_SIZE(chip_lists);
}

const struct p2ps_nv_chip_list_row *p2ps_nv_chip_list_at(size_t i)
{
	return i < GMMU_ARRAY_SIZE(chip_lists) ? &chip_lists[i] : NULL;
}

const struct p2ps_nv_chip_list_row *p2ps_nv_chip_list_of(enum p2ps_nv_chip_list l, unsigned series)
{
	const struct p2ps_nv_chip_list_row *best = NULL;
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(chip_lists); i++) {
		const struct p2ps_nv_chip_list_row *r = &chip_lists[i];
		if (r->list == l && r->first <= series && (!best || r->first > best->first))
			best = r;
	}
	return best;
}

bool p2ps_nv_chip_listed(enum p2ps_nv_chip_list l, unsigned series, const char *chip)
{
	const struct p2ps_nv_chip_list_row *r = p2ps_nv_chip_list_of(l, series);
	size_t n = chip ? strlen(chip) : 0;
	for (const char *c = r && n ? r->chips : ""; *c;) {
		size_t k = strcspn(c, " ");
		if (k == n && !strncasecmp(c, chip, n))
			return true;
		c += k + (c[k] == ' ');
	}
	return false;
}

/* Status x index -> the gates that answer it. The control NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS
 * (rmapi/client_resource.c) starts every index at NOT_SUPPORTED, copies READ and WRITE from
 * p2pGetCapsStatus, sets NVLINK and PROP OK only for the connectivity chosen (NVLink, PCIe
 * mailbox) and ATOMICS only when it is OK: so NVLINK, ATOMICS and PROP only ever read OK
 * or NOT_SUPPORTED, and the other statuses come from the read/write decision. */
#define GATE(x) P2PS_NV_GATE_BIT(P2PS_NV_GATE_##x)
#define CTRL    "rmapi/client_resource.c NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS: "
#define RW_SRC  CTRL "READ and WRITE copied from p2pGetCapsStatus (p2p_caps.c)"
#define FIX_CHIPSET                                                                                \
	"the driver does not list this chipset for PCIe P2P: GPUs under one PCIe switch the "      \
	"driver knows, or a platform it lists; ForceP2P (built into P2P-patched modules) "         \
	"decides before the host checks"
#define FIX_GPU                                                                                    \
	"GSP firmware refuses PCIe P2P for this board (GeForce on stock drivers): NVLink where "   \
	"the boards have it, a board the driver allows, or a P2P-patched open kernel module"
#define FIX_IOH                                                                                    \
	"the GPUs hang off root ports of two Intel I/O hubs: put both under one CPU socket's "     \
	"root complex"
#define FIX_REGKEY                                                                                 \
	"ForceP2P in RegistryDwords disables this path: remove the entry, or set its field to 1"
#define FIX_NONE                                                                                   \
	"no path the driver allows joins the pair: RMForceP2PType at its default, the same chip "  \
	"on both GPUs, on an NVSwitch system the NVLink fabric up (nvidia-fabricmanager)"
static const struct p2ps_nv_status_why status_whys[] = {
        {P2PS_NV_ST_CHIPSET_NOT_SUPPORTED, P2PS_NV_CAPS_READ, GATE(GSP) | GATE(HOST_READ), RW_SRC,
         FIX_CHIPSET, false},
        {P2PS_NV_ST_CHIPSET_NOT_SUPPORTED, P2PS_NV_CAPS_WRITE, GATE(GSP), RW_SRC, FIX_CHIPSET,
         false},
        {P2PS_NV_ST_GPU_NOT_SUPPORTED, P2PS_NV_CAPS_READ, GATE(GSP), RW_SRC, FIX_GPU, false},
        {P2PS_NV_ST_GPU_NOT_SUPPORTED, P2PS_NV_CAPS_WRITE, GATE(GSP), RW_SRC, FIX_GPU, false},
        {P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED, P2PS_NV_CAPS_READ, GATE(IOH), RW_SRC, FIX_IOH,
         false},
        {P2PS_NV_ST_IOH_TOPOLOGY_NOT_SUPPORTED, P2PS_NV_CAPS_WRITE, GATE(IOH), RW_SRC, FIX_IOH,
         false},
        {P2PS_NV_ST_DISABLED_BY_REGKEY, P2PS_NV_CAPS_READ, GATE(P2P_OVERRIDE), RW_SRC, FIX_REGKEY,
         false},
        {P2PS_NV_ST_DISABLED_BY_REGKEY, P2PS_NV_CAPS_WRITE, GATE(P2P_OVERRIDE), RW_SRC, FIX_REGKEY,
         false},
        {P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_CAPS_READ,
         GATE(FORCE_P2P_TYPE) | GATE(NVSWITCH) | GATE(GPU_COMPAT) | GATE(GSP), RW_SRC, FIX_NONE,
         false},
        {P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_CAPS_WRITE,
         GATE(FORCE_P2P_TYPE) | GATE(NVSWITCH) | GATE(GPU_COMPAT) | GATE(GSP), RW_SRC, FIX_NONE,
         false},
        {P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_CAPS_NVLINK, GATE(NO_NVLINK) | GATE(FORCE_P2P_TYPE),
         CTRL "NVLINK OK only when the connectivity chosen is NVLink",
         "no NVLink P2P between the pair: normal without an NVLink bridge; with one, see "
         "nvidia-smi nvlink -s",
         true},
        {P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_CAPS_ATOMICS,
         GATE(MAILBOX_ATOMICS) | GATE(BAR1_ATOMICS) | GATE(NO_NVLINK),
         CTRL "ATOMICS copied only when OK",
         "atomics go over NVLink or C2C only; over PCIe the driver never allows them: normal",
         true},
        {P2PS_NV_ST_NOT_SUPPORTED, P2PS_NV_CAPS_PROP,
         GATE(FORCE_P2P_TYPE) | GATE(NVSWITCH) | GATE(GPU_COMPAT) | GATE(IOH) | GATE(GSP),
         CTRL "PROP OK only when the connectivity chosen is the PCIe mailbox",
         "normal when the pair uses NVLink, C2C or BAR1 P2P; otherwise read the r and w codes",
         true},
};
#undef FIX_NONE
#undef FIX_REGKEY
#undef FIX_IOH
#undef FIX_GPU
#undef FIX_CHIPSET
#undef RW_SRC
#undef CTRL
#undef GATE

const struct p2ps_nv_status_why *p2ps_nv_status_why(unsigned st, unsigned index)
{
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(status_whys); i++)
		if ((unsigned)status_whys[i].st == st && (unsigned)status_whys[i].index == index)
			return &status_whys[i];
	return NULL;
}

int p2ps_nv_caps_index_from_mode(char mode)
{
	static const char letters[] = "rwnap"; /* READ, WRITE, NVLINK, ATOMICS, PROP */
	_Static_assert(P2PS_NV_CAPS_READ == 0 && P2PS_NV_CAPS_PROP == 4, "letters are indices");
	const char *p = mode ? strchr(letters, mode) : NULL;
	return p ? (int)(p - letters) : -1;
}

/* ---- versions ---------------------------------------------------------------------------- */

/* A run of 1..max digits at s: its length (0: none, or longer than max) and value. */
static size_t digits(const char *s, size_t max, unsigned *value)
{
	size_t n = 0;
	unsigned v = 0;
	while (isdigit((unsigned char)s[n])) {
		if (++n > max)
			return 0;
		v = v * 10 + (unsigned)(s[n - 1] - '0');
	}
	*value = v;
	return n;
}

size_t p2ps_nv_version_scan(const char *s, struct p2ps_nv_version *out)
{
	memset(out, 0, sizeof(*out));
	unsigned v[3] = {0, 0, 0};
	size_t n = s ? digits(s, 4, &v[0]) : 0;
	if (n < 3 || v[0] < 100)
		return 0;
	out->parts = 1;
	while (out->parts < 3 && s[n] == '.') {
		size_t k = digits(s + n + 1, 4, &v[out->parts]);
		if (!k)
			break;
		n += k + 1;
		out->parts++;
	}
	out->series = v[0];
	out->minor = v[1];
	out->patch = v[2];
	snprintf(out->text, sizeof(out->text), "%.*s", (int)n, s);
	return n;
}

static bool flavor_suffix(const char *s, unsigned series, enum p2ps_nv_flavor *out)
{
	/* A fork's branch name ("-p2p", "-p2p-48g"), else a flavor's name. */
	if (!p2ps_nv_branch_flavor(s, strlen(s), series, out))
		return true;
	return p2ps_nv_flavor_parse(s, strlen(s), out, NULL) == 0;
}

enum p2ps_nv_version_error p2ps_nv_version_parse(const char *s, struct p2ps_nv_version *out)
{
	unsigned series;
	size_t dn = s ? digits(s, 4, &series) : 0;
	memset(out, 0, sizeof(*out));
	if (dn < 3 || series < 100 || (s[dn] && s[dn] != '.' && s[dn] != '-'))
		return P2PS_NV_VERSION_NO_SERIES;
	const char *rest = s + p2ps_nv_version_scan(s, out);
	if (!*rest)
		return P2PS_NV_VERSION_OK;
	if (*rest != '-')
		return P2PS_NV_VERSION_MALFORMED;
	if (!flavor_suffix(rest + 1, out->series, &out->flavor))
		return P2PS_NV_VERSION_FLAVOR;
	out->has_flavor = true;
	return P2PS_NV_VERSION_OK;
}

static int version_cmp(const struct p2ps_nv_version *a, const struct p2ps_nv_version *b)
{
	const unsigned x[3] = {a->series, a->minor, a->patch},
	               y[3] = {b->series, b->minor, b->patch};
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* ---- RM layouts, eras, sources ---------------------------------------------------------- */

static const char *const rm_era_names[P2PS_NV_RM_ERA_COUNT] = {"550", "565", "570",
                                                               "580", "590", "615"};

const char *p2ps_nv_rm_era_name(enum p2ps_nv_rm_era e)
{
	return (unsigned)e < P2PS_NV_RM_ERA_COUNT ? rm_era_names[e] : "?";
}

static const enum p2ps_nv_flavor bar1_era_flavors[P2PS_NV_BAR1_ERA_COUNT] = {
        [P2PS_NV_BAR1_STOCK_550] = P2PS_NV_FLAVOR_STOCK,
        [P2PS_NV_BAR1_STOCK_570] = P2PS_NV_FLAVOR_STOCK,
        [P2PS_NV_BAR1_STOCK_580] = P2PS_NV_FLAVOR_STOCK,
        [P2PS_NV_BAR1_TINYGRAD_550] = P2PS_NV_FLAVOR_TINYGRAD,
        [P2PS_NV_BAR1_TINYGRAD_565] = P2PS_NV_FLAVOR_TINYGRAD,
        [P2PS_NV_BAR1_AIKITORIA_570] = P2PS_NV_FLAVOR_AIKITORIA,
        [P2PS_NV_BAR1_AIKITORIA_PORT] = P2PS_NV_FLAVOR_AIKITORIA,
        [P2PS_NV_BAR1_DUANYLL_METHOD3] = P2PS_NV_FLAVOR_DUANYLL,
};

enum p2ps_nv_flavor p2ps_nv_bar1_era_flavor(enum p2ps_nv_bar1_era e)
{
	return (unsigned)e < P2PS_NV_BAR1_ERA_COUNT ? bar1_era_flavors[e] : P2PS_NV_FLAVOR_STOCK;
}

static const char *const group_names[P2PS_NV_SRC_COUNT] = {
        "caps", "registry", "cpu", "static_bar1", "bar1_hal", "patch", "rm", "bar1_entry"};

const char *p2ps_nv_column_group_name(enum p2ps_nv_column_group g)
{
	return (unsigned)g < P2PS_NV_SRC_COUNT ? group_names[g] : "?";
}

/* The RM layouts (scripts/rm-derive-offsets.sh: NVOS46_PARAMETERS sizeof/dmaOffset/status,
 * NV_VASPACE_ALLOCATION_PARAMETERS and NV503B_ALLOC_PARAMETERS sizeof). NVOS46 gained flags2
 * and kindOverride in 580, the VA space pasid in 580, NV503B l2p/p2lFabricP2PInfo in 590. */
/* clang-format off */
static const struct p2ps_nv_rm_layout rm_550 = {P2PS_NV_RM_550, 56, 40, 48, 48, 72, false};
static const struct p2ps_nv_rm_layout rm_565 = {P2PS_NV_RM_565, 56, 40, 48, 48, 72, false};
static const struct p2ps_nv_rm_layout rm_570 = {P2PS_NV_RM_570, 56, 40, 48, 48, 72, false};
static const struct p2ps_nv_rm_layout rm_580 = {P2PS_NV_RM_580, 64, 48, 56, 56, 72, false};
static const struct p2ps_nv_rm_layout rm_590 = {P2PS_NV_RM_590, 64, 48, 56, 56, 88, true};
static const struct p2ps_nv_rm_layout rm_615 = {P2PS_NV_RM_615, 64, 48, 56, 56, 88, true};
/* clang-format on */

static const char fork_rm[] =
        "the RM client picks its layout by the version, which a fork keeps, as it keeps the "
        "RM API headers: the stock row of the series";

#define BUS "src/nvidia/src/kernel/gpu/bus/arch/"
#define SRC_CAPS                                                                                   \
	[P2PS_NV_SRC_CAPS] = {"src/nvidia/src/kernel/platform/p2p/p2p_caps.c",                     \
	                      "p2pGetCapsStatus, _kp2pCapsGetStatusOverPcie, "                     \
	                      "_kp2pCapsGetStatusOverPcieBar1, _kgetP2PCapsStatusOverC2C, "        \
	                      "_kp2pCapsCheckStatusOverridesForPcie"},                             \
	[P2PS_NV_SRC_REGISTRY] = {"src/nvidia/interface/nvrm_registry.h",                          \
	                          "NV_REG_STR_RM_FORCE_P2P_TYPE_*, NV_REG_STR_RM_PCIEP2P_TYPE_*, " \
	                          "NV_REG_STR_RM_FORCE_STATIC_BAR1*"},                             \
	[P2PS_NV_SRC_CPU] = {"src/nvidia/src/kernel/platform/cpu.c",                               \
	                     "cpuidInfoAMD, cpuidInfoIntel"},                                      \
	[P2PS_NV_SRC_BAR1_HAL] = {"src/nvidia/generated/g_kern_bus_nvoc.c",                        \
	                          "kbusIsPcieBar1P2PMappingSupported (the HAL per chip)"}
#define SRC_RM                                                                                     \
	[P2PS_NV_SRC_RM] = {"src/common/sdk/nvidia/inc (nvos.h, cl503b.h, ctrl*.h)",               \
	                    "offsetof/sizeof per tag (scripts/rm-derive-offsets.sh)"}
#define SRC_PATCH                                                                                  \
	[P2PS_NV_SRC_PATCH] = {                                                                    \
	        "src/nvidia/src/kernel/gpu/bif/kernel_bif.c, kernel-open/nvidia/nv-pci.c",         \
	        "_kbifInitRegistryOverrides, nv_resize_pcie_bars"}
#define SRC_UVM      "src/nvidia/src/kernel/rmapi/nv_gpu_ops.c"
#define SRC_RM_ENTRY "src/nvidia/src/kernel/gpu/mem_mgr/arch/hopper/virt_mem_allocator_gh100.c"

static const struct p2ps_nv_source stock_550_sources[P2PS_NV_SRC_COUNT] = {
        SRC_CAPS,
        SRC_RM,
        [P2PS_NV_SRC_STATIC_BAR1] = {BUS "hopper/kern_bus_gh100.c", "kbusIsBar1P2PCapable_GH100"},
        [P2PS_NV_SRC_BAR1_ENTRY] = {SRC_RM_ENTRY ", " SRC_UVM, "dmaAllocBar1P2PMapping_GH100, "
                                                               "nvGpuOpsGetExternalAllocAperture"},
};
static const struct p2ps_nv_source stock_sources[P2PS_NV_SRC_COUNT] = {
        SRC_CAPS,
        SRC_RM,
        [P2PS_NV_SRC_STATIC_BAR1] = {BUS "turing/kern_bus_tu102.c, " BUS
                                         "maxwell/kern_bus_gm107.c, " BUS "hopper/kern_bus_gh100.c",
                                     "kbusIsStaticBar1Supported_TU102, kbusInitBar1_GM107, "
                                     "_kbusRequiresP2PMailboxBar1_GM107, "
                                     "_kbusCreateStaticBar1IOMMUMapping"},
        [P2PS_NV_SRC_BAR1_ENTRY] = {SRC_RM_ENTRY ", " SRC_UVM, "dmaAllocBar1P2PMapping_GH100, "
                                                               "nvGpuOpsGetExternalAllocAperture, "
                                                               "_nvGpuOpsEncodeBar1P2PAddrs"},
};
/* No NVIDIA 610 tree is stored: p2p_caps.c was read in a fork of 610.57.04 whose diff does
 * not touch _kp2pCapsGetStatusOverPcie; the other groups are 615.71.09's (the row says so). */
static const struct p2ps_nv_source stock_610_sources[P2PS_NV_SRC_COUNT] = {
        [P2PS_NV_SRC_CAPS] = {"src/nvidia/src/kernel/platform/p2p/p2p_caps.c "
                              "(LingzheZhao/open-gpu-kernel-modules 12c62bb6, on 610.57.04)",
                              "_kp2pCapsGetStatusOverPcie, p2pGetCapsStatus"},
        [P2PS_NV_SRC_REGISTRY] = {"src/nvidia/interface/nvrm_registry.h (not read at 610)",
                                  "as 595.45.04"},
        [P2PS_NV_SRC_CPU] = {"src/nvidia/src/kernel/platform/cpu.c (not read at 610)",
                             "as 595.45.04"},
        [P2PS_NV_SRC_STATIC_BAR1] = {BUS "turing/kern_bus_tu102.c, " BUS
                                         "maxwell/kern_bus_gm107.c, " BUS "hopper/kern_bus_gh100.c "
                                         "(615.71.09)",
                                     "kbusIsStaticBar1Supported_TU102, kbusInitBar1_GM107, "
                                     "_kbusCreateStaticBar1IOMMUMapping"},
        [P2PS_NV_SRC_BAR1_HAL] = {"src/nvidia/generated/g_kern_bus_nvoc.c (615.71.09)",
                                  "kbusIsPcieBar1P2PMappingSupported (the HAL per chip)"},
        [P2PS_NV_SRC_BAR1_ENTRY] = {SRC_UVM " (595.45.04)", "_nvGpuOpsEncodeBar1P2PAddrs"},
};
static const struct p2ps_nv_source patch_sources[P2PS_NV_SRC_COUNT] = {
        SRC_CAPS,
        SRC_PATCH,
        [P2PS_NV_SRC_STATIC_BAR1] = {BUS "turing/kern_bus_tu102.c, " BUS "hopper/kern_bus_gh100.c",
                                     "kbusIsStaticBar1Supported_TU102, "
                                     "kbusIsBar1P2PCapable_GH100"},
        [P2PS_NV_SRC_BAR1_ENTRY] = {SRC_UVM, "nvGpuOpsBuildExternalAllocPtes (the patched "
                                             "v2 branch)"},
};
static const struct p2ps_nv_source port_sources[P2PS_NV_SRC_COUNT] = {
        SRC_CAPS,
        SRC_PATCH,
        [P2PS_NV_SRC_STATIC_BAR1] = {"README and PRs #34 #36 #41 (bar1_p2p_policy.h not read)",
                                     "the static BAR1 rule as the ports state it"},
        [P2PS_NV_SRC_BAR1_ENTRY] = {SRC_UVM " (595.71.05 port, commit 08b4e9b5)",
                                    "nvGpuOpsGetExternalAllocAperture, "
                                    "_nvGpuOpsIsBar1P2pAtomicEnabled"},
};

/* aikitoria's 610.43.03-p2p: the display-aware static BAR1 of PRs #31/#35/#36
 * (kern_bus_tu102.c and bar1_p2p_policy.h at production/runtime-bar1-coverage d682adc5, the
 * predicate as tests/bar1_p2p_policy_test.c asserts it at 26e1ff53), BAR1 across models and
 * generations (p2p_caps.c at 3228cfd8), the window check of each encoded peer address. */
static const struct p2ps_nv_source aikitoria_window_sources[P2PS_NV_SRC_COUNT] = {
        SRC_CAPS,
        SRC_PATCH,
        [P2PS_NV_SRC_STATIC_BAR1] = {BUS "turing/kern_bus_tu102.c, " BUS
                                         "turing/bar1_p2p_policy.h, tests/bar1_p2p_policy_test.c",
                                     "kbusIsStaticBar1Supported_TU102, "
                                     "kbusEnableStaticBar1Mapping_TU102 (commits d682adc5, "
                                     "26e1ff53)"},
        [P2PS_NV_SRC_BAR1_ENTRY] = {SRC_UVM " (PR #31)", "_nvGpuOpsEncodeBar1P2PAddrs (each "
                                                         "address checked against the window)"},
};
/* Method 3 (Duanyll docs/48g-4090-p2p/method3-dynamic-bar1-p2p.md and method3-impl-notes.md
 * at 12870848; LingzheZhao's p2p_caps.c at 12c62bb6 and uvm_gpu.c at 29eae1b6). */
static const struct p2ps_nv_source method3_sources[P2PS_NV_SRC_COUNT] = {
        SRC_CAPS,
        SRC_PATCH,
        [P2PS_NV_SRC_STATIC_BAR1] = {BUS "hopper/kern_bus_gh100.c, src/nvidia/src/kernel/rmapi/"
                                         "nv_gpu_ops.c",
                                     "kbusIsPcieBar1P2PMappingSupported_GH100 (no static BAR1 "
                                     "needed), _nvGpuOpsDynBar1Create"},
        [P2PS_NV_SRC_BAR1_ENTRY] = {"src/nvidia/src/kernel/rmapi/nv_gpu_ops.c",
                                    "nvGpuOpsBuildExternalAllocPtes, _nvGpuOpsDynBar1Create "
                                    "(window DMA base + offset)"},
};

/* ---- the rows ----------------------------------------------------------------------------- */

#define NA      (-1L)
#define NO_C2C  0u
#define C2C     P2PS_NV_GATE_BIT(P2PS_NV_GATE_NO_C2C)
#define BY_DEF  P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_BY_DEFAULT)
#define SELF_H  P2PS_NV_GATE_BIT(P2PS_NV_GATE_SELF_HOSTED)
#define CHIPSET P2PS_NV_GATE_BIT(P2PS_NV_GATE_CHIPSET)
#define SKIP_CS P2PS_NV_GATE_BIT(P2PS_NV_GATE_CHIPSET_SKIP)
#define HOPPER  P2PS_NV_GEN_HOPPER
#define TURING  P2PS_NV_GEN_TURING
#define FORK_RM .rm = NULL, .rm_why = fork_rm

/* bBar1Disabled (GB10B, GB10C, GB20B, GB20C at 615.71.09): the stock 610 and 615 rows have
 * the gate (tests/analysis/test_driver_rows.c stock_615() holds it). */
#define BAR1_DIS P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_DISABLED)

/* A row: series, flavor, ref, tags; gates; the p2p_caps.c switches; the RMForceP2PType
 * values (bar1, pcie, nvlink, c2c) and which keys exist; cpu.c's AMD rules; the static BAR1
 * policy, AUTO rule, start, IOMMU alignment, mailbox space; the oldest generation with the
 * BAR1 P2P HAL; what a patch builds in; the RM layout; the BAR1 era; the sources. */
/* clang-format off */
static const struct p2ps_nv_driver rows[] = {
	{.series = 550, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "550.54.15",
	 .tags = {"550.54.15", "550.40.07", "550.163.01"},
	 .gates = NO_C2C, .bar1_needs_force = true, .bar1_map_first = false, .override_atomics = false,
	 .ft_bar1 = 2, .ft_pcie = 0, .ft_nvlink = 3, .ft_c2c = 0,
	 .pcie_type_key = false, .static_bar1_key = false, .tail_reserve = false,
	 .amd_default_ryzen = false,
	 .sb_default = P2PS_NV_SB_NONE, .sb_auto = P2PS_NV_AUTO_2X_FB, .sb_start_512m = false,
	 .iommu_512m = false, .mailbox_bar1 = false, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = &rm_550, .bar1 = P2PS_NV_BAR1_STOCK_550, .sources = stock_550_sources},
	{.series = 565, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "565.57.01",
	 .tags = {"565.57.01", "565.77"},
	 .gates = NO_C2C, .bar1_needs_force = true, .bar1_map_first = false, .override_atomics = true,
	 .ft_bar1 = 2, .ft_pcie = 0, .ft_nvlink = 3, .ft_c2c = 0,
	 .pcie_type_key = false, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = false,
	 .sb_default = P2PS_NV_SB_ONLY_GPU, .sb_auto = P2PS_NV_AUTO_2X_FB, .sb_start_512m = false,
	 .iommu_512m = false, .mailbox_bar1 = false, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = &rm_565, .bar1 = P2PS_NV_BAR1_STOCK_550, .sources = stock_sources},
	{.series = 570, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "570.86.15",
	 .tags = {"570.86.15", "570.86.16", "570.211.01"},
	 .gates = NO_C2C, .bar1_needs_force = true, .bar1_map_first = false, .override_atomics = true,
	 .ft_bar1 = 2, .ft_pcie = 0, .ft_nvlink = 3, .ft_c2c = 0,
	 .pcie_type_key = false, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_ONLY_GPU, .sb_auto = P2PS_NV_AUTO_RESERVES, .sb_start_512m = false,
	 .iommu_512m = false, .mailbox_bar1 = true, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = &rm_570, .bar1 = P2PS_NV_BAR1_STOCK_570, .sources = stock_sources},
	{.series = 575, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "575.51.02",
	 .tags = {"575.51.02", "575.64.05"},
	 .gates = NO_C2C, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 0,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_DISABLE, .sb_auto = P2PS_NV_AUTO_RESERVES, .sb_start_512m = false,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = &rm_570, .bar1 = P2PS_NV_BAR1_STOCK_570, .sources = stock_sources},
	{.series = 580, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "580.65.06",
	 .tags = {"580.65.06", "580.142"},
	 .gates = C2C, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_RESERVES_512M, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = &rm_580, .bar1 = P2PS_NV_BAR1_STOCK_580, .sources = stock_sources},
	{.series = 590, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "590.44.01",
	 .tags = {"590.44.01", "590.48.01"},
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_RESERVES_512M, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = &rm_590, .bar1 = P2PS_NV_BAR1_STOCK_580, .sources = stock_sources},
	{.series = 595, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "595.45.04",
	 .tags = {"595.45.04"},
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_RESERVES_512M, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = &rm_590, .bar1 = P2PS_NV_BAR1_STOCK_580, .sources = stock_sources,
	 .assumed = "595.58.03 and 595.71.05 not read: every column taken from 595.45.04"},
	/* 610.43.02, 610.43.03, 610.57.04: no NVIDIA tree stored. p2p_caps.c as two forks of
	 * 610.57.04 have it (LingzheZhao 12c62bb6 and a second fork): the CPU-side chipset check
	 * and per-GPU caps instead of GSP's per-pair answer, no self-hosted gate; the rest as
	 * 615.71.09 (kern_bus_*.c unchanged from 595.45.04 to 615.71.09, so between them too). */
	{.series = 610, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "610.57.04",
	 .gates = C2C | BY_DEF | CHIPSET | BAR1_DIS, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_RESERVES_512M, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = NULL,
	 .rm_why = "NVIDIA's 610 RM headers were not read, so no layout was compiled against them",
	 .bar1 = P2PS_NV_BAR1_STOCK_580, .sources = stock_610_sources,
	 .assumed = "NVIDIA's 610 sources not read: gates read in forks of 610.57.04; registry, CPU, "
	            "static BAR1 and BAR1 HAL taken from stock 615 (615.71.09) and 595 (595.45.04)"},
	{.series = 615, .flavor = P2PS_NV_FLAVOR_STOCK, .ref = "615.71.09",
	 .tags = {"615.71.09"},
	 .gates = C2C | BY_DEF | SELF_H | CHIPSET | SKIP_CS | BAR1_DIS, .bar1_needs_force = false, .bar1_map_first = true,
	 .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_RESERVES_512M, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = HOPPER,
	 .patch_override = NA, .patch_force = NA, .patch_pcie_type = NA, .patch_rebar = false,
	 .rm = &rm_615, .bar1 = P2PS_NV_BAR1_STOCK_580, .sources = stock_sources,
	 .assumed = "nvrm_registry.h and cpu.c not read at 615.71.09: RMForceP2PType values and "
	            "the AMD rule taken from stock 595 (595.45.04)"},
	/* tinygrad 550.54.15-p2p, 565.57.01-p2p: p2pOverride 0x11, forceP2PType BAR1P2P (2),
	 * the GH100 BAR1 HAL for every chip, ReBAR resize without the module parameter. */
	{.series = 550, .flavor = P2PS_NV_FLAVOR_TINYGRAD, .ref = "550.54.15-p2p",
	 .gates = NO_C2C, .bar1_needs_force = true, .bar1_map_first = false, .override_atomics = false,
	 .ft_bar1 = 2, .ft_pcie = 0, .ft_nvlink = 3, .ft_c2c = 0,
	 .pcie_type_key = false, .static_bar1_key = false, .tail_reserve = false,
	 .amd_default_ryzen = false,
	 .sb_default = P2PS_NV_SB_NONE, .sb_auto = P2PS_NV_AUTO_2X_FB, .sb_start_512m = false,
	 .iommu_512m = false, .mailbox_bar1 = false, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = 2, .patch_pcie_type = NA, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_TINYGRAD_550, .sources = patch_sources},
	{.series = 565, .flavor = P2PS_NV_FLAVOR_TINYGRAD, .ref = "565.57.01-p2p",
	 .gates = NO_C2C, .bar1_needs_force = true, .bar1_map_first = false, .override_atomics = true,
	 .ft_bar1 = 2, .ft_pcie = 0, .ft_nvlink = 3, .ft_c2c = 0,
	 .pcie_type_key = false, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = false,
	 .sb_default = P2PS_NV_SB_ONLY_GPU, .sb_auto = P2PS_NV_AUTO_2X_FB, .sb_start_512m = false,
	 .iommu_512m = false, .mailbox_bar1 = false, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = 2, .patch_pcie_type = NA, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_TINYGRAD_565, .sources = patch_sources},
	/* aikitoria 570.86.16-p2p: the same patch on 570. The 575/580 ports (PRs #31 #34 #36 #41)
	 * keep p2pOverride 0x11, ask for BAR1 P2P through RMPcieP2PType (1) and size static BAR1
	 * as client FB + ALIGN_UP(console + mailbox, 512 MiB), with RMP2PFbTailReserveMb
	 * (PR #41) to trim the shortfall. The 575 port's BAR1-P2P entries were not read; the
	 * 580 row's are those of the 595.71.05 port (its nv_gpu_ops.c, commit 08b4e9b5). */
	{.series = 570, .flavor = P2PS_NV_FLAVOR_AIKITORIA, .ref = "570.86.16-p2p",
	 .gates = NO_C2C, .bar1_needs_force = true, .bar1_map_first = false, .override_atomics = true,
	 .ft_bar1 = 2, .ft_pcie = 0, .ft_nvlink = 3, .ft_c2c = 0,
	 .pcie_type_key = false, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_ONLY_GPU, .sb_auto = P2PS_NV_AUTO_RESERVES, .sb_start_512m = false,
	 .iommu_512m = false, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = 2, .patch_pcie_type = NA, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_AIKITORIA_570, .sources = patch_sources},
	{.series = 575, .flavor = P2PS_NV_FLAVOR_AIKITORIA, .ref = "575 port (PR #31)",
	 .gates = NO_C2C, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 0,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_CLIENT_FLOOR, .sb_start_512m = false,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_NONE, .sources = port_sources},
	{.series = 580, .flavor = P2PS_NV_FLAVOR_AIKITORIA, .ref = "580 port (PRs #34 #36 #41)",
	 .gates = C2C, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = true,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_CLIENT_FLOOR, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_AIKITORIA_PORT, .sources = port_sources},
	/* aikitoria's branches after the 580 port, each a port of the same patch: p2pOverride
	 * 0x11 and pcieP2PType BAR1 built in, the GH100 BAR1 HAL for every chip (g_kern_bus_nvoc.c
	 * at 70a4d6ad), ReBAR without the module parameter. 590 (base b4707703, named in Duanyll's
	 * 615-port.md) was not stored: its columns are the 595 row's. 595.71.05-p2p: stock 595's
	 * AUTO rule (assumed), BAR1 across generations (3228cfd8), iommu=pt (README). 610.43.03-p2p
	 * (README 26e1ff53): the display-aware window for chips with BAR1 P2P by default, the
	 * client-FB rule elsewhere, RMP2PFbTailReserveMb (mem_mgr_gsp_client.c at 3228cfd8),
	 * NVreg_ExperimentalDmaBufP2P; its 610.57.04-p2p-v3 successor (461d638b) defaults to
	 * RMPcieP2PType AUTO without ForceP2P and renames the DMA-BUF key EnableDmaBufP2P (with
	 * EnablePcieP2P): read from its policy document only, not modelled. 615.71.09-p2p
	 * (c8bff540, not stored): the 610 row's columns; Duanyll's 615-port.md says it keeps
	 * cross-generation P2P and its libcuda patch. */
	{.series = 590, .flavor = P2PS_NV_FLAVOR_AIKITORIA, .ref = "590 base (commit b4707703)",
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_RESERVES_512M, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_AIKITORIA_PORT, .sources = port_sources,
	 .props = P2PS_NV_FP_LIBCUDA_MIXED_GEN | P2PS_NV_FP_NEEDS_IOMMU_PT,
	 .assumed = "every column: the branch was not stored; taken from aikitoria 595 "
	            "(595.71.05-p2p)"},
	{.series = 595, .flavor = P2PS_NV_FLAVOR_AIKITORIA, .ref = "595.71.05-p2p",
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_RESERVES_512M, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_AIKITORIA_PORT, .sources = port_sources,
	 .props = P2PS_NV_FP_LIBCUDA_MIXED_GEN | P2PS_NV_FP_NEEDS_IOMMU_PT,
	 .assumed = "the static BAR1 rule and ReBAR: taken from stock 595 (595.45.04)"},
	{.series = 610, .flavor = P2PS_NV_FLAVOR_AIKITORIA, .ref = "610.43.03-p2p",
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = true,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_CLIENT_FLOOR, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_AIKITORIA_PORT, .sources = aikitoria_window_sources,
	 .props = P2PS_NV_FP_DISPLAY_PARTIAL_BAR1 | P2PS_NV_FP_LIBCUDA_MIXED_GEN |
	          P2PS_NV_FP_NEEDS_IOMMU_PT,
	 .dmabuf_key = "ExperimentalDmaBufP2P",
	 .assumed = "p2pOverride 0x11: taken from aikitoria 595 (595.71.05-p2p)"},
	{.series = 615, .flavor = P2PS_NV_FLAVOR_AIKITORIA, .ref = "615.71.09-p2p",
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = true,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_CLIENT_FLOOR, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_AIKITORIA_PORT, .sources = aikitoria_window_sources,
	 .props = P2PS_NV_FP_DISPLAY_PARTIAL_BAR1 | P2PS_NV_FP_LIBCUDA_MIXED_GEN |
	          P2PS_NV_FP_NEEDS_IOMMU_PT,
	 .assumed = "every column but cross-generation BAR1 and the libcuda patch: the branch was "
	            "not stored; taken from aikitoria 610 (610.43.03-p2p)"},
	/* Method 3: the rows of the aikitoria branch each forks, with kbusIsPcieBar1P2PMapping-
	 * Supported_GH100 no longer asking for static BAR1 (a peer's allocation is mapped into its
	 * BAR1 per mapping, kbusMapFbAperture_HAL) and a pair with one static and one dynamic
	 * side refused (615 port; LingzheZhao's "no false P2P" mailbox-area check in
	 * p2pGetCapsStatus). IOMMU pass-through recommended, not required; the libcuda patch
	 * optional (Duanyll's packaging). LingzheZhao's uvm_bar1_p2p_managed (uvm_gpu.c, default
	 * 0) keeps managed memory off BAR1 peers before Hopper. */
	{.series = 595, .flavor = P2PS_NV_FLAVOR_DUANYLL, .ref = "595.71.05-p2p-48g",
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = false,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_RESERVES_512M, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_DUANYLL_METHOD3, .sources = method3_sources,
	 .props = P2PS_NV_FP_BAR1_ON_DEMAND | P2PS_NV_FP_LIBCUDA_MIXED_GEN,
	 .assumed = "the static BAR1 rule: taken from aikitoria 595 (595.71.05-p2p)"},
	{.series = 610, .flavor = P2PS_NV_FLAVOR_DUANYLL, .ref = "610.57.04-p2p-48g",
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = true,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_CLIENT_FLOOR, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_DUANYLL_METHOD3, .sources = method3_sources,
	 .props = P2PS_NV_FP_BAR1_ON_DEMAND | P2PS_NV_FP_LIBCUDA_MIXED_GEN,
	 .uvm_managed_param = "uvm_bar1_p2p_managed", .repo = "LingzheZhao/open-gpu-kernel-modules",
	 .assumed = "the static BAR1 rule and the tail reserve: taken from aikitoria 610 "
	            "(610.43.03-p2p; LingzheZhao's base is 610.57.04-p2p-v2)"},
	{.series = 615, .flavor = P2PS_NV_FLAVOR_DUANYLL, .ref = "615.71.09-p2p-48g",
	 .gates = C2C | BY_DEF, .bar1_needs_force = false, .bar1_map_first = true, .override_atomics = true,
	 .ft_bar1 = 0, .ft_pcie = 1, .ft_nvlink = 2, .ft_c2c = 3,
	 .pcie_type_key = true, .static_bar1_key = true, .tail_reserve = true,
	 .amd_default_ryzen = true,
	 .sb_default = P2PS_NV_SB_AUTO, .sb_auto = P2PS_NV_AUTO_CLIENT_FLOOR, .sb_start_512m = true,
	 .iommu_512m = true, .mailbox_bar1 = true, .bar1_hal_min = TURING,
	 .patch_override = 0x11, .patch_force = NA, .patch_pcie_type = 1, .patch_rebar = true,
	 FORK_RM,
	 .bar1 = P2PS_NV_BAR1_DUANYLL_METHOD3, .sources = method3_sources,
	 .props = P2PS_NV_FP_BAR1_ON_DEMAND | P2PS_NV_FP_LIBCUDA_MIXED_GEN,
	 .assumed = "the static BAR1 rule and the tail reserve: taken from aikitoria 615 "
	            "(615.71.09-p2p)"},
};
/* clang-format on */

const struct p2ps_nv_driver *p2ps_nv_driver_table(size_t *count)
{
	*count = GMMU_ARRAY_SIZE(rows);
	return rows;
}

const struct p2ps_nv_driver *p2ps_nv_driver_exact(unsigned series, enum p2ps_nv_flavor f)
{
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(rows); i++)
		if (rows[i].series == series && rows[i].flavor == f)
			return &rows[i];
	return NULL;
}

/* How the fallback rule chose a row. */
enum choice { EXACT, NEWEST_BELOW, OLDEST, NEWEST };

/* The rule within one flavor; NULL when it has no rows. */
static const struct p2ps_nv_driver *choose_in(unsigned want, enum p2ps_nv_flavor f,
                                              enum choice *how)
{
	const struct p2ps_nv_driver *below = NULL, *oldest = NULL;
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(rows); i++) {
		const struct p2ps_nv_driver *r = &rows[i];
		if (r->flavor != f)
			continue;
		if ((want == P2PS_NV_SERIES_NONE || r->series <= want) &&
		    (!below || r->series > below->series))
			below = r;
		if (!oldest || r->series < oldest->series)
			oldest = r;
	}
	*how = !below                        ? OLDEST
	       : want == P2PS_NV_SERIES_NONE ? NEWEST
	       : below->series == want       ? EXACT
	                                     : NEWEST_BELOW;
	return below ? below : oldest;
}

/* The rule: the flavor, then its ancestors. */
static const struct p2ps_nv_driver *choose(unsigned want, enum p2ps_nv_flavor f, enum choice *how)
{
	for (int depth = 0; depth <= P2PS_NV_FLAVOR_COUNT; depth++) {
		const struct p2ps_nv_driver *r = choose_in(want, f, how);
		if (r)
			return r;
		f = (unsigned)f < P2PS_NV_FLAVOR_COUNT ? flavors[f].parent : P2PS_NV_FLAVOR_STOCK;
	}
	return choose_in(want, P2PS_NV_FLAVOR_STOCK, how);
}

const struct p2ps_nv_driver *p2ps_nv_driver_find(unsigned series, enum p2ps_nv_flavor f,
                                                 bool *exact)
{
	enum choice how;
	const struct p2ps_nv_driver *r = choose(series, f, &how);
	*exact = how == EXACT && r->flavor == f;
	return r;
}

const char *p2ps_nv_driver_str(const struct p2ps_nv_driver *d, char *buf, size_t len)
{
	snprintf(buf, len, "%u %s", d->series, p2ps_nv_flavor_name(d->flavor));
	return buf;
}

const char *p2ps_nv_driver_assumed(unsigned series, enum p2ps_nv_flavor f,
                                   const struct p2ps_nv_driver *d, char *buf, size_t len)
{
	enum choice how;
	choose(series, f, &how);
	const char *fl = p2ps_nv_flavor_name(d->flavor);
	const char *which = how == NEWEST_BELOW ? "the newest %s row not newer than it"
	                    : how == OLDEST     ? "the oldest %s row"
	                                        : "the newest %s row";
	char rule[64], who[48];
	snprintf(rule, sizeof(rule), which, fl);
	if (series == P2PS_NV_SERIES_NONE)
		snprintf(who, sizeof(who), "no driver series known");
	else
		snprintf(who, sizeof(who), "%u %s has no row in the driver table", series,
		         p2ps_nv_flavor_name(f));
	snprintf(buf, len, "%s: modelled as %s %u (%s), %s (assumed)", who, fl, d->series, d->ref,
	         rule);
	return buf;
}

enum p2ps_nv_flavor p2ps_nv_patch_flavor(unsigned want)
{
	const struct p2ps_nv_driver *best = NULL;
	for (size_t i = 0; i < GMMU_ARRAY_SIZE(rows); i++) {
		const struct p2ps_nv_driver *r = &rows[i];
		unsigned d = r->series > want ? r->series - want : want - r->series;
		if (r->flavor != P2PS_NV_FLAVOR_STOCK &&
		    (!best ||
		     d < (best->series > want ? best->series - want : want - best->series)))
			best = r;
	}
	return best ? best->flavor : P2PS_NV_FLAVOR_TINYGRAD;
}

const struct p2ps_nv_driver *p2ps_nv_driver_reference(void)
{
	/* tinygrad's 565 module: the P2P patch most hosts that ask run. */
	return p2ps_nv_driver_exact(565, P2PS_NV_FLAVOR_TINYGRAD);
}

/* ---- known defects ---------------------------------------------------------------------- */

#define ALL_FLAVORS ((1u << P2PS_NV_FLAVOR_COUNT) - 1)
#define GDR_RACE                                                                                   \
	.id = P2PS_NV_DEFECT_GDR_PUT_PAGES_RACE, .flavors = ALL_FLAVORS,                           \
	.what = "the race between nvidia_p2p_put_pages and the free callback of R515-R535 (a "     \
	        "kernel NULL dereference; guide 4.2)",                                             \
	.fix = "update to 535.14 or later (or 525.105.17+ on R525)",                               \
	.source = "GPUDirect RDMA guide 4.2, \"Changes in CUDA 12.2\""

/* clang-format off */
static const struct p2ps_nv_defect defects[] = {
	{GDR_RACE, .first = 515, .last = 524, .fixed_in = NULL},
	{GDR_RACE, .first = 525, .last = 525, .fixed_in = "525.105.17"},
	{GDR_RACE, .first = 526, .last = 534, .fixed_in = NULL},
	{GDR_RACE, .first = 535, .last = 535, .fixed_in = "535.14"},
	{.id = P2PS_NV_DEFECT_NVSWITCH_NS, .flavors = ALL_FLAVORS, .first = 535, .last = 535,
	 .fixed_in = "535.183.06",
	 .what = "on NVSwitch H100 systems nvidia-smi topo -p2p rw shows NS between some GPUs "
	         "even with the fabric manager running",
	 .fix = "driver 535.183.06 or later",
	 .source = "NVIDIA Data Center GPU Driver release notes 535.183.06, bug 4547730"},
};
/* clang-format on */

size_t p2ps_nv_defect_count(void)
{
	return GMMU_ARRAY_SIZE(defects);
}

const struct p2ps_nv_defect *p2ps_nv_defect_at(size_t i)
{
	return i < GMMU_ARRAY_SIZE(defects) ? &defects[i] : NULL;
}

bool p2ps_nv_defect_affects(const struct p2ps_nv_defect *d, const struct p2ps_nv_version *v)
{
	if (v->series < d->first || v->series > d->last)
		return false;
	struct p2ps_nv_version fixed;
	return !d->fixed_in || !p2ps_nv_version_scan(d->fixed_in, &fixed) ||
	       version_cmp(v, &fixed) < 0;
}

/* ---- libcuda ------------------------------------------------------------------------------ */

/* Duanyll/open-gpu-kernel-modules docs/libcuda-gdr-615.md (commit b6aa7da4): the original
 * library and the outputs of its patch (four P2P changes at 0x31ce26, 0x31cf2b, 0x31d031,
 * 0x4b8664; the GDR-only output leaves them alone: it is not counted as patched for peer
 * access, nor as a release); packaging/libcuda/README.md (commit 02413faf): the library
 * libcuda1-villa installs. */
#define LIBCUDA_DOC "Duanyll/open-gpu-kernel-modules docs/libcuda-gdr-615.md (b6aa7da4)"
static const struct p2ps_nv_libcuda libcudas[] = {
        {"615.71.09", "85a8cc8cf00419ceb295ec62c481d05b4cdbdab10f25c5375d6d24bdbe00b4d9",
         P2PS_NV_LIBCUDA_UNPATCHED, "NVIDIA's libcuda.so.615.71.09 (Debian 615.71.09-1 and -2)",
         LIBCUDA_DOC},
        {"615.71.09", "db526c80bc77e510c6ef11bc5fc283240971ee657596407cdeefcb2c1bf579ad",
         P2PS_NV_LIBCUDA_PATCHED, "libcuda.so.615.71.09 with the P2P and GDR changes", LIBCUDA_DOC},
        {"615.71.09", "d1c67b4611680afc093d8d364edd82ca7e56c98fed02c3b8efaa2d96f664eb4a",
         P2PS_NV_LIBCUDA_PATCHED, "libcuda1-villa 615.71.09-2+villa1",
         "Duanyll/open-gpu-kernel-modules packaging/libcuda/README.md (02413faf)"},
};

enum p2ps_nv_libcuda_state p2ps_nv_libcuda_state(const char *sha256_hex,
                                                 const struct p2ps_nv_libcuda **which)
{
	if (which)
		*which = NULL;
	for (size_t i = 0; sha256_hex && i < GMMU_ARRAY_SIZE(libcudas); i++)
		if (!strcasecmp(libcudas[i].sha256, sha256_hex)) {
			if (which)
				*which = &libcudas[i];
			return libcudas[i].state;
		}
	return P2PS_NV_LIBCUDA_UNKNOWN;
}

const char *p2ps_nv_libcuda_state_name(enum p2ps_nv_libcuda_state s)
{
	static const char *const names[] = {"unknown", "unpatched", "patched"};
	return (unsigned)s < GMMU_ARRAY_SIZE(names) ? names[s] : "?";
}

size_t p2ps_nv_libcuda_count(void)
{
	return GMMU_ARRAY_SIZE(libcudas);
}

const struct p2ps_nv_libcuda *p2ps_nv_libcuda_at(size_t i)
{
	return i < GMMU_ARRAY_SIZE(libcudas) ? &libcudas[i] : NULL;
}
