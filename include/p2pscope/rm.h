/* SPDX-License-Identifier: MIT */
/* p2pscope: a small client of the NVIDIA resource-manager (RM) API.
 *
 * The RM API is the ioctl interface on /dev/nvidiactl and /dev/nvidiaN that CUDA and
 * tinygrad's userspace driver use: a client allocates objects (device, subdevice, VA space,
 * memory) in a tree under its own root handle, issues controls on them and maps memory. This
 * library knows just enough of it to read page-table entries the driver wrote: every struct
 * is defined here from the driver's headers (NVIDIA/open-gpu-kernel-modules), never copied,
 * with the layout chosen from the loaded driver's version (the driver table's row of its
 * series, p2ps_rm_driver_parse()).
 *
 * Safety is part of the interface, not of the callers:
 *   - only the escapes, object classes and controls on the allow-lists below are issued
 *     (p2ps_rm_control() refuses anything else, naming why: SET_PTE_INFO writes entries,
 *     INVALIDATE_TLB invalidates, ...);
 *   - CPU mappings are read-only (PROT_READ and NVOS33 ACCESS_READ_ONLY);
 *   - every object, mapping and descriptor is recorded when made and released by
 *     p2ps_rm_close(), children before parents, on every path.
 *
 * The system calls go through struct p2ps_rm_sys, an ops table: the Linux backend
 * (p2ps_rm_sys_linux(), with a root prefix for /proc and /dev so tests can point it at a
 * fake tree), the recorder (p2ps_rm_record_*(): wraps any backend and writes every request
 * and response as JSON) and the replay (p2ps_rm_replay_*(): answers from such a capture, so
 * CI can run the whole probe on real GPU data without a GPU).
 *
 * Nothing here prints or exits; every function returns 0 or a negative P2PS_E* and fills
 * struct p2ps_error with one line.
 */
#ifndef P2PSCOPE_RM_H
#define P2PSCOPE_RM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/nvidia_drivers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ---------------------------------------------------------------------- */

#define P2PS_RM_NV_OK 0x00000000u
/* What the shipped 580 driver answers to NV0080_CTRL_CMD_DMA_GET_PTE_INFO. */
#define P2PS_RM_NV_ERR_TEST_ONLY_CODE_NOT_ENABLED 0x0000007eu
#define P2PS_RM_NV_ERR_INSUFFICIENT_PERMISSIONS   0x0000001bu

/* The driver's name of an NV_STATUS value ("NV_ERR_INVALID_ARGUMENT"), or NULL when the
 * value is not in any supported driver's nvstatuscodes.h. */
const char *p2ps_rm_status_name(uint32_t status);
/* Name, or "NV_STATUS 0x..." written into buf; returns the name or buf. */
const char *p2ps_rm_status_str(uint32_t status, char *buf, size_t len);

/* ---- object classes and controls (the allow-lists) ------------------------------------- */

enum p2ps_rm_class {
	P2PS_RM_ROOT_CLIENT = 0x0041,           /* NV01_ROOT_CLIENT */
	P2PS_RM_DEVICE = 0x0080,                /* NV01_DEVICE_0 */
	P2PS_RM_SUBDEVICE = 0x2080,             /* NV20_SUBDEVICE_0 */
	P2PS_RM_VASPACE = 0x90f1,               /* FERMI_VASPACE_A */
	P2PS_RM_MEMORY_VIRTUAL = 0x0070,        /* NV01_MEMORY_VIRTUAL */
	P2PS_RM_MEMORY_LOCAL_USER = 0x0040,     /* NV01_MEMORY_LOCAL_USER: video memory */
	P2PS_RM_MEMORY_SYSTEM = 0x003e,         /* NV01_MEMORY_SYSTEM */
	P2PS_RM_MEMORY_LOCAL_PHYSICAL = 0x00c2, /* NV01_MEMORY_LOCAL_PHYSICAL: all of FB (root) */
	P2PS_RM_P2P = 0x503b,                   /* NV50_P2P: changes the driver's peer state */
};
const char *p2ps_rm_class_name(uint32_t cls); /* "FERMI_VASPACE_A", or NULL */

