/* SPDX-License-Identifier: MIT */
/* RM client internals: escape numbers, the struct layouts common to every supported driver
 * series, and the client state.
 *
 * Offsets and sizes were read from the driver headers of every tag the driver table's rows
 * name (nvos.h, nv-ioctl.h, nv-unix-nvos-params-wrappers.h, cl0080.h, cl0070.h, cl00c2.h,
 * cl503b.h, ctrl0000gpu.h, ctrl0000system.h, ctrl0080dma.h, ctrl2080mc.h, ctrl0041.h) by
 * compiling offsetof() against each tag's headers (test_rm_fields checks the *_SIZE below
 * against them); what differs between series lives in struct p2ps_nv_rm_layout instead. Structs are
 * built as byte buffers with explicit little-endian stores, so no definition depends on this
 * compiler's padding.
 */
#ifndef P2PS_RM_INTERNAL_H
#define P2PS_RM_INTERNAL_H

#include "p2pscope/rm.h"

#include <string.h>

#include "grow.h"
#include "p2pscope/bytes.h"
#include "p2pscope/rm_ctrl.h"
#include "p2pscope/timings.h"

#define RM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Escape numbers (nv_escape.h, nv-ioctl-numbers.h). */
enum {
	RM_ESC_FREE = 0x29,
	RM_ESC_CONTROL = 0x2a,
	RM_ESC_ALLOC = 0x2b,
	RM_ESC_MAP_MEMORY = 0x4e,
	RM_ESC_UNMAP_MEMORY = 0x4f,
	RM_ESC_MAP_MEMORY_DMA = 0x57,
	RM_ESC_UNMAP_MEMORY_DMA = 0x58,
	RM_ESC_CARD_INFO = 0xc8,  /* NV_IOCTL_BASE + 0 */
	RM_ESC_REGISTER_FD = 0xc9 /* NV_IOCTL_BASE + 1 */
};

/* NVOS00_PARAMETERS (RM_FREE), 16 bytes. */
#define NVOS00_SIZE       16
#define NVOS00_ROOT       0
#define NVOS00_PARENT     4
#define NVOS00_OBJECT_OLD 8
#define NVOS00_STATUS     12
/* NVOS21_PARAMETERS (RM_ALLOC), 32 bytes. */
#define NVOS21_SIZE        32
#define NVOS21_ROOT        0
#define NVOS21_PARENT      4
#define NVOS21_OBJECT_NEW  8
#define NVOS21_CLASS       12
#define NVOS21_PARAMS      16 /* pointer */
#define NVOS21_PARAMS_SIZE 24
#define NVOS21_STATUS      28
/* NVOS54_PARAMETERS (RM_CONTROL), 32 bytes. */
#define NVOS54_SIZE        32
#define NVOS54_CLIENT      0
#define NVOS54_OBJECT      4
#define NVOS54_CMD         8
#define NVOS54_FLAGS       12
#define NVOS54_PARAMS      16 /* pointer */
#define NVOS54_PARAMS_SIZE 24
#define NVOS54_STATUS      28
/* NVOS46_PARAMETERS (MAP_MEMORY_DMA): the common head; dmaOffset/status in the layout. */
#define NVOS46_CLIENT 0
#define NVOS46_DEVICE 4
#define NVOS46_DMA    8
#define NVOS46_MEMORY 12
#define NVOS46_OFFSET 16
#define NVOS46_LENGTH 24
#define NVOS46_FLAGS  32
/* NVOS47_PARAMETERS (UNMAP_MEMORY_DMA), 48 bytes. */
#define NVOS47_SIZE       48
#define NVOS47_CLIENT     0
#define NVOS47_DEVICE     4
#define NVOS47_DMA        8
#define NVOS47_MEMORY     12
#define NVOS47_FLAGS      16
#define NVOS47_DMA_OFFSET 24
#define NVOS47_LENGTH     32
#define NVOS47_STATUS     40
/* nv_ioctl_nvos33_parameters_with_fd (MAP_MEMORY): NVOS33 (48 bytes) + fd, 56 bytes. */
#define NVOS33_SIZE             56
#define NVOS33_CLIENT           0
#define NVOS33_DEVICE           4
#define NVOS33_MEMORY           8
#define NVOS33_OFFSET           16
#define NVOS33_LENGTH           24
#define NVOS33_LINEAR           32 /* pointer-sized cookie returned by the driver */
#define NVOS33_STATUS           40
#define NVOS33_FLAGS            44
#define NVOS33_FD               48
#define NVOS33_ACCESS_READ_ONLY 0x1u
/* NVOS34_PARAMETERS (UNMAP_MEMORY), 32 bytes. */
#define NVOS34_SIZE   32
#define NVOS34_CLIENT 0
#define NVOS34_DEVICE 4
#define NVOS34_MEMORY 8
#define NVOS34_LINEAR 16
#define NVOS34_STATUS 24
#define NVOS34_FLAGS  28
/* nv_ioctl_card_info_t, 72 bytes each (nv_pci_info_t at 4, 12 bytes). */
#define CARD_SIZE        72
#define CARD_VALID       0
#define CARD_DOMAIN      4
#define CARD_BUS         8
#define CARD_SLOT        9
#define CARD_FUNCTION    10
#define CARD_VENDOR      12
#define CARD_DEVICE      14
#define CARD_GPU_ID      16
#define CARD_REG_ADDRESS 24
#define CARD_REG_SIZE    32
#define CARD_FB_ADDRESS  40
#define CARD_FB_SIZE     48
#define CARD_MINOR       56
/* nv_ioctl_register_fd_t: int ctl_fd. */
#define REGISTER_FD_SIZE 4

