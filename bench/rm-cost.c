/* SPDX-License-Identifier: MIT */
/* What each RM API call of bar-inspect's NVIDIA facts costs on this host, in process:
 * ROUNDS sessions like bar-inspect's (client, per GPU device + subdevice + ID, arch, FB,
 * static BAR1 and NVLink controls, GET_P2P_CAPS_V2, CPU and chipset, then the
 * frees), alternating two ways of freeing (each object, or the client's tree at once), plus
 * rounds that also ask GET_P2P_CAPS_MATRIX, which bar-inspect does not, and every pair
 * where bar-inspect asks the group of 3 or more GPUs at once. Prints the median session per way
 * and, per call, the mean time and count over all rounds. Then the GPUs' calls (device,
 * subdevice, FB, static BAR1, NVLink, free) one GPU after another in one client against the
 * same calls with one thread and one client per GPU, at once: whether the driver lets
 * them overlap (its lock of all GPUs says it does not).
 *
 *   rm-cost [ROUNDS]      (default 21; needs the NVIDIA driver)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/parse.h"
#include "p2pscope/rm.h"
#include "p2pscope/rm_ctrl.h"
#include "p2pscope/timings.h"

#define MAX_ROUNDS 201

static int session(const struct p2ps_rm_sys *sys, bool by_client, bool matrix,
                   struct p2ps_timings *t, struct p2ps_error *err)
{
	struct p2ps_rm *rm;
	if (p2ps_rm_open(&rm, sys, err))
		return -1;
	p2ps_rm_set_timings(rm, t);
	p2ps_rm_set_free_by_client(rm, by_client);
	struct p2ps_rm_card cards[P2PS_RM_MAX_CARDS];
	static struct p2ps_rm_gpu g[P2PS_RM_MAX_CARDS];
	size_t n = 0, open = 0;
	if (p2ps_rm_cards(rm, cards, P2PS_RM_MAX_CARDS, &n, err) == 0) {
		for (size_t i = 0; i < n; i++) {
			if (p2ps_rm_gpu_open(rm, &cards[i], &g[open], err))
				continue;
			struct p2ps_rm_fb_info fb;
			struct p2ps_rm_static_bar1 sb;
			static struct p2ps_rm_nvlink_status ns;
			p2ps_rm_ctrl_fb_info(rm, g[open].subdevice, &fb, NULL, err);
			p2ps_rm_ctrl_static_bar1(rm, g[open].subdevice, &sb, NULL, err);
			p2ps_rm_ctrl_nvlink_status(rm, g[open].subdevice, &ns, NULL, err);
			open++;
		}
		struct p2ps_rm_cpu_info cpu;
		struct p2ps_rm_chipset_info cs;
		p2ps_rm_ctrl_cpu_info(rm, &cpu, NULL, err);
		p2ps_rm_ctrl_chipset_info(rm, &cs, NULL, err);
		/* As bar-inspect: the group at once from 3 GPUs, else each pair; the extra round
		 * asks each pair too, to time it. */
		uint32_t ids[P2PS_RM_MAX_CARDS];
		for (size_t i = 0; i < open; i++)
			ids[i] = g[i].card.gpu_id;
		static struct p2ps_rm_p2p_group grp;
		bool group = open >= 3 && p2ps_rm_ctrl_p2p_caps_group(rm, ids, (unsigned)open, &grp,
		                                                      NULL, err) == 0;
		for (size_t i = 0; (!group || matrix) && i < open; i++)
			for (size_t j = i + 1; j < open; j++) {
				struct p2ps_rm_p2p_caps c;
				p2ps_rm_ctrl_p2p_caps(rm, ids[i], ids[j], &c, NULL, err);
			}
		if (matrix && open >= 2 && open <= P2PS_RM_P2P_GROUP_MAX) {
			struct p2ps_rm_p2p_matrix m;
			p2ps_rm_ctrl_p2p_matrix(rm, ids, (unsigned)open, &m, NULL, err);
		}
	}
	return p2ps_rm_close(rm, NULL, err);
}

/* The per-GPU calls of cards[first, first + n) in one client of its own. */
struct gpu_job {
	const struct p2ps_rm_sys *sys;
	const struct p2ps_rm_card *cards;
	size_t n;
	int rc;
};

static void *gpu_calls(void *arg)
{
	struct gpu_job *j = arg;
	struct p2ps_rm *rm;
	struct p2ps_error err = {0};
	j->rc = -1;
	if (p2ps_rm_open(&rm, j->sys, &err))
		return NULL;
	p2ps_rm_set_free_by_client(rm, true);
	for (size_t i = 0; i < j->n; i++) {
		struct p2ps_rm_gpu g;
		if (p2ps_rm_gpu_open(rm, &j->cards[i], &g, &err))
			continue;
		struct p2ps_rm_fb_info fb;
		struct p2ps_rm_static_bar1 sb;
		struct p2ps_rm_nvlink_status *ns = malloc(sizeof(*ns));
		p2ps_rm_ctrl_fb_info(rm, g.subdevice, &fb, NULL, &err);
		p2ps_rm_ctrl_static_bar1(rm, g.subdevice, &sb, NULL, &err);
		if (ns)
			p2ps_rm_ctrl_nvlink_status(rm, g.subdevice, ns, NULL, &err);
		free(ns);
	}
	j->rc = p2ps_rm_close(rm, NULL, &err);
	return NULL;
}