/* Controls this library issues. Each one only reads driver state. */
enum p2ps_rm_ctrl {
	P2PS_RM_CTRL_GPU_GET_ID_INFO_V2 = 0x00000205,     /* NV0000: device instance of a GPU */
	P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_V2 = 0x0000012b, /* NV0000: peer caps and bus peer ids */
	P2PS_RM_CTRL_MC_GET_ARCH_INFO = 0x20801701,       /* NV2080: architecture/implementation */
	P2PS_RM_CTRL_DMA_GET_PTE_INFO = 0x00801801,       /* NV0080: decoded PTE fields */
	P2PS_RM_CTRL_DMA_GET_PDE_INFO = 0x00801809,       /* NV0080: where the tables are */
	P2PS_RM_CTRL_GET_SURFACE_PHYS_ATTR = 0x00410103,  /* NV0041: a surface's physical address */
	/* bar-inspect's facts (rm_ctrl.h) */
	P2PS_RM_CTRL_SYSTEM_GET_CPU_INFO = 0x00000102,     /* NV0000: the CPU RM recognised */
	P2PS_RM_CTRL_SYSTEM_GET_CHIPSET_INFO = 0x00000104, /* NV0000: the chipset RM recognised */
	P2PS_RM_CTRL_SYSTEM_GET_P2P_CAPS_MATRIX = 0x0000013a, /* NV0000: caps of a GPU group */
	P2PS_RM_CTRL_BUS_GET_PCI_INFO = 0x20801801,           /* NV2080: PCI ids */
	P2PS_RM_CTRL_FB_GET_INFO_V2 = 0x20801303,             /* NV2080: FB and BAR1 sizes */
	P2PS_RM_CTRL_FB_GET_STATIC_BAR1_INFO = 0x20801354,    /* NV2080: static BAR1 (570+) */
	P2PS_RM_CTRL_NVLINK_GET_NVLINK_STATUS = 0x20803002,   /* NV2080: links and remote ends */
};

/* One control this library will not issue, and why. The list is what docs/pte-probe.md
 * prints; p2ps_rm_control() refuses these (and everything else not in enum p2ps_rm_ctrl). */
struct p2ps_rm_excluded {
	uint32_t cmd;
	const char *name;
	const char *why;
};
size_t p2ps_rm_excluded_count(void);
const struct p2ps_rm_excluded *p2ps_rm_excluded_at(size_t i);
/* Name of an allowed control, or NULL when cmd is not allowed. */
const char *p2ps_rm_ctrl_name(uint32_t cmd);

/* ---- driver version and struct layouts ------------------------------------------------- */

/* The loaded driver: its version and the driver table's stock row of its series, whose RM
 * layout (struct p2ps_nv_rm_layout: the struct sizes that differ between series and the era
 * of the control layouts, src/rm/fields.c) the client builds its structs by. */
struct p2ps_rm_driver {
	char version[32]; /* "580.159.04" */
	unsigned major, minor, patch;
	bool open_module;                       /* "Open Kernel Module" in the version file */
	const struct p2ps_nv_driver *row;       /* stock, of its series */
	const struct p2ps_nv_rm_layout *layout; /* row->rm */
};

/* Parses the text of /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX Open Kernel
 * Module for x86_64  580.159.04  Release Build ...") and picks the row of its series.
 * P2PS_EINVAL when no version is found, P2PS_ENOTSUP (naming the verified series) when the
 * series has no row with a verified layout: the client never assumes a layout from a
 * nearer series, as a wrong struct size makes the driver read or write the wrong bytes. */
int p2ps_rm_driver_parse(const char *text, struct p2ps_rm_driver *out, struct p2ps_error *err);

/* ---- the system-call backend ----------------------------------------------------------- */

