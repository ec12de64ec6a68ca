/* SPDX-License-Identifier: MIT */
/* The RM client: one root client on /dev/nvidiactl, the objects made under it, and the
 * single path every escape takes (rm_escape). Objects are tracked in allocation order and
 * freed in reverse by p2ps_rm_close(), so children always go before their parents and an
 * early return anywhere in a caller leaks nothing. */
#include "rm_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define VERSION_PATH "/proc/driver/nvidia/version"
#define CTL_PATH     "/dev/nvidiactl"
/* Handles this client chooses for its objects: RM accepts client-chosen handles below the
 * root, and fixed ones make captures comparable between runs. */
#define HANDLE_BASE 0x5c000001u

static const struct p2ps_rm_ptr_field nvos21_ptrs[] = {{NVOS21_PARAMS}};
static const struct p2ps_rm_ptr_field nvos54_ptrs[] = {{NVOS54_PARAMS}};

int rm_call_status(const struct p2ps_rm_call *c, size_t status_off, uint32_t *rm_status,
                   struct p2ps_error *err)
{
	uint32_t st = get32(c->arg, status_off);
	if (rm_status)
		*rm_status = st;
	return st == P2PS_RM_NV_OK ? 0 : rm_status_error(err, c->what, st);
}

int rm_escape_status(struct p2ps_rm *rm, struct p2ps_rm_call *c, size_t status_off,
                     uint32_t *rm_status, struct p2ps_error *err)
{
	int rc = rm_escape(rm, c, err);
	return rc ? rc : rm_call_status(c, status_off, rm_status, err);
}

int rm_track(struct p2ps_rm *rm, uint32_t handle, uint32_t parent, uint32_t cls,
             struct p2ps_error *err)
{
	void *v = rm->objs;
	if (!p2ps_grow(&v, &rm->cap_objs, rm->n_objs + 1, sizeof(*rm->objs)))
		return p2ps_error_set(err, P2PS_ENOMEM, "RM client: out of memory");
	rm->objs = v;
	rm->objs[rm->n_objs++] = (struct rm_object){.handle = handle, .parent = parent, .cls = cls};
	rm->st.allocs++;
	rm->st.live++;
	return 0;
}

static const char *class_str(uint32_t cls, char *buf, size_t len)
{
	const char *n = p2ps_rm_class_name(cls);
	if (n)
		return n;
	snprintf(buf, len, "class 0x%x", cls);
	return buf;
}

/* NVOS21: hRoot, hObjectParent, hObjectNew, hClass, pAllocParms, paramsSize, status. */
static int alloc_escape(struct p2ps_rm *rm, uint32_t parent, uint32_t handle, uint32_t cls,
                        void *params, uint32_t size, uint32_t *status, struct p2ps_error *err)
{
	uint8_t a[NVOS21_SIZE] = {0};
	char what[64], cbuf[24];
	snprintf(what, sizeof(what), "RM_ALLOC %s", class_str(cls, cbuf, sizeof(cbuf)));
	RM_PUT32(a, {NVOS21_ROOT, rm->client ? rm->client : handle}, {NVOS21_PARENT, parent},
	         {NVOS21_OBJECT_NEW, handle}, {NVOS21_CLASS, cls}, {NVOS21_PARAMS_SIZE, size});
	put_ptr(a, NVOS21_PARAMS, params);
	struct p2ps_rm_call c = {.fd = rm->ctl,
	                         .nr = RM_ESC_ALLOC,
	                         .arg = a,
	                         .size = sizeof(a),
	                         .params = params,
	                         .params_size = size,
	                         .ptrs = nvos21_ptrs,
	                         .n_ptrs = RM_ARRAY_SIZE(nvos21_ptrs),
	                         .what = what};
	int rc = rm_escape_status(rm, &c, NVOS21_STATUS, status, err);
	if (rc)
		return rc;
	if (!rm->client)
		rm->client = get32(a, NVOS21_OBJECT_NEW);
	return 0;
}

