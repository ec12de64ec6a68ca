/* SPDX-License-Identifier: MIT */
/* GPUs: the driver's card list, opening one (device node, device and subdevice objects) and
 * naming its chip. */
#include "rm_internal.h"

#include <stdio.h>

#include "p2pscope/nvidia_chips.h"
#include "p2pscope/rm_ctrl.h"

static const struct p2ps_rm_ptr_field no_ptrs[1] = {{0}};

int p2ps_rm_cards(struct p2ps_rm *rm, struct p2ps_rm_card *cards, size_t cap, size_t *n,
                  struct p2ps_error *err)
{
	/* The driver fills as many nv_ioctl_card_info_t as the ioctl's size holds. */
	uint8_t a[P2PS_RM_MAX_CARDS * CARD_SIZE] = {0};
	struct p2ps_rm_call c = {.fd = rm->ctl,
	                         .nr = RM_ESC_CARD_INFO,
	                         .arg = a,
	                         .size = sizeof(a),
	                         .ptrs = no_ptrs,
	                         .what = "CARD_INFO"};
	int rc = rm_escape(rm, &c, err);
	if (rc)
		return rc;
	*n = 0;
	for (size_t i = 0; i < P2PS_RM_MAX_CARDS && *n < cap; i++) {
		const uint8_t *e = a + i * CARD_SIZE;
		if (!e[CARD_VALID])
			continue;
		cards[(*n)++] = (struct p2ps_rm_card){
		        .valid = true,
		        .gpu_id = get32(e, CARD_GPU_ID),
		        .domain = get32(e, CARD_DOMAIN),
		        .bus = e[CARD_BUS],
		        .slot = e[CARD_SLOT],
		        .function = e[CARD_FUNCTION],
		        .vendor_id = p2ps_le16(e + CARD_VENDOR),
		        .device_id = p2ps_le16(e + CARD_DEVICE),
		        .reg_address = get64(e, CARD_REG_ADDRESS),
		        .reg_size = get64(e, CARD_REG_SIZE),
		        .fb_address = get64(e, CARD_FB_ADDRESS),
		        .fb_size = get64(e, CARD_FB_SIZE),
		        .minor = get32(e, CARD_MINOR),
		};
	}
	return 0;
}

int rm_open_gpu_fd(struct p2ps_rm *rm, uint32_t minor, int *fd, struct p2ps_error *err)
{
	char path[32];
	snprintf(path, sizeof(path), "/dev/nvidia%u", minor);
	uint64_t t0 = rm->timings ? p2ps_clock_ns() : 0;
	int f = rm->sys.ops->open(rm->sys.ctx, path, err);
	p2ps_timings_lap(rm->timings, "open(/dev/nvidiaN)", &t0);
	if (f < 0)
		return f;
	rm->st.fds_open++;
	uint8_t a[REGISTER_FD_SIZE];
	put32(a, 0, (uint32_t)rm->ctl);
	struct p2ps_rm_call c = {.fd = f,
	                         .nr = RM_ESC_REGISTER_FD,
	                         .arg = a,
	                         .size = sizeof(a),
	                         .ptrs = no_ptrs,
	                         .what = "REGISTER_FD"};
	int rc = rm_escape(rm, &c, err);
	if (rc) {
		rm_close_fd(rm, f);
		return p2ps_error_prefix(err, "%s", path);
	}
	*fd = f;
	return 0;
}

static int remember_gpu_fd(struct p2ps_rm *rm, int fd, struct p2ps_error *err)
{
	for (size_t i = 0; i < P2PS_RM_MAX_CARDS; i++)
		if (rm->gpu_fds[i] < 0) {
			rm->gpu_fds[i] = fd;
			return 0;
		}
	rm_close_fd(rm, fd);
	return p2ps_error_set(err, P2PS_ERANGE, "more than %d GPUs opened", P2PS_RM_MAX_CARDS);
}

static int gpu_ids(struct p2ps_rm *rm, struct p2ps_rm_gpu *g, struct p2ps_error *err)
{
	struct p2ps_rm_id_info id;
	int rc = p2ps_rm_ctrl_id_info(rm, g->card.gpu_id, &id, NULL, err);
	if (rc)
		return rc;
	g->device_instance = id.device_instance;
	g->subdevice_instance = id.subdevice_instance;
	return 0;
}

static int gpu_objects(struct p2ps_rm *rm, struct p2ps_rm_gpu *g, struct p2ps_error *err)
{
	uint8_t dev[NV0080_ALLOC_SIZE] = {0};
	put32(dev, NV0080_ALLOC_DEVICE_ID, g->device_instance);
	put32(dev, NV0080_ALLOC_CLIENT_SHARE, rm->client);
	int rc = p2ps_rm_alloc(rm, rm->client, P2PS_RM_DEVICE, dev, sizeof(dev), &g->device, NULL,
	                       err);
	if (rc)
		return rc;
	uint8_t sub[NV2080_ALLOC_SIZE] = {0};
	put32(sub, 0, g->subdevice_instance);
	rc = p2ps_rm_alloc(rm, g->device, P2PS_RM_SUBDEVICE, sub, sizeof(sub), &g->subdevice, NULL,
	                   err);
	if (rc)
		return rc;
	struct p2ps_rm_arch_info arch;
	rc = p2ps_rm_ctrl_arch_info(rm, g->subdevice, &arch, NULL, err);
	if (rc)
		return rc;
	g->arch = arch.architecture;
	g->impl = arch.implementation;
	const char *chip = p2ps_rm_chip_name(g->arch, g->impl);
	snprintf(g->chip, sizeof(g->chip), "%s", chip ? chip : "");
	return 0;
}

int p2ps_rm_gpu_open(struct p2ps_rm *rm, const struct p2ps_rm_card *card, struct p2ps_rm_gpu *gpu,
                     struct p2ps_error *err)
{
	*gpu = (struct p2ps_rm_gpu){.card = *card, .fd = -1};
	/* Opening the device node first brings the GPU up for this process (as CUDA does);
	 * the registered descriptor stays open as long as the client. */
	int rc = rm_open_gpu_fd(rm, card->minor, &gpu->fd, err);
	if (rc == 0)
		rc = remember_gpu_fd(rm, gpu->fd, err);
	if (rc == 0)
		rc = gpu_ids(rm, gpu, err);
	if (rc == 0)
		rc = gpu_objects(rm, gpu, err);
	if (rc)
		return p2ps_error_prefix(err, "GPU %04x:%02x:%02x.%x", card->domain, card->bus,
		                         card->slot, card->function);
	return 0;
}

/* MC_GET_ARCH_INFO's architecture (NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_*, 0x190) and
 * implementation (0x2) together are the NV_PMC_BOOT_42 chip id that the one chip table
 * (nvidia_chips.h) is keyed by. */
const char *p2ps_rm_chip_name(uint32_t arch, uint32_t impl)
{
	if ((arch & ~0xff0u) || impl > 0xf)
		return NULL;
	const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_by_boot0((uint16_t)(arch | impl));
	return c ? p2ps_nvidia_chip_name(c) : NULL;
}