/* A field of an escape's argument that holds a user pointer: it differs from run to run, so
 * a replay does not compare it (and never copies it back). */
struct p2ps_rm_ptr_field {
	uint16_t offset;
};

/* One ioctl on an RM descriptor: _IOWR('F', nr, size) with arg. For RM_ALLOC and
 * RM_CONTROL, arg points at a parameter buffer (params, params_size) that the driver reads
 * and writes too; recorders and replays handle it with arg. */
struct p2ps_rm_call {
	int fd;
	unsigned nr;   /* escape number, NV_ESC_* */
	void *arg;     /* the escape's struct */
	uint32_t size; /* its size (the ioctl's size field) */
	void *params;  /* the buffer arg points at, or NULL */
	uint32_t params_size;
	const struct p2ps_rm_ptr_field *ptrs; /* pointer fields of arg */
	size_t n_ptrs;
	const char *what; /* "RM_ALLOC FERMI_VASPACE_A", for records and messages */
};

struct p2ps_rm_sys_ops {
	const char *name; /* "linux", "record", "replay", "fake" */
	/* Opens an RM device node ("/dev/nvidiactl", "/dev/nvidia0") read-write. Returns the
	 * descriptor or a negative P2PS_E* (P2PS_ENOENT, P2PS_EACCES ...) with a message that
	 * names the path and strerror. */
	int (*open)(void *ctx, const char *path, struct p2ps_error *err);
	void (*close)(void *ctx, int fd);
	/* Issues the ioctl. 0 when the kernel accepted it (the RM status is in the struct),
	 * else a negative P2PS_E* naming c->what and strerror. */
	int (*escape)(void *ctx, struct p2ps_rm_call *c, struct p2ps_error *err);
	/* mmap(len, PROT_READ, MAP_SHARED, fd, 0): read-only by construction. */
	int (*mmap_ro)(void *ctx, int fd, size_t len, const void **out, struct p2ps_error *err);
	void (*munmap)(void *ctx, const void *addr, size_t len);
	/* Reads a small text file ("/proc/driver/nvidia/version") NUL-terminated into buf.
	 * Returns its length or a negative P2PS_E* (P2PS_ENOENT when absent). */
	int (*read_text)(void *ctx, const char *path, char *buf, size_t cap,
	                 struct p2ps_error *err);
	/* Whether the process runs as root (reading raw entries needs it). */
	bool (*is_root)(void *ctx);
};

struct p2ps_rm_sys {
	const struct p2ps_rm_sys_ops *ops;
	void *ctx;
};

/* The real system calls. root_prefix ("" or NULL: the real /) is put in front of every path,
 * so tests can offer a tree without /dev/nvidiactl or with an unknown driver version.
 * is_root_override: -1 asks geteuid(), 0/1 pretend (tests of the non-root path). The
 * context lives in *ctx (no allocation). */
struct p2ps_rm_linux {
	char root[512];
	int is_root_override;
};
void p2ps_rm_sys_linux(struct p2ps_rm_sys *sys, struct p2ps_rm_linux *ctx, const char *root_prefix,
                       int is_root_override);

/* The open(2)-style message for a failed open of an RM node, shared by the Linux backend and
 * the replay so both say the same thing: "cannot open /dev/nvidiactl: No such file or
 * directory (is the nvidia module loaded?)". Returns the P2PS_E* for errno_value. */
int p2ps_rm_open_error(struct p2ps_error *err, const char *path, int errno_value);

/* ---- the client ----------------------------------------------------------------------- */

struct p2ps_rm; /* opaque */
struct p2ps_rm_stats;

/* Reads the driver version (refusing unknown layouts), opens /dev/nvidiactl and allocates a
 * root client. On failure nothing stays open. */
int p2ps_rm_open(struct p2ps_rm **out, const struct p2ps_rm_sys *sys, struct p2ps_error *err);
/* Frees every object still allocated (children first), unmaps and closes everything.
 * Returns 0, or the first failure (the rest is still released). Safe with NULL. The final
 * counts go to *final when not NULL (live objects 0 unless a free failed). */