int p2ps_rm_alloc(struct p2ps_rm *rm, uint32_t parent, uint32_t cls, void *params, uint32_t size,
                  uint32_t *handle, uint32_t *rm_status, struct p2ps_error *err)
{
	uint32_t st = 0;
	if (!p2ps_rm_class_name(cls) || cls == P2PS_RM_ROOT_CLIENT)
		return p2ps_error_set(err, P2PS_EACCES,
		                      "RM_ALLOC of class 0x%x refused: not on the allow-list", cls);
	uint32_t h = rm->next_handle++;
	int rc = alloc_escape(rm, parent, h, cls, params, size, &st, err);
	if (rm_status)
		*rm_status = st;
	if (rc)
		return rc;
	*handle = h;
	return rm_track(rm, h, parent, cls, err);
}

static int free_escape(struct p2ps_rm *rm, const struct rm_object *o, struct p2ps_error *err)
{
	uint8_t a[NVOS00_SIZE] = {0};
	char what[64], cbuf[24];
	snprintf(what, sizeof(what), "RM_FREE %s 0x%x", class_str(o->cls, cbuf, sizeof(cbuf)),
	         o->handle);
	RM_PUT32(a, {NVOS00_ROOT, rm->client}, {NVOS00_PARENT, o->parent},
	         {NVOS00_OBJECT_OLD, o->handle});
	struct p2ps_rm_call c = rm_call(rm, RM_ESC_FREE, a, sizeof(a), what);
	return rm_escape_status(rm, &c, NVOS00_STATUS, NULL, err);
}

int p2ps_rm_free(struct p2ps_rm *rm, uint32_t handle, struct p2ps_error *err)
{
	for (size_t i = rm->n_objs; i-- > 0;) {
		if (rm->objs[i].handle != handle)
			continue;
		struct rm_object o = rm->objs[i];
		memmove(&rm->objs[i], &rm->objs[i + 1], (rm->n_objs - i - 1) * sizeof(o));
		rm->n_objs--;
		rm->st.live--;
		int rc = free_escape(rm, &o, err);
		if (rc == 0)
			rm->st.frees++;
		return rc;
	}
	return p2ps_error_set(err, P2PS_ENOENT,
	                      "RM_FREE: handle 0x%x is not an object of this client", handle);
}

int p2ps_rm_control(struct p2ps_rm *rm, uint32_t object, uint32_t cmd, void *params, uint32_t size,
                    uint32_t *rm_status, struct p2ps_error *err)
{
	const char *name = p2ps_rm_ctrl_name(cmd);
	if (!name) {
		for (size_t i = 0; i < p2ps_rm_excluded_count(); i++) {
			const struct p2ps_rm_excluded *x = p2ps_rm_excluded_at(i);
			if (x->cmd == cmd)
				return p2ps_error_set(err, P2PS_EACCES,
				                      "RM control 0x%x (%s) refused: it %s", cmd,
				                      x->name, x->why);
		}
		return p2ps_error_set(err, P2PS_EACCES,
		                      "RM control 0x%x refused: not on the read-only allow-list",
		                      cmd);
	}
	uint8_t a[NVOS54_SIZE] = {0};
	char what[80];
	snprintf(what, sizeof(what), "RM_CONTROL %s", name);
	RM_PUT32(a, {NVOS54_CLIENT, rm->client}, {NVOS54_OBJECT, object}, {NVOS54_CMD, cmd},
	         {NVOS54_PARAMS_SIZE, size});
	put_ptr(a, NVOS54_PARAMS, params);
	struct p2ps_rm_call c = {.fd = rm->ctl,
	                         .nr = RM_ESC_CONTROL,
	                         .arg = a,
	                         .size = sizeof(a),
	                         .params = params,
	                         .params_size = size,
	                         .ptrs = nvos54_ptrs,
	                         .n_ptrs = RM_ARRAY_SIZE(nvos54_ptrs),
	                         .what = what};
	int rc = rm_escape(rm, &c, err);
	if (rc)
		return rc;
	rm->st.controls++;
	return rm_call_status(&c, NVOS54_STATUS, rm_status, err);
}

static int read_driver(struct p2ps_rm *rm, struct p2ps_error *err)
{
	char text[1024];
	int n = rm->sys.ops->read_text(rm->sys.ctx, VERSION_PATH, text, sizeof(text), err);
	if (n == P2PS_ENOENT)
		return p2ps_error_set(err, P2PS_ENOENT,
		                      "no NVIDIA kernel driver is loaded (%s does not exist)",
		                      VERSION_PATH);
	if (n < 0)
		return n;
	return p2ps_rm_driver_parse(text, &rm->drv, err);
}