/* Wall time of the GPUs' calls: serial (one client, every GPU) or one thread per GPU. */
static int gpus_wall(const struct p2ps_rm_sys *sys, const struct p2ps_rm_card *cards, size_t n,
                     bool threads, uint64_t *ns)
{
	struct gpu_job jobs[P2PS_RM_MAX_CARDS];
	pthread_t th[P2PS_RM_MAX_CARDS];
	bool started[P2PS_RM_MAX_CARDS] = {false};
	uint64_t t0 = p2ps_clock_ns();
	if (!threads) {
		jobs[0] = (struct gpu_job){sys, cards, n, 0};
		gpu_calls(&jobs[0]);
		*ns = p2ps_clock_ns() - t0;
		return jobs[0].rc;
	}
	for (size_t i = 0; i < n; i++) {
		jobs[i] = (struct gpu_job){sys, &cards[i], 1, 0};
		started[i] = pthread_create(&th[i], NULL, gpu_calls, &jobs[i]) == 0;
		if (!started[i])
			gpu_calls(&jobs[i]);
	}
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		rc |= jobs[i].rc;
	}
	*ns = p2ps_clock_ns() - t0;
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t r = 21;
	if (argc > 1 && p2ps_parse_uint(argv[1], MAX_ROUNDS, &r))
		r = 0;
	int rounds = (int)r;
	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "rm-cost: ROUNDS is 1 to %d\n", MAX_ROUNDS);
		return 2;
	}
	struct p2ps_rm_sys sys;
	struct p2ps_rm_linux ctx;
	p2ps_rm_sys_linux(&sys, &ctx, "", -1);
	static struct p2ps_timings t[2];
	static uint64_t total[2][MAX_ROUNDS];
	struct p2ps_error err = {0};
	for (int r = 0; r < rounds; r++)
		for (int way = 0; way < 2; way++) {
			uint64_t t0 = p2ps_clock_ns();
			if (session(&sys, way == 1, false, &t[way], &err)) {
				fprintf(stderr, "rm-cost: %s\n", err.msg);
				return 1;
			}
			total[way][r] = p2ps_clock_ns() - t0;
		}
	static struct p2ps_timings tm;
	for (int r = 0; r < rounds; r++)
		if (session(&sys, true, true, &tm, &err)) {
			fprintf(stderr, "rm-cost: %s\n", err.msg);
			return 1;
		}
	static const char *const ways[] = {"each object freed", "client tree freed at once"};
	const int mid = rounds / 2;
	for (int way = 0; way < 2; way++) {
		qsort(total[way], (size_t)rounds, sizeof(uint64_t), cmp_u64);
		printf("rm-cost: session (%s): median %.3f ms, min %.3f ms over %d rounds\n",
		       ways[way], (double)total[way][mid] / 1e6, (double)total[way][0] / 1e6,
		       rounds);
	}
	for (int way = 0; way < 3; way++) {
		const struct p2ps_timings *x = way < 2 ? &t[way] : &tm;
		printf("rm-cost: per call (%s), mean us x calls per session:\n",
		       way < 2 ? ways[way]
		               : "with GET_P2P_CAPS_MATRIX and every pair asked, tree freed");
		for (size_t i = 0; i < x->n; i++)
			printf("  %-48s %9.1f x %u\n", x->t[i].phase,
			       (double)x->t[i].ns / 1e3 / (x->t[i].runs ? x->t[i].runs : 1),
			       x->t[i].runs / (unsigned)rounds);
	}
	/* Serial against one thread per GPU, alternating. */
	struct p2ps_rm *rm;
	struct p2ps_rm_card cards[P2PS_RM_MAX_CARDS];
	size_t n = 0;
	if (p2ps_rm_open(&rm, &sys, &err) ||
	    p2ps_rm_cards(rm, cards, P2PS_RM_MAX_CARDS, &n, &err)) {
		fprintf(stderr, "rm-cost: %s\n", err.msg);
		return 1;
	}
	p2ps_rm_close(rm, NULL, &err);
	static uint64_t gw[2][MAX_ROUNDS];
	for (int r = 0; r < rounds; r++)
		for (int way = 0; way < 2; way++)
			if (gpus_wall(&sys, cards, n, way == 1, &gw[way][r])) {
				fprintf(stderr, "rm-cost: the per-GPU calls failed\n");
				return 1;
			}
	static const char *const gways[] = {"one client, one GPU after another",
	                                    "one thread and client per GPU, at once"};
	for (int way = 0; way < 2; way++) {
		qsort(gw[way], (size_t)rounds, sizeof(uint64_t), cmp_u64);
		printf("rm-cost: %zu GPUs' device, subdevice, FB, BAR1, NVLink, free (%s): median "
		       "%.3f ms, min %.3f ms\n",
		       n, gways[way], (double)gw[way][mid] / 1e6, (double)gw[way][0] / 1e6);
	}
	return 0;
}