int p2ps_rm_close(struct p2ps_rm *rm, struct p2ps_rm_stats *final, struct p2ps_error *err);

const struct p2ps_rm_driver *p2ps_rm_driver(const struct p2ps_rm *rm);
uint32_t p2ps_rm_client(const struct p2ps_rm *rm);
bool p2ps_rm_is_root(const struct p2ps_rm *rm);

/* Bookkeeping, for tests and the report: objects allocated and freed so far, and those still
 * live. After p2ps_rm_close() every count of live things is 0 unless a free failed. */
struct p2ps_rm_stats {
	unsigned allocs, frees, live;
	unsigned controls, maps, unmaps, cpu_maps, cpu_unmaps;
	unsigned fds_open;
};
void p2ps_rm_get_stats(const struct p2ps_rm *rm, struct p2ps_rm_stats *out);

/* From now on each escape adds its time to a phase of t named after it ("RM_ALLOC
 * NV01_DEVICE_0", "NV2080_CTRL_CMD_FB_GET_INFO_V2", "open(/dev/nvidiaN)"); NULL stops. */
struct p2ps_timings;
void p2ps_rm_set_timings(struct p2ps_rm *rm, struct p2ps_timings *t);

/* How p2ps_rm_close() frees: off (the default), each object with its own RM_FREE, children
 * first; on, one RM_FREE of the root client, with which the driver frees every object of
 * the client (its subtree, children first). Used only where no mapping is left. */
void p2ps_rm_set_free_by_client(struct p2ps_rm *rm, bool on);

/* Allocates an object of an allowed class under parent (RM_ALLOC). params/size are the
 * class's allocation parameters (NULL/0 for none). The handle is chosen here. A failure
 * with an RM status gives P2PS_EIO and "RM_ALLOC FERMI_VASPACE_A: NV_ERR_... (0x..)"; the
 * status itself is stored in *rm_status when not NULL. */
int p2ps_rm_alloc(struct p2ps_rm *rm, uint32_t parent, uint32_t cls, void *params, uint32_t size,
                  uint32_t *handle, uint32_t *rm_status, struct p2ps_error *err);
/* Frees one object (and forgets it). Objects are freed by p2ps_rm_close() anyway. */
int p2ps_rm_free(struct p2ps_rm *rm, uint32_t handle, struct p2ps_error *err);
/* Issues an allowed control. Controls not on the allow-list are refused with P2PS_EACCES
 * before anything reaches the driver. */
int p2ps_rm_control(struct p2ps_rm *rm, uint32_t object, uint32_t cmd, void *params, uint32_t size,
                    uint32_t *rm_status, struct p2ps_error *err);

/* ---- GPUs ----------------------------------------------------------------------------- */

#define P2PS_RM_MAX_CARDS 32

struct p2ps_rm_card {
	bool valid;
	uint32_t gpu_id; /* RM's GPU id */
	uint32_t domain;
	uint8_t bus, slot, function;
	uint16_t vendor_id, device_id;
	uint64_t reg_address, reg_size, fb_address, fb_size; /* BAR0, BAR1 bus addresses */
	uint32_t minor;                                      /* /dev/nvidiaN */
};

/* NV_ESC_CARD_INFO: the driver's GPUs, in its order (what --gpu N counts). */
int p2ps_rm_cards(struct p2ps_rm *rm, struct p2ps_rm_card *cards, size_t cap, size_t *n,
                  struct p2ps_error *err);

struct p2ps_rm_gpu {
	struct p2ps_rm_card card;
	uint32_t device_instance, subdevice_instance;
	uint32_t device, subdevice; /* handles */
	uint32_t arch, impl;        /* NV2080_CTRL_MC_GET_ARCH_INFO */
	char chip[16];              /* "GH100", or "" when the arch is not known here */
	int fd;                     /* /dev/nvidiaN, registered with the client */
};