/* Allocation parameters. */
#define NV0080_ALLOC_SIZE         56 /* deviceId@0 hClientShare@4 ... vaMode@48 */
#define NV0080_ALLOC_DEVICE_ID    0
#define NV0080_ALLOC_CLIENT_SHARE 4
#define NV2080_ALLOC_SIZE         4 /* subDeviceId@0 */
#define VASPACE_INDEX             0 /* NV_VASPACE_ALLOCATION_PARAMETERS head */
#define VASPACE_FLAGS             4
#define VASPACE_VA_SIZE           8
#define VASPACE_BIG_PAGE_SIZE     32
#define VASPACE_VA_BASE           40
#define VIRTUAL_ALLOC_SIZE        24  /* offset@0 limit@8 hVASpace@16 */
#define MEM_ALLOC_SIZE            128 /* NV_MEMORY_ALLOCATION_PARAMS */
#define MEM_ALLOC_OWNER           0
#define MEM_ALLOC_TYPE            4
#define MEM_ALLOC_FLAGS           8
#define MEM_ALLOC_ATTR            24
#define MEM_ALLOC_ATTR2           28
#define MEM_ALLOC_FORMAT          32
#define MEM_ALLOC_SIZE_FIELD      64
#define MEM_ALLOC_ALIGNMENT       72
#define MEM_ALLOC_OFFSET          80
#define MEM_ALLOC_LIMIT           88
#define PHYS_ALLOC_SIZE           24 /* memSize@0 format@8 pageSize@16 */
#define PHYS_ALLOC_MEM_SIZE       0

/* Control parameters: the field table in fields.c (rm_ctrl.h). */

/* The client. */
struct rm_object {
	uint32_t handle, parent, cls;
};

struct rm_dma_map {
	uint32_t device, hdma, hmem;
	uint64_t va;
};

struct p2ps_rm {
	struct p2ps_rm_sys sys;
	struct p2ps_rm_driver drv;
	int ctl;
	uint32_t client;
	uint32_t next_handle;
	bool root;
	struct rm_object *objs; /* allocation order; freed in reverse */
	size_t n_objs, cap_objs;
	struct rm_dma_map *maps;
	size_t n_maps, cap_maps;
	int gpu_fds[P2PS_RM_MAX_CARDS];   /* registered /dev/nvidiaN descriptors, -1 when free */
	uint32_t phys[P2PS_RM_MAX_CARDS]; /* NV01_MEMORY_LOCAL_PHYSICAL per device, 0 if none */
	uint32_t phys_device[P2PS_RM_MAX_CARDS];
	struct p2ps_rm_stats st;
	struct p2ps_timings *timings; /* per-escape times (timing.c), or NULL */
	bool free_by_client;          /* p2ps_rm_close frees the client's tree in one call */
};

/* A call on the control descriptor whose struct points at no buffer. */
static inline struct p2ps_rm_call rm_call(const struct p2ps_rm *rm, unsigned nr, void *arg,
                                          uint32_t size, const char *what)
{
	return (struct p2ps_rm_call){
	        .fd = rm->ctl, .nr = nr, .arg = arg, .size = size, .what = what};
}

