/* SPDX-License-Identifier: MIT */
/* The check's names: paths, forms, verdicts and NCCL's operations, each with the one line a
 * report prints for it. */
#include "check_internal.h"

#include <string.h>

static const struct {
	const char *name, *title;
} paths[P2PS_CHK_PATHS] = {
        [P2PS_CHK_PEER] = {"peer_access", "CUDA peer access (CanAccessPeer + EnablePeerAccess)"},
        [P2PS_CHK_CE] = {"ce", "copy engine (cudaMemcpyPeerAsync)"},
        [P2PS_CHK_SM_STORE] = {"sm_store", "SM stores into the peer, read back by its owner"},
        [P2PS_CHK_SM_LOAD] = {"sm_load", "SM loads from the peer"},
        [P2PS_CHK_IPC_CE] = {"ipc_ce", "another process, cudaIpc handle, copy engine"},
        [P2PS_CHK_IPC_SM] = {"ipc_sm", "another process, cudaIpc handle, SM stores"},
        [P2PS_CHK_FD_CE] = {"fd_ce", "another process, cuMem POSIX-FD handle, copy engine"},
        [P2PS_CHK_FD_SM] = {"fd_sm", "another process, cuMem POSIX-FD handle, SM stores"},
        [P2PS_CHK_UVM] = {"uvm", "managed memory preferring the peer, SM stores"},
};

const char *p2ps_chk_path_name(int p)
{
	return p >= 0 && p < P2PS_CHK_PATHS ? paths[p].name : "?";
}

const char *p2ps_chk_path_title(int p)
{
	return p >= 0 && p < P2PS_CHK_PATHS ? paths[p].title : "?";
}

int p2ps_chk_path_parse(const char *name)
{
	for (int p = 0; p < P2PS_CHK_PATHS; p++)
		if (!strcmp(name, paths[p].name))
			return p;
	return -1;
}

static const struct {
	const char *name, *title;
	bool broken;
} forms[P2PS_CF_COUNT] = {
        [P2PS_CF_OK] = {"ok", "the data arrived where they belong, canaries intact", false},
        [P2PS_CF_DENIED] = {"denied", "CUDA refused peer access", false},
        [P2PS_CF_ZEROS] = {"zeros", "zeros where the data belong", true},
        [P2PS_CF_ONES] = {"ones", "all-one bits where the data belong: a read nobody answered",
                          true},
        [P2PS_CF_LOST] = {"lost", "nothing arrived: the destination still holds its canary", true},
        [P2PS_CF_SHIFTED] = {"shifted", "the data moved from where they belong", true},
        [P2PS_CF_ALIASED] = {"aliased", "the data moved by a power of two: an address bit was lost",
                             true},
        [P2PS_CF_WRONG_GPU] = {"wrong_gpu", "the data landed on (or were read from) another GPU",
                               true},
        [P2PS_CF_CORRUPT] = {"corrupt", "garbage where the data belong", true},
        [P2PS_CF_CANARY] = {"canary", "the data arrived, but memory beside them changed", true},
        [P2PS_CF_HUNG] = {"hung", "the call did not return before its deadline", true},
        [P2PS_CF_ERROR] = {"error", "a call failed", true},
        [P2PS_CF_UNSUPPORTED] = {"unsupported", "not possible with this GPU, driver or library",
                                 false},
        [P2PS_CF_NOT_RUN] = {"not_run", "not run: a step it needs failed or hung", false},
        [P2PS_CF_SKIPPED] = {"skipped", "not asked for", false},
};

const char *p2ps_chk_form_name(int f)
{
	return f >= 0 && f < P2PS_CF_COUNT ? forms[f].name : "?";
}

const char *p2ps_chk_form_title(int f)
{
	return f >= 0 && f < P2PS_CF_COUNT ? forms[f].title : "?";
}

int p2ps_chk_form_parse(const char *name)
{
	for (int f = 0; f < P2PS_CF_COUNT; f++)
		if (!strcmp(name, forms[f].name))
			return f;
	return -1;
}

bool p2ps_chk_form_broken(int f)
{
	return f >= 0 && f < P2PS_CF_COUNT && forms[f].broken;
}

static const char *const verdicts[] = {"works", "broken", "unavailable", "unknown"};

const char *p2ps_chk_verdict_name(int v)
{
	return v >= 0 && v <= P2PS_CV_UNKNOWN ? verdicts[v] : "?";
}

int p2ps_chk_verdict_parse(const char *name)
{
	for (int v = 0; v <= P2PS_CV_UNKNOWN; v++)
		if (!strcmp(name, verdicts[v]))
			return v;
	return -1;
}

static const char *const nccl_ops[P2PS_CHK_NCCL_OPS] = {"all_reduce", "all_gather", "send_recv"};

const char *p2ps_chk_nccl_op_name(int op)
{
	return op >= 0 && op < P2PS_CHK_NCCL_OPS ? nccl_ops[op] : "?";
}

const char *p2ps_chk_phase_name(int ph)
{
	static const char *const fixed[] = {"find", "open", "share_main", "share_fd"};
	if (ph >= 0 && ph < P2PS_CHK_PH_PATH0)
		return fixed[ph];
	if (ph >= P2PS_CHK_PH_PATH0 && ph < P2PS_CHK_PH_NCCL_WAIT)
		return p2ps_chk_path_name(ph - P2PS_CHK_PH_PATH0);
	return ph == P2PS_CHK_PH_NCCL_WAIT ? "nccl_wait" : "?";
}
