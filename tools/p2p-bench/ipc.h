/* SPDX-License-Identifier: MIT */
/* p2p-bench --ipc: the bandwidth and latency matrices again with one process per GPU,
 * the way NCCL, MPI and vLLM share GPU memory between processes. Each worker process
 * owns one GPU and exports a receive buffer, either as a cudaIpc handle or as a cuMem
 * allocation exported to a POSIX file descriptor (passed over a UNIX socket); the parent
 * hands every handle to every other worker and orders the copies, one cell at a time.
 *
 * The parent itself makes no CUDA call in this phase: it speaks to the workers over one
 * socket each (ipc.c); the workers do the CUDA work (ipc_worker.c). */
#ifndef P2P_BENCH_IPC_H
#define P2P_BENCH_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"

/* How a worker shares its receive buffer. */
enum pb_ipc_kind {
	PB_IPC_RUNTIME = 0, /* cudaIpcGetMemHandle / cudaIpcOpenMemHandle */
	PB_IPC_POSIX_FD,    /* cuMemCreate + cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR) */
};

/* What the parent asks of a worker. */
enum pb_ipc_op {
	PB_IPC_HELLO = 1, /* worker -> parent: ready; carries its handle (and fd) */
	PB_IPC_OPEN,      /* import peer `peer`'s receive buffer (handle or fd attached) */
	PB_IPC_POISON,    /* fill the own receive buffer with the poison pattern */
	PB_IPC_QUEUE,     /* queue `reps` copies of `bytes` to peer `peer` behind a hold */
	PB_IPC_GO,        /* release the hold; reply with the elapsed time */
	PB_IPC_VERIFY,    /* count words of the receive buffer that differ from `peer`'s pattern */
	PB_IPC_QUIT,
	PB_IPC_REPLY,
};

#define PB_IPC_HANDLE_BYTES 64 /* sizeof(cudaIpcMemHandle_t) */

/* One message, either way, sent whole over a SOCK_SEQPACKET socket. */
struct pb_ipc_msg {
	int32_t op;
	int32_t peer; /* a worker's index in the run (not its CUDA ordinal) */
	int32_t reps;
	int32_t status; /* replies: 0, or a P2PS_E* code with err set */
	uint64_t bytes;
	double ms;              /* GO: elapsed time of the queued copies */
	uint64_t bad;           /* VERIFY: mismatched 32-bit words */
	int32_t hold_timed_out; /* GO: the hold gave up before the release */
	int32_t has_fd;         /* an SCM_RIGHTS descriptor travels with the message */
	uint64_t alloc_bytes;   /* HELLO (fd kind): size of the exported allocation */
	unsigned char handle[PB_IPC_HANDLE_BYTES];
	char err[200];
};

/* One message of len bytes (and fd when fd >= 0) over a SOCK_SEQPACKET socket; 0, or -1 with
 * errno (receiving: or a message of another length, or the end of the stream). The check's
 * other process speaks the same way with its own messages. */
int pb_ipc_send_bytes(int sock, const void *m, size_t len, int fd);
int pb_ipc_recv_bytes(int sock, void *m, size_t len, int *fd);

/* Sends m (and fd when fd >= 0); 0 or -1 with errno. */
int pb_ipc_send(int sock, const struct pb_ipc_msg *m, int fd);
/* Receives one message into m and a descriptor into *fd (-1 if none); 0, or -1 on error or
 * end of stream. */
int pb_ipc_recv(int sock, struct pb_ipc_msg *m, int *fd);

/* Measures the IPC matrices of kind for the devices of r (which pb_measure filled) and
 * appends them to r. self is the path of this executable, run with --ipc-worker. */
int pb_ipc_measure(const struct pb_options *o, struct pb_result *r, enum pb_ipc_kind kind,
                   const char *self, struct p2ps_error *err);

/* The worker's main: argv = {prog, "--ipc-worker", SOCKFD, INDEX, ORDINAL, KIND, BYTES}. */
int pb_ipc_worker_main(int argc, char **argv);

#endif
