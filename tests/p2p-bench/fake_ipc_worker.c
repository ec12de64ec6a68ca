/* SPDX-License-Identifier: MIT */
/* A stand-in for p2p-bench's --ipc worker (tools/p2p-bench/ipc_worker.c) that needs no GPU:
 * it speaks the same protocol and answers with times made from a known rate per ordered
 * pair, so that test_ipc can check what the parent (ipc.c) makes of them.
 *
 *   rate(src -> dst) = 100 + 10 * src + dst GB/s  (indices in the run)
 *
 * The POSIX-FD kind sends /dev/null's descriptor with HELLO and refuses an OPEN that
 * arrives without one. Environment: P2PS_FAKE_IPC_BAD=I makes worker I find one bad word
 * in every verification; P2PS_FAKE_IPC_FAIL=I makes worker I refuse every QUEUE;
 * P2PS_FAKE_IPC_EXIT=I makes worker I exit at its first QUEUE. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc.h"
#include "p2pscope/parse.h"

static int env_is(const char *name, uint64_t index)
{
	const char *v = getenv(name);
	uint64_t x;
	return v && !p2ps_parse_uint(v, 1024, &x) && x == index;
}

static double rate_gbps(int src, int dst)
{
	return 100.0 + 10.0 * src + dst;
}

/* Answers one request in m; returns -1 to end the worker. */
static int answer(struct pb_ipc_msg *m, int fd, uint64_t index, uint64_t kind,
                  struct pb_ipc_msg *last)
{
	m->status = 0;
	switch (m->op) {
	case PB_IPC_OPEN:
		if (kind == PB_IPC_POSIX_FD && fd < 0) {
			m->status = P2PS_EINVAL;
			snprintf(m->err, sizeof(m->err), "no descriptor");
		}
		break;
	case PB_IPC_QUEUE:
		if (env_is("P2PS_FAKE_IPC_EXIT", index))
			return -1;
		if (env_is("P2PS_FAKE_IPC_FAIL", index)) {
			m->status = P2PS_EIO;
			snprintf(m->err, sizeof(m->err), "planted failure");
		}
		*last = *m;
		break;
	case PB_IPC_GO:
		m->ms = (double)last->bytes * last->reps /
		        (rate_gbps((int)index, last->peer) * 1e9) * 1e3;
		break;
	case PB_IPC_VERIFY: m->bad = env_is("P2PS_FAKE_IPC_BAD", index) ? 1 : 0; break;
	default: break;
	}
	m->op = PB_IPC_REPLY;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t sock, index, ord, kind, bytes;
	struct pb_ipc_msg hello = {.op = PB_IPC_HELLO}, last = {0};
	int fd = -1;
	if (argc != 7 || strcmp(argv[1], "--ipc-worker") ||
	    p2ps_parse_uint(argv[2], 1 << 20, &sock) || p2ps_parse_uint(argv[3], 63, &index) ||
	    p2ps_parse_uint(argv[4], 1023, &ord) || p2ps_parse_uint(argv[5], 1, &kind) ||
	    p2ps_parse_uint(argv[6], 1ull << 40, &bytes))
		return 2;
	if (kind == PB_IPC_POSIX_FD)
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	hello.alloc_bytes = bytes;
	if (pb_ipc_send((int)sock, &hello, fd))
		return 1;
	for (;;) {
		struct pb_ipc_msg m;
		int got;
		if (pb_ipc_recv((int)sock, &m, &got) || m.op == PB_IPC_QUIT)
			break;
		int stop = answer(&m, got, index, kind, &last);
		if (got >= 0)
			close(got);
		if (stop || pb_ipc_send((int)sock, &m, -1))
			break;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}