/* Opens /dev/nvidiaN, registers it, allocates device and subdevice and reads the chip. */
int p2ps_rm_gpu_open(struct p2ps_rm *rm, const struct p2ps_rm_card *card, struct p2ps_rm_gpu *gpu,
                     struct p2ps_error *err);
/* HAL chip name of an NV2080 architecture/implementation pair ("GH100"), or NULL. */
const char *p2ps_rm_chip_name(uint32_t arch, uint32_t impl);

/* ---- memory ---------------------------------------------------------------------------- */

/* A GPU VA space of this client (FERMI_VASPACE_A, RM-managed) and a virtual range covering
 * all of it (NV01_MEMORY_VIRTUAL), into which MAP_MEMORY_DMA places mappings. */
struct p2ps_rm_vas {
	uint32_t vaspace, virt;
};
int p2ps_rm_vas_new(struct p2ps_rm *rm, const struct p2ps_rm_gpu *gpu, uint64_t va_limit,
                    struct p2ps_rm_vas *vas, struct p2ps_error *err);

/* NV_MEMORY_ALLOCATION_PARAMS fields a caller chooses (the rest is zero). */
struct p2ps_rm_mem_req {
	uint32_t cls; /* P2PS_RM_MEMORY_LOCAL_USER or P2PS_RM_MEMORY_SYSTEM */
	uint32_t type, flags, attr, attr2, format;
	uint64_t size, alignment;
};
int p2ps_rm_mem_alloc(struct p2ps_rm *rm, const struct p2ps_rm_gpu *gpu,
                      const struct p2ps_rm_mem_req *req, uint32_t *handle, uint32_t *rm_status,
                      struct p2ps_error *err);

/* MAP_MEMORY_DMA of [offset, offset+length) of hmem into the virtual range hdma with the
 * NVOS46 flags; *va gets the GPU VA. Recorded and unmapped by p2ps_rm_close(). */
int p2ps_rm_map_dma(struct p2ps_rm *rm, uint32_t device, uint32_t hdma, uint32_t hmem,
                    uint64_t offset, uint64_t length, uint32_t flags, uint64_t *va,
                    uint32_t *rm_status, struct p2ps_error *err);

/* NVOS46 flags (nvos.h NVOS46_FLAGS_*). */
#define P2PS_RM_MAP_ACCESS_READ_ONLY  0x00000001u                 /* ACCESS 1:0 = READ_ONLY */
#define P2PS_RM_MAP_CACHE_SNOOP       0x00000010u                 /* CACHE_SNOOP 4:4 = ENABLE */
#define P2PS_RM_MAP_PAGE_SIZE(v)      (((uint32_t)(v)&0xfu) << 8) /* PAGE_SIZE 11:8 */
#define P2PS_RM_MAP_PAGE_4KB          1u
#define P2PS_RM_MAP_PAGE_BIG          2u
#define P2PS_RM_MAP_PAGE_HUGE         4u
#define P2PS_RM_MAP_PAGE_512M         5u
#define P2PS_RM_MAP_GPU_CACHEABLE(v)  (((uint32_t)(v)&0x3u) << 17) /* GPU_CACHEABLE 18:17 */
#define P2PS_RM_MAP_CACHEABLE_DEFAULT 0u
#define P2PS_RM_MAP_CACHEABLE_YES     1u
#define P2PS_RM_MAP_CACHEABLE_NO      2u
#define P2PS_RM_MAP_P2P_NOSLI         (2u << 20) /* P2P_ENABLE 21:20 = NOSLI */

/* Reads 4 KiB of video memory at FB offset pa (page-aligned) through a read-only CPU mapping
 * of the whole framebuffer (NV01_MEMORY_LOCAL_PHYSICAL, allocated on first use: root only):
 * a fresh /dev/nvidiaN descriptor, MAP_MEMORY with ACCESS_READ_ONLY, mmap(PROT_READ), copy,
 * munmap, UNMAP_MEMORY, close. Without root the driver refuses the allocation: P2PS_EACCES
 * with a message saying so. */