/* Room for one more element in a growable array v holding n of *cap elements: returns v or
 * its reallocation (updating *cap), or NULL when out of memory (v is then unchanged). */
/* The single path to the driver: fills and issues one escape (call.fd is rm->ctl unless
 * set), mapping a failed ioctl to P2PS_EIO. */
int rm_escape(struct p2ps_rm *rm, struct p2ps_rm_call *c, struct p2ps_error *err);
/* The RM status that the struct of an issued call carries at status_off, also to
 * *rm_status when not NULL: 0 for NV_OK, else its error named with c->what. */
int rm_call_status(const struct p2ps_rm_call *c, size_t status_off, uint32_t *rm_status,
                   struct p2ps_error *err);
/* rm_escape(), then rm_call_status(). */
int rm_escape_status(struct p2ps_rm *rm, struct p2ps_rm_call *c, size_t status_off,
                     uint32_t *rm_status, struct p2ps_error *err);
/* Records an object made by an escape other than RM_ALLOC's path. */
int rm_track(struct p2ps_rm *rm, uint32_t handle, uint32_t parent, uint32_t cls,
             struct p2ps_error *err);
/* "NAME (0x..)" of an RM status for messages. */
int rm_status_error(struct p2ps_error *err, const char *what, uint32_t status);
/* Opens /dev/nvidiaN and registers it with the client's control descriptor. */
int rm_open_gpu_fd(struct p2ps_rm *rm, uint32_t minor, int *fd, struct p2ps_error *err);
void rm_close_fd(struct p2ps_rm *rm, int fd);
/* Unmaps every DMA mapping still recorded (p2ps_rm_close). */
int rm_unmap_all(struct p2ps_rm *rm, struct p2ps_error *err);

static inline void put32(uint8_t *b, size_t off, uint32_t v)
{
	p2ps_put_le32(b + off, v);
}
static inline void put64(uint8_t *b, size_t off, uint64_t v)
{
	p2ps_put_le64(b + off, v);
}
static inline uint32_t get32(const uint8_t *b, size_t off)
{
	return p2ps_le32(b + off);
}
static inline uint64_t get64(const uint8_t *b, size_t off)
{
	return p2ps_le64(b + off);
}
/* A 32-bit field of an escape struct: its offset and value. */
struct rm_u32 {
	uint32_t off;
	uint32_t v;
};
static inline void rm_put32_fields(uint8_t *b, const struct rm_u32 *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put32(b, f[i].off, f[i].v);
}
/* Stores a list of fields: RM_PUT32(a, {NVOS00_ROOT, client}, {NVOS00_PARENT, parent}). */
#define RM_PUT32(b, ...)                                                                           \
	rm_put32_fields((b), (const struct rm_u32[]){__VA_ARGS__},                                 \
	                sizeof((const struct rm_u32[]){__VA_ARGS__}) / sizeof(struct rm_u32))
/* Stores a user pointer into an escape struct (64-bit field, NvP64). */
static inline void put_ptr(uint8_t *b, size_t off, const void *p)
{
	put64(b, off, (uint64_t)(uintptr_t)p);
}

/* ---- typed controls: the field table of the loaded series (ctrl.c) --------------------- */

/* Field lookups of one control against src/rm/fields.c for the loaded series; a field the
 * series lacks clears ok (offset and size then read 0), and rm_fl_issue refuses the
 * control before any ioctl. */
struct rm_fl {
	enum p2ps_nv_rm_era era;
	bool ok;
};
struct rm_fl rm_fl_of(const struct p2ps_rm *rm);
size_t rm_fl_off(struct rm_fl *l, enum p2ps_rm_fid id);
size_t rm_fl_size(struct rm_fl *l, enum p2ps_rm_fid id);
/* A field's value at b + base, read or written by its size in the table. */
uint64_t rm_fl_get(struct rm_fl *l, const uint8_t *b, size_t base, enum p2ps_rm_fid id);
void rm_fl_put(struct rm_fl *l, uint8_t *b, size_t base, enum p2ps_rm_fid id, uint64_t v);
/* Issues cmd on object with the zeroed buffer b of cap bytes, passing the struct's size
 * (its sizeof row size_id): ENOTSUP when a row is missing or the struct does not fit b. */
int rm_fl_issue(struct p2ps_rm *rm, struct rm_fl *l, uint32_t object, uint32_t cmd,
                enum p2ps_rm_fid size_id, uint8_t *b, size_t cap, uint32_t *rm_status,
                struct p2ps_error *err);

#endif
