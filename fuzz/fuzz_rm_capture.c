/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the RM capture parser (pte-probe and bar-inspect --replay) and the
 * replay backend. A capture that parses is replayed through the start of a probe session
 * (driver version, control descriptor, root client, card list, GPU objects, one video-memory
 * page) and bar-inspect's typed controls (FB, static BAR1, PCI ids, NVLink, P2P caps and
 * matrix, CPU, chipset), so the replay's request comparison, response copies and the typed
 * decoders meet arbitrary recorded bytes. Any crash, sanitizer report or leak is a
 * finding; parse and replay errors are not. */
// fuzz-links: p2psrm
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/rm.h"
#include "p2pscope/rm_ctrl.h"

/* bar-inspect's controls, in its order. */
static void facts(struct p2ps_rm *rm, const struct p2ps_rm_gpu *g, uint32_t peer)
{
	struct p2ps_error err;
	struct p2ps_rm_pci_info pci;
	struct p2ps_rm_fb_info fb;
	struct p2ps_rm_static_bar1 sb;
	struct p2ps_rm_nvlink_status ns;
	struct p2ps_rm_cpu_info cpu;
	struct p2ps_rm_chipset_info cs;
	struct p2ps_rm_p2p_matrix m;
	struct p2ps_rm_p2p_caps c;
	uint32_t ids[2] = {g->card.gpu_id, peer};
	p2ps_rm_ctrl_pci_info(rm, g->subdevice, &pci, NULL, &err);
	p2ps_rm_ctrl_fb_info(rm, g->subdevice, &fb, NULL, &err);
	p2ps_rm_ctrl_static_bar1(rm, g->subdevice, &sb, NULL, &err);
	p2ps_rm_ctrl_nvlink_status(rm, g->subdevice, &ns, NULL, &err);
	p2ps_rm_ctrl_cpu_info(rm, &cpu, NULL, &err);
	p2ps_rm_ctrl_chipset_info(rm, &cs, NULL, &err);
	p2ps_rm_ctrl_p2p_matrix(rm, ids, 2, &m, NULL, &err);
	p2ps_rm_ctrl_p2p_caps(rm, ids[0], ids[1], &c, NULL, &err);
}

static void session(const struct p2ps_rm_sys *sys)
{
	struct p2ps_rm *rm;
	struct p2ps_error err;
	struct p2ps_rm_card cards[P2PS_RM_MAX_CARDS];
	size_t n = 0;
	if (p2ps_rm_open(&rm, sys, &err))
		return;
	if (p2ps_rm_cards(rm, cards, P2PS_RM_MAX_CARDS, &n, &err) == 0 && n > 0) {
		struct p2ps_rm_gpu g;
		uint8_t page[4096];
		if (p2ps_rm_gpu_open(rm, &cards[0], &g, &err) == 0) {
			facts(rm, &g, n > 1 ? cards[1].gpu_id : cards[0].gpu_id);
			p2ps_rm_read_vidmem(rm, &g, 0, page, &err);
		}
	}
	p2ps_rm_close(rm, NULL, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p2ps_rm_capture cap;
	struct p2ps_error err;
	if (p2ps_rm_capture_parse((const char *)data, size, "fuzz", &cap, &err))
		return 0;
	struct p2ps_rm_sys sys;
	struct p2ps_rm_replay *rp;
	if (p2ps_rm_replay_start(&rp, &cap, &sys, &err) == 0) {
		session(&sys);
		p2ps_rm_replay_finish(rp, &err);
	}
	p2ps_rm_capture_cleanup(&cap);
	return 0;
}