int p2ps_rm_read_vidmem(struct p2ps_rm *rm, struct p2ps_rm_gpu *gpu, uint64_t pa, uint8_t out[4096],
                        struct p2ps_error *err);

/* ---- record and replay ----------------------------------------------------------------- */

/* Wraps inner: every call goes to inner and is written to `path` as JSON (format
 * "p2pscope-rm-capture" version 1, docs/pte-probe.md). `note` (e.g. the command line) is
 * stored in the header. The file is complete after p2ps_rm_record_finish(). */
struct p2ps_rm_recorder;
int p2ps_rm_record_start(struct p2ps_rm_recorder **out, const struct p2ps_rm_sys *inner,
                         const char *path, const char *note, struct p2ps_rm_sys *sys,
                         struct p2ps_error *err);
int p2ps_rm_record_finish(struct p2ps_rm_recorder *r, struct p2ps_error *err);

/* One recorded call, as parsed from a capture. */
enum p2ps_rm_op {
	P2PS_RM_OP_READ = 1,
	P2PS_RM_OP_ROOT,
	P2PS_RM_OP_OPEN,
	P2PS_RM_OP_CLOSE,
	P2PS_RM_OP_ESCAPE,
	P2PS_RM_OP_MMAP,
	P2PS_RM_OP_MUNMAP,
};

struct p2ps_rm_word {
	uint32_t offset;
	uint64_t value;
};

struct p2ps_rm_rec {
	enum p2ps_rm_op op;
	char *path;  /* READ, OPEN */
	char *text;  /* READ: the file's text */
	int fd;      /* OPEN (result), CLOSE, ESCAPE, MMAP */
	int code;    /* OPEN, READ, ESCAPE, MMAP: the P2PS_E* of a failure, 0 when it worked */
	char *error; /* its message */
	bool root;   /* ROOT */
	unsigned nr; /* ESCAPE */
	uint8_t *in, *out, *in_params, *out_params;
	uint32_t size, params_size;
	uint64_t length;            /* MMAP */
	struct p2ps_rm_word *words; /* MMAP: the non-zero 8-byte words of the page */
	size_t n_words;
};

struct p2ps_rm_capture {
	char *note;
	struct p2ps_rm_rec *recs;
	size_t n;
};

/* The largest capture file read: a session with every GPU of an 8-GPU host is a few MiB. */
#define P2PS_RM_CAPTURE_MAX_BYTES ((size_t)64 << 20)

/* Parses a capture (one parser, json-c). Errors name the record and key; text that is not
 * JSON is described in the reader's words (where, and what was expected there). */
int p2ps_rm_capture_parse(const char *json, size_t len, const char *name,
                          struct p2ps_rm_capture *cap, struct p2ps_error *err);
/* Reads the file path (at most P2PS_RM_CAPTURE_MAX_BYTES) and parses it; errors name path. */
int p2ps_rm_capture_load(const char *path, struct p2ps_rm_capture *cap, struct p2ps_error *err);
void p2ps_rm_capture_cleanup(struct p2ps_rm_capture *cap);

/* A backend that answers every call from cap, in order, checking that each request is the
 * one recorded (byte for byte, pointers aside). A request that differs ends the replay with
 * a message naming the call and the first differing byte. */
struct p2ps_rm_replay;
int p2ps_rm_replay_start(struct p2ps_rm_replay **out, const struct p2ps_rm_capture *cap,
                         struct p2ps_rm_sys *sys, struct p2ps_error *err);
/* Calls of the capture not consumed yet. */
size_t p2ps_rm_replay_left(const struct p2ps_rm_replay *r);
/* Ends the replay: P2PS_EINVAL when a request differed from the capture (the first
 * difference's message) or when calls are left over (the program stopped early). */
int p2ps_rm_replay_finish(struct p2ps_rm_replay *r, struct p2ps_error *err);

#ifdef __cplusplus
}
#endif

#endif