int p2ps_rm_open(struct p2ps_rm **out, const struct p2ps_rm_sys *sys, struct p2ps_error *err)
{
	*out = NULL;
	struct p2ps_rm *rm = calloc(1, sizeof(*rm));
	if (!rm)
		return p2ps_error_set(err, P2PS_ENOMEM, "RM client: out of memory");
	rm->sys = *sys;
	rm->ctl = -1;
	rm->next_handle = HANDLE_BASE;
	for (size_t i = 0; i < P2PS_RM_MAX_CARDS; i++)
		rm->gpu_fds[i] = -1;
	int rc = read_driver(rm, err);
	if (rc == 0) {
		rm->ctl = rm->sys.ops->open(rm->sys.ctx, CTL_PATH, err);
		rc = rm->ctl < 0 ? rm->ctl : 0;
	}
	if (rc == 0) {
		rm->st.fds_open++;
		rm->root = rm->sys.ops->is_root(rm->sys.ctx);
		uint32_t st;
		/* The root client: parent 0, handle 0 lets RM choose the client handle. */
		rc = alloc_escape(rm, 0, 0, P2PS_RM_ROOT_CLIENT, NULL, 0, &st, err);
		if (rc == 0)
			rc = rm_track(rm, rm->client, 0, P2PS_RM_ROOT_CLIENT, err);
	}
	if (rc) {
		struct p2ps_error ignored;
		p2ps_rm_close(rm, NULL, &ignored);
		return rc;
	}
	*out = rm;
	return 0;
}

void rm_close_fd(struct p2ps_rm *rm, int fd)
{
	uint64_t t0 = rm->timings ? p2ps_clock_ns() : 0;
	rm->sys.ops->close(rm->sys.ctx, fd);
	p2ps_timings_lap(rm->timings, "close(/dev/nvidia*)", &t0);
	rm->st.fds_open--;
}

int p2ps_rm_close(struct p2ps_rm *rm, struct p2ps_rm_stats *final, struct p2ps_error *err)
{
	if (!rm)
		return 0;
	int first = rm_unmap_all(rm, err);
	struct p2ps_error e2;
	/* By tree: one RM_FREE of the client, which frees every object below it (children
	 * first, as resource-server frees a subtree); the books count them all freed. */
	if (rm->free_by_client && !first && rm->n_objs > 0 &&
	    rm->objs[0].cls == P2PS_RM_ROOT_CLIENT) {
		size_t below = rm->n_objs - 1;
		rm->n_objs = 1;
		rm->st.live -= (unsigned)below;
		rm->st.frees += (unsigned)below;
	}
	/* Reverse allocation order: children before parents, the client last. */
	while (rm->n_objs > 0) {
		struct rm_object o = rm->objs[rm->n_objs - 1];
		int rc = p2ps_rm_free(rm, o.handle, first ? &e2 : err);
		if (rc && !first)
			first = rc;
	}
	for (size_t i = 0; i < P2PS_RM_MAX_CARDS; i++)
		if (rm->gpu_fds[i] >= 0)
			rm_close_fd(rm, rm->gpu_fds[i]);
	if (rm->ctl >= 0)
		rm_close_fd(rm, rm->ctl);
	if (final)
		*final = rm->st;
	free(rm->objs);
	free(rm->maps);
	free(rm);
	return first;
}

const struct p2ps_rm_driver *p2ps_rm_driver(const struct p2ps_rm *rm)
{
	return &rm->drv;
}

uint32_t p2ps_rm_client(const struct p2ps_rm *rm)
{
	return rm->client;
}

bool p2ps_rm_is_root(const struct p2ps_rm *rm)
{
	return rm->root;
}

void p2ps_rm_set_free_by_client(struct p2ps_rm *rm, bool on)
{
	if (rm)
		rm->free_by_client = on;
}

void p2ps_rm_get_stats(const struct p2ps_rm *rm, struct p2ps_rm_stats *out)
{
	*out = rm->st;
}
