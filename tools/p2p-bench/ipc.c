/* SPDX-License-Identifier: MIT */
/* p2p-bench --ipc, the parent's side: starts one worker process per GPU, passes every
 * worker's shared receive buffer to every other worker, and orders the copies of each
 * matrix cell. It makes no CUDA call itself (see ipc.h). */
#include "ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPLY_TIMEOUT_MS 120000 /* a worker that says nothing for this long has hung */

int pb_ipc_send_bytes(int sock, const void *m, size_t len, int fd)
{
	struct iovec iov = {(void *)m, len};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr h = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		struct cmsghdr *c;
		memset(&u, 0, sizeof(u));
		h.msg_control = u.buf;
		h.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &h, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

int pb_ipc_send(int sock, const struct pb_ipc_msg *m, int fd)
{
	return pb_ipc_send_bytes(sock, m, sizeof(*m), fd);
}

int pb_ipc_recv_bytes(int sock, void *m, size_t len, int *fd)
{
	struct iovec iov = {m, len};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr h = {.msg_iov = &iov,
	                   .msg_iovlen = 1,
	                   .msg_control = u.buf,
	                   .msg_controllen = sizeof(u.buf)};
	ssize_t n = recvmsg(sock, &h, MSG_CMSG_CLOEXEC);
	*fd = -1;
	if (n != (ssize_t)len)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

int pb_ipc_recv(int sock, struct pb_ipc_msg *m, int *fd)
{
	return pb_ipc_recv_bytes(sock, m, sizeof(*m), fd);
}

/* The workers of one run. */
struct crew {
	int n;
	int sock[PB_MAX_DEV];
	pid_t pid[PB_MAX_DEV];
	struct pb_ipc_msg hello[PB_MAX_DEV];
	int fd[PB_MAX_DEV]; /* exported descriptor per worker (fd kind), -1 otherwise */
	struct p2ps_error *err;
	struct pb_result *r;
};

static int fail(struct crew *w, int i, const char *what, const char *why)
{
	return p2ps_error_set(w->err, P2PS_EIO, "IPC worker for device %d: %s: %s",
	                      w->r->dev[i].ordinal, what, why);
}

/* Waits for worker i's reply to what. */
static int reply(struct crew *w, int i, const char *what, struct pb_ipc_msg *m)
{
	struct pollfd p = {w->sock[i], POLLIN, 0};
	int fd;
	int k = poll(&p, 1, REPLY_TIMEOUT_MS);
	if (k <= 0)
		return fail(w, i, what, k == 0 ? "no answer in 120 s" : strerror(errno));
	if (pb_ipc_recv(w->sock[i], m, &fd))
		return fail(w, i, what, "the worker ended");
	if (fd >= 0 && m->op != PB_IPC_HELLO)
		close(fd);
	else if (m->op == PB_IPC_HELLO)
		w->fd[i] = fd;
	if (m->status)
		return fail(w, i, what, m->err);
	return 0;
}

static int ask(struct crew *w, int i, struct pb_ipc_msg *m, int fd, const char *what)
{
	if (pb_ipc_send(w->sock[i], m, fd))
		return fail(w, i, what, strerror(errno));
	return reply(w, i, what, m);
}

static int spawn(struct crew *w, int i, enum pb_ipc_kind kind, size_t bytes, const char *self)
{
	int sv[2];
	char a_fd[16], a_index[16], a_ord[16], a_kind[16], a_bytes[32];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return fail(w, i, "socketpair", strerror(errno));
	snprintf(a_fd, sizeof(a_fd), "%d", sv[1]);
	snprintf(a_index, sizeof(a_index), "%d", i);
	snprintf(a_ord, sizeof(a_ord), "%d", w->r->dev[i].ordinal);
	snprintf(a_kind, sizeof(a_kind), "%d", (int)kind);
	snprintf(a_bytes, sizeof(a_bytes), "%zu", bytes);
	fflush(NULL);
	w->pid[i] = fork();
	if (w->pid[i] < 0) {
		close(sv[0]);
		close(sv[1]);
		return fail(w, i, "fork", strerror(errno));
	}
	if (w->pid[i] == 0) {
		char *args[] = {(char *)self, "--ipc-worker", a_fd,    a_index,
		                a_ord,        a_kind,         a_bytes, NULL};
		fcntl(sv[1], F_SETFD, 0); /* the worker's end survives exec */
		execv(self, args);
		_exit(127);
	}
	close(sv[1]);
	w->sock[i] = sv[0];
	return 0;
}

static void dismiss(struct crew *w)
{
	struct pb_ipc_msg m = {.op = PB_IPC_QUIT};
	for (int i = 0; i < w->n; i++) {
		if (w->sock[i] >= 0) {
			pb_ipc_send(w->sock[i], &m, -1);
			close(w->sock[i]);
		}
		if (w->fd[i] >= 0)
			close(w->fd[i]);
	}
	for (int i = 0; i < w->n; i++)
		if (w->pid[i] > 0)
			waitpid(w->pid[i], NULL, 0);
}

/* Starts the workers and gives each every other worker's buffer. */
static int assemble(struct crew *w, enum pb_ipc_kind kind, size_t bytes, const char *self)
{
	for (int i = 0; i < w->n; i++)
		if (spawn(w, i, kind, bytes, self))
			return w->err->code;
	for (int i = 0; i < w->n; i++)
		if (reply(w, i, "start", &w->hello[i]))
			return w->err->code;
	for (int i = 0; i < w->n; i++)
		for (int j = 0; j < w->n; j++) {
			struct pb_ipc_msg m = w->hello[j];
			if (i == j)
				continue;
			m.op = PB_IPC_OPEN;
			m.peer = j;
			if (ask(w, i, &m, w->fd[j], "open a peer's buffer"))
				return w->err->code;
		}
	return 0;
}

static int simple(struct crew *w, int i, int op, int peer, size_t bytes, const char *what,
                  struct pb_ipc_msg *m)
{
	*m = (struct pb_ipc_msg){.op = op, .peer = peer, .bytes = bytes};
	return ask(w, i, m, -1, what);
}

/* One timed run: src[k] copies reps x bytes to dst[k] for every k < nx at once; *gbps is
 * the sum of the directions' rates, *us the time per copy of the first. */
static int run_once(struct crew *w, const int *src, const int *dst, int nx, size_t bytes, int reps,
                    bool check, double *gbps, double *us)
{
	struct pb_ipc_msg m;
	double ms[2] = {0};
	for (int k = 0; check && k < nx; k++)
		if (simple(w, dst[k], PB_IPC_POISON, 0, bytes, "poison", &m))
			return w->err->code;
	for (int k = 0; k < nx; k++) {
		m = (struct pb_ipc_msg){
		        .op = PB_IPC_QUEUE, .peer = dst[k], .reps = reps, .bytes = bytes};
		if (ask(w, src[k], &m, -1, "queue copies"))
			return w->err->code;
	}
	/* Release every direction before waiting for any, so that they overlap. */
	m = (struct pb_ipc_msg){.op = PB_IPC_GO};
	for (int k = 0; k < nx; k++)
		if (pb_ipc_send(w->sock[src[k]], &m, -1))
			return fail(w, src[k], "release", strerror(errno));
	for (int k = 0; k < nx; k++) {
		if (reply(w, src[k], "timed copies", &m))
			return w->err->code;
		ms[k] = m.ms;
		w->r->hold_timeouts += m.hold_timed_out;
	}
	for (int k = 0; check && k < nx; k++) {
		if (simple(w, dst[k], PB_IPC_VERIFY, src[k], bytes, "verify", &m))
			return w->err->code;
		w->r->copies_verified++;
		w->r->words_bad += m.bad;
	}
	*gbps = 0;
	for (int k = 0; k < nx; k++)
		*gbps += (double)bytes * reps / (ms[k] * 1e-3) / 1e9;
	*us = ms[0] * 1e3 / reps;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median over the trials of one cell: bandwidth (GB/s) or latency (us). */
static int cell(struct crew *w, const struct pb_options *o, int i, int j, bool bidir, bool latency,
                double *out)
{
	int src[2] = {i, j}, dst[2] = {j, i}, nx = bidir ? 2 : 1;
	size_t bytes = latency ? 16 : o->size;
	int reps = latency ? o->lat_reps : o->reps;
	double v[64] = {0}, g = 0, us = 0;
	int trials = o->trials < 64 ? o->trials : 64;
	for (int k = 0; k < o->warmup; k++)
		if (run_once(w, src, dst, nx, bytes, 1, false, &g, &us))
			return w->err->code;
	for (int k = 0; k < trials; k++) {
		if (run_once(w, src, dst, nx, bytes, reps, true, &g, &us))
			return w->err->code;
		v[k] = latency ? us : g;
	}
	qsort(v, (size_t)trials, sizeof(v[0]), cmp_double);
	*out = trials % 2 ? v[trials / 2] : (v[trials / 2 - 1] + v[trials / 2]) / 2;
	return 0;
}

struct ipc_spec {
	const char *key[2], *title[2]; /* per kind */
	const char *base;              /* the single-process matrix it is set beside */
	bool bidir, latency;
};

#define UNI "Unidirectional Bandwidth Matrix (GB/s), copy engine, one process per GPU, "
#define BI  "Bidirectional Bandwidth Matrix (GB/s), copy engine, one process per GPU, "
#define LAT "Latency Matrix (us), 16-byte copy-engine copies, one process per GPU, "
static const struct ipc_spec specs[] = {
        {{"ipc_ce_uni", "ipc_fd_ce_uni"},
         {UNI "cudaIpc handles", UNI "cuMem POSIX-FD handles"},
         "ce_uni_p2p_on",
         false,
         false},
        {{"ipc_ce_bi", "ipc_fd_ce_bi"},
         {BI "cudaIpc handles", BI "cuMem POSIX-FD handles"},
         "ce_bi_p2p_on",
         true,
         false},
        {{"ipc_ce_lat", "ipc_fd_ce_lat"},
         {LAT "cudaIpc handles", LAT "cuMem POSIX-FD handles"},
         "ce_lat_p2p_on",
         false,
         true},
};
#undef UNI
#undef BI
#undef LAT

static const char *const kind_names[] = {"cuda_ipc", "posix_fd"};

static int matrices(struct crew *w, const struct pb_options *o, enum pb_ipc_kind kind)
{
	struct pb_result *r = w->r;
	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		const struct ipc_spec *p = &specs[s];
		struct pb_matrix *m;
		if (p->latency ? !o->latency : !o->bandwidth)
			continue;
		m = pb_add_matrix(r, p->key[kind], p->title[kind],
		                  p->latency ? "latency" : "bandwidth", "ce", p->bidir, true);
		if (!m)
			return p2ps_error_set(w->err, P2PS_ENOMEM, "out of memory for matrices");
		m->sharing = kind_names[kind];
		m->base = p->base;
		/* The diagonal stays n/a: a copy inside one process shares nothing. */
		for (int i = 0; i < r->n; i++)
			for (int j = 0; j < r->n; j++)
				if (i != j &&
				    cell(w, o, i, j, p->bidir, p->latency, pb_cell(r, m, i, j)))
					return w->err->code;
	}
	return 0;
}

int pb_ipc_measure(const struct pb_options *o, struct pb_result *r, enum pb_ipc_kind kind,
                   const char *self, struct p2ps_error *err)
{
	struct crew w = {.n = r->n, .err = err, .r = r};
	int rc;
	for (int i = 0; i < PB_MAX_DEV; i++)
		w.sock[i] = w.fd[i] = -1;
	if (r->n < 2)
		return 0;
	rc = assemble(&w, kind, o->size, self);
	if (rc == 0)
		rc = matrices(&w, o, kind);
	dismiss(&w);
	return rc;
}
