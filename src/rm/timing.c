/* SPDX-License-Identifier: MIT */
/* Time per escape, for bar-inspect --timings and pte-probe: each ioctl adds to a phase named
 * by what it is ("RM_ALLOC NV01_DEVICE_0", "NV2080_CTRL_CMD_FB_GET_INFO_V2"), so a run shows
 * which controls and objects its time goes to. Phase names must be static strings. */
#include "rm_internal.h"

static const struct {
	uint32_t cls;
	const char *alloc, *free;
} objects[] = {
        {P2PS_RM_ROOT_CLIENT, "RM_ALLOC NV01_ROOT_CLIENT", "RM_FREE NV01_ROOT_CLIENT"},
        {P2PS_RM_DEVICE, "RM_ALLOC NV01_DEVICE_0", "RM_FREE NV01_DEVICE_0"},
        {P2PS_RM_SUBDEVICE, "RM_ALLOC NV20_SUBDEVICE_0", "RM_FREE NV20_SUBDEVICE_0"},
        {P2PS_RM_VASPACE, "RM_ALLOC FERMI_VASPACE_A", "RM_FREE FERMI_VASPACE_A"},
        {P2PS_RM_P2P, "RM_ALLOC NV50_P2P", "RM_FREE NV50_P2P"},
};

static const char *phase(const struct p2ps_rm_call *c)
{
	switch (c->nr) {
	case RM_ESC_CONTROL: {
		const char *n = p2ps_rm_ctrl_name(get32(c->arg, NVOS54_CMD));
		return n ? n : "RM_CONTROL";
	}
	case RM_ESC_ALLOC:
		for (size_t i = 0; i < RM_ARRAY_SIZE(objects); i++)
			if (objects[i].cls == get32(c->arg, NVOS21_CLASS))
				return objects[i].alloc;
		return "RM_ALLOC (memory)";
	case RM_ESC_FREE:
		for (size_t i = 0; i < RM_ARRAY_SIZE(objects); i++)
			if (c->what && !strncmp(c->what, objects[i].free, strlen(objects[i].free)))
				return objects[i].free;
		return "RM_FREE (memory)";
	case RM_ESC_CARD_INFO: return "CARD_INFO";
	case RM_ESC_REGISTER_FD: return "REGISTER_FD";
	case RM_ESC_MAP_MEMORY_DMA: return "MAP_MEMORY_DMA";
	case RM_ESC_UNMAP_MEMORY_DMA: return "UNMAP_MEMORY_DMA";
	default: return "RM escape (other)";
	}
}

void p2ps_rm_set_timings(struct p2ps_rm *rm, struct p2ps_timings *t)
{
	if (rm)
		rm->timings = t;
}

int rm_escape(struct p2ps_rm *rm, struct p2ps_rm_call *c, struct p2ps_error *err)
{
	if (!rm->timings) /* the phase's name is looked up only when it is timed */
		return rm->sys.ops->escape(rm->sys.ctx, c, err);
	uint64_t t0 = p2ps_clock_ns();
	int rc = rm->sys.ops->escape(rm->sys.ctx, c, err);
	p2ps_timings_lap(rm->timings, phase(c), &t0);
	return rc;
}
