/* p2pscope: the VFIO backend — what a device bound to vfio-pci tells user space.
 *
 * Three layers, each usable on its own:
 *  1. Pure parsers over the byte buffers the VFIO INFO ioctls return
 *     (p2ps_vfio_caps_walk, p2ps_vfio_region_parse, ...). They trust nothing in
 *     the buffer: every capability offset is checked against the buffer length,
 *     a walk stops on a loop or after P2PS_VFIO_MAX_CAPS entries and says how it
 *     ended. These are the libFuzzer and malformed-chain test targets.
 *  2. A session (struct p2ps_vfio) that opens devices through the legacy
 *     container/group interface or, where the UAPI and kernel have it, the cdev +
 *     iommufd interface, and runs the INFO ioctls with argsz growth. Every system
 *     call goes through struct p2ps_vfio_sys, so tests replace the kernel.
 *  3. Read-only helpers for bar-inspect: map one BAR read-only and read one
 *     32-bit register, decode NVIDIA's PMC_BOOT_0, and map a peer's BAR into the
 *     IOMMU (VFIO_IOMMU_MAP_DMA) to show whether P2P through the IOMMU can work.
 *
 * Hardware safety: opening a VFIO device can reset it (vfio-pci resets a device
 * on first open when it supports a function-level or bus reset). Nothing here
 * writes config space or MMIO; BAR mappings are PROT_READ; peer DMA mappings
 * are created readable-only and removed before the session closes.
 *
 * ioctl buffers are in the host's byte order (unlike config space, which is
 * little-endian); the parsers load them with memcpy, never by casting.
 */
#ifndef P2PSCOPE_VFIO_H
#define P2PSCOPE_VFIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "p2pscope/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define P2PS_VFIO_MAX_CAPS    32         /* capability entries walked per INFO buffer */
#define P2PS_VFIO_MAX_AREAS   16         /* sparse-mmap areas kept per region */
#define P2PS_VFIO_MAX_REGIONS 16         /* vfio-pci: 9 fixed + device-specific */
#define P2PS_VFIO_MAX_IRQS    8          /* vfio-pci: INTx, MSI, MSI-X, ERR, REQ */
#define P2PS_VFIO_MAX_RANGES  16         /* IOVA ranges kept from VFIO_IOMMU_GET_INFO */
#define P2PS_VFIO_MAX_GROUPS  16         /* groups one session may hold */
#define P2PS_VFIO_INFO_MAX    (1u << 20) /* largest argsz we follow (1 MiB) */
#define P2PS_VFIO_CONFIG_MAX  4096

/* vfio-pci's fixed region indexes (VFIO_PCI_*_REGION_INDEX). */
enum p2ps_vfio_pci_region {
	P2PS_VFIO_PCI_BAR0 = 0,
	P2PS_VFIO_PCI_ROM = 6,
	P2PS_VFIO_PCI_CONFIG = 7,
	P2PS_VFIO_PCI_VGA = 8,
	P2PS_VFIO_PCI_NUM_REGIONS = 9,
};

/* How a capability-chain walk ended (style habit 6). */
enum p2ps_vfio_chain_end {
	P2PS_VFIO_CHAIN_NONE = 0, /* no chain (CAPS flag clear or cap_offset 0) */
	P2PS_VFIO_CHAIN_OK,       /* reached next == 0 */
	P2PS_VFIO_CHAIN_LOOPED,   /* an offset was visited twice */
	P2PS_VFIO_CHAIN_BROKEN,   /* an offset points outside the buffer or into the fixed part */
	P2PS_VFIO_CHAIN_TOO_LONG, /* more than P2PS_VFIO_MAX_CAPS entries */
};

/* "none", "ok", "looped", "broken", "too_long". */
const char *p2ps_vfio_chain_end_name(enum p2ps_vfio_chain_end end);

struct p2ps_vfio_cap_ref {
	uint16_t id;
	uint16_t version;
	uint32_t offset; /* of the header, from the start of the info buffer */
	uint32_t len;    /* bytes up to the next header or the end of the buffer */
};

struct p2ps_vfio_cap_chain {
	enum p2ps_vfio_chain_end end;
	unsigned n;          /* entries in caps[] */
	uint32_t bad_offset; /* BROKEN/LOOPED: the offending offset */
	struct p2ps_vfio_cap_ref caps[P2PS_VFIO_MAX_CAPS];
};

/* Walks the chain in buf[0..len) that starts at byte offset first. fixed is the
 * size of the info struct in front of the chain: a capability may not start
 * inside it. A header must fit whole (8 bytes) inside the buffer. Always returns
 * 0 with out->end set, or P2PS_EINVAL for NULL arguments. */
int p2ps_vfio_caps_walk(const uint8_t *buf, size_t len, uint32_t first, size_t fixed,
                        struct p2ps_vfio_cap_chain *out, struct p2ps_error *err);

/* ---- regions --------------------------------------------------------------- */

struct p2ps_vfio_area {
	uint64_t offset; /* from the start of the region */
	uint64_t size;
};

/* One VFIO_DEVICE_GET_REGION_INFO answer, decoded. */
struct p2ps_vfio_region {
	uint32_t index;
	uint32_t flags;  /* VFIO_REGION_INFO_FLAG_READ 1, WRITE 2, MMAP 4, CAPS 8 */
	uint64_t size;   /* bytes; 0 = not implemented (unused BAR, upper half of a 64-bit BAR) */
	uint64_t offset; /* file offset of the region in the device fd */
	uint32_t argsz;  /* size the kernel asked for (>= the fixed struct when caps follow) */
	int query_errno; /* errno of GET_REGION_INFO when the kernel refused this index
	                  * (vfio-pci: EINVAL for the VGA region of a non-VGA device); 0 otherwise
	                  */

	struct p2ps_vfio_cap_chain chain;

	/* VFIO_REGION_INFO_CAP_SPARSE_MMAP (id 1): only these ranges may be mmapped. */
	bool has_sparse;
	bool sparse_malformed;    /* nr_areas claims more areas than the buffer holds */
	bool sparse_outside;      /* an area reaches past the region's size */
	uint32_t sparse_nr_areas; /* as the kernel reported it */
	unsigned n_areas;         /* kept in areas[] (<= P2PS_VFIO_MAX_AREAS) */
	struct p2ps_vfio_area areas[P2PS_VFIO_MAX_AREAS];

	/* VFIO_REGION_INFO_CAP_TYPE (id 2). */
	bool has_type;
	uint32_t type; /* bit 31 set: PCI vendor type, low 16 bits the vendor id */
	uint32_t subtype;

	/* VFIO_REGION_INFO_CAP_MSIX_MAPPABLE (id 3): the MSI-X table page may be mmapped. */
	bool msix_mappable;

	/* Capabilities of a known id but too short for their payload. */
	bool cap_truncated;
};

/* Decodes a region-info buffer (struct vfio_region_info + its capability chain)
 * of len bytes. len must cover the fixed struct (32 bytes) or P2PS_EINVAL is
 * returned; a damaged chain is recorded in out, not returned as an error. */
int p2ps_vfio_region_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_region *out,
                           struct p2ps_error *err);

/* "bar0".."bar5", "rom", "config", "vga", or "region<N>" for device-specific ones. */
const char *p2ps_vfio_region_name(uint32_t index, char *buf, size_t size);

/* Region flags as text: "read write mmap caps" (empty string for none). */
const char *p2ps_vfio_region_flags_str(uint32_t flags, char *buf, size_t size);

/* ---- IOMMU info (legacy type1 container) --------------------------------- */

struct p2ps_vfio_iova_range {
	uint64_t start;
	uint64_t end; /* inclusive */
};

struct p2ps_vfio_iommu_info {
	uint32_t flags;        /* VFIO_IOMMU_INFO_PGSIZES 1, CAPS 2 */
	uint64_t iova_pgsizes; /* bitmap of IOMMU page sizes */
	struct p2ps_vfio_cap_chain chain;
	bool has_ranges;
	bool ranges_malformed;
	uint32_t nr_iovas; /* as reported */
	unsigned n_ranges;
	struct p2ps_vfio_iova_range ranges[P2PS_VFIO_MAX_RANGES];
	bool has_dma_avail;
	uint32_t dma_avail; /* VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL: mappings still allowed */
};

/* Decodes a struct vfio_iommu_type1_info buffer and its chain. */
int p2ps_vfio_iommu_info_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_iommu_info *out,
                               struct p2ps_error *err);

/* ---- device info ----------------------------------------------------------- */

struct p2ps_vfio_irq {
	uint32_t index; /* 0 INTx, 1 MSI, 2 MSI-X, 3 ERR, 4 REQ */
	uint32_t flags;
	uint32_t count;
};

struct p2ps_vfio_device_info {
	uint32_t flags; /* VFIO_DEVICE_FLAGS_RESET 1, PCI 2, CAPS 0x80 */
	uint32_t num_regions;
	uint32_t num_irqs;
	struct p2ps_vfio_cap_chain chain; /* device-info capabilities (ids only) */
};

/* Decodes a struct vfio_device_info buffer (fixed part + chain). */
int p2ps_vfio_device_info_parse(const uint8_t *buf, size_t len, struct p2ps_vfio_device_info *out,
                                struct p2ps_error *err);

/* ---- system-call layer ----------------------------------------------------- */

/* Every kernel interaction of a session. Each returns what the libc call returns
 * and leaves errno set on failure. ctx is passed back unchanged. */
struct p2ps_vfio_sys {
	int (*open)(void *ctx, const char *path, int flags);
	int (*close)(void *ctx, int fd);
	int (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, off_t off);
	void *(*mmap)(void *ctx, size_t len, int prot, int flags, int fd, off_t off);
	int (*munmap)(void *ctx, void *addr, size_t len);
	void *ctx;
};

/* The real kernel (open(2), ioctl(2), ...). */
const struct p2ps_vfio_sys *p2ps_vfio_sys_default(void);

/* ---- session --------------------------------------------------------------- */

enum p2ps_vfio_flow {
	P2PS_VFIO_FLOW_AUTO = 0, /* legacy when /dev/vfio/<group> exists, else cdev */
	P2PS_VFIO_FLOW_LEGACY,   /* /dev/vfio/vfio container + /dev/vfio/<group> */
	P2PS_VFIO_FLOW_CDEV,     /* /dev/vfio/devices/vfioN + /dev/iommu (Linux >= 6.6) */
};

/* "auto", "legacy", "cdev". */
const char *p2ps_vfio_flow_name(enum p2ps_vfio_flow flow);

/* true when this build carries the cdev/iommufd UAPI definitions. */
bool p2ps_vfio_cdev_compiled(void);

struct p2ps_vfio_opts {
	const struct p2ps_vfio_sys *sys; /* NULL: p2ps_vfio_sys_default() */
	const char *sysfs_root;          /* NULL: "/sys" */
	const char *dev_root;            /* NULL: "/dev" */
	enum p2ps_vfio_flow flow;
};

struct p2ps_vfio_group {
	int id;
	int fd;
	bool noiommu;    /* /dev/vfio/noiommu-N */
	uint32_t status; /* VFIO_GROUP_FLAGS_VIABLE 1, CONTAINER_SET 2 */
};

/* One container (legacy) or one iommufd + IOAS (cdev), shared by every device
 * opened through it. Zero-initialise; p2ps_vfio_open fills it. */
struct p2ps_vfio {
	const struct p2ps_vfio_sys *sys;
	char sysfs_root[256];
	char dev_root[256];
	enum p2ps_vfio_flow flow_req;

	/* legacy */
	int container_fd; /* -1 until opened */
	int api_version;
	bool ext_type1, ext_type1v2, ext_noiommu;
	uint32_t iommu_type; /* 0 until VFIO_SET_IOMMU succeeded: 1, 3 or 8 */
	int n_groups;
	struct p2ps_vfio_group groups[P2PS_VFIO_MAX_GROUPS];
	bool have_iommu_info;
	struct p2ps_vfio_iommu_info iommu;

	/* cdev */
	int iommufd;      /* -1 until opened */
	uint32_t ioas_id; /* 0 until allocated */
};

/* Prepares a session; opens nothing yet (the container or iommufd is opened by
 * the first p2ps_vfio_device_open, when the flow is known). */
int p2ps_vfio_open(struct p2ps_vfio *v, const struct p2ps_vfio_opts *opts, struct p2ps_error *err);

/* Closes the groups, the container / iommufd. Devices must be closed first. */
void p2ps_vfio_close(struct p2ps_vfio *v);

struct p2ps_vfio_device {
	struct p2ps_vfio *v;
	char bdf[16];             /* "DDDD:BB:DD.F" */
	int fd;                   /* device fd, -1 when closed */
	enum p2ps_vfio_flow flow; /* LEGACY or CDEV: how it was opened */
	int group;                /* IOMMU group number, -1 when unknown */
	bool noiommu;
	char node[320];   /* /dev/vfio/<group> or /dev/vfio/devices/vfioN */
	uint32_t devid;   /* cdev: VFIO_DEVICE_BIND_IOMMUFD out_devid */
	uint32_t hwpt_id; /* cdev: pt_id returned by ATTACH_IOMMUFD_PT */
	char driver[32];  /* sysfs driver name at open time */
};

/* Opens bdf ("DDDD:BB:DD.F" or "BB:DD.F") through the session: checks that it
 * is bound to vfio-pci, finds its group, sets up the container (API version,
 * extensions, group viability, VFIO_GROUP_SET_CONTAINER, VFIO_SET_IOMMU) and
 * gets the device fd; or, in the cdev flow, binds the device to iommufd and
 * attaches it to the session's IOAS. CAN RESET THE DEVICE. */
int p2ps_vfio_device_open(struct p2ps_vfio *v, const char *bdf, struct p2ps_vfio_device *d,
                          struct p2ps_error *err);

void p2ps_vfio_device_close(struct p2ps_vfio_device *d);

/* VFIO_DEVICE_GET_INFO with argsz growth. */
int p2ps_vfio_device_get_info(struct p2ps_vfio_device *d, struct p2ps_vfio_device_info *out,
                              struct p2ps_error *err);

/* VFIO_DEVICE_GET_REGION_INFO for one index with argsz growth: asks with the
 * fixed struct, and when the kernel answers with a larger argsz, allocates that
 * much (up to P2PS_VFIO_INFO_MAX) and asks again (at most 4 times). */
int p2ps_vfio_region_get(struct p2ps_vfio_device *d, uint32_t index, struct p2ps_vfio_region *out,
                         struct p2ps_error *err);

/* VFIO_DEVICE_GET_IRQ_INFO for one index. */
int p2ps_vfio_irq_get(struct p2ps_vfio_device *d, uint32_t index, struct p2ps_vfio_irq *out,
                      struct p2ps_error *err);

/* VFIO_IOMMU_GET_INFO on the session's container (legacy flow) with argsz growth;
 * fills v->iommu. P2PS_ENOTSUP for cdev sessions and no-IOMMU containers. */
int p2ps_vfio_iommu_get_info(struct p2ps_vfio *v, struct p2ps_error *err);

/* Reads len bytes of config space at off through the VFIO config region (pread).
 * *got receives the bytes read (short at the end of config space). */
int p2ps_vfio_config_read(struct p2ps_vfio_device *d, const struct p2ps_vfio_region *cfg,
                          uint32_t off, void *buf, size_t len, size_t *got, struct p2ps_error *err);

/* ---- everything about one device, as bar-inspect reports it ---------------- */

/* Result of comparing VFIO's config space with sysfs's config file. vfio-pci
 * virtualises some registers (BARs, ROM, parts of the capability chain), so the
 * identity registers must match and the rest is reported, not judged. */
struct p2ps_vfio_config_check {
	bool done;           /* both sides were read */
	size_t vfio_len;     /* bytes VFIO returned (256 or 4096) */
	size_t sysfs_len;    /* bytes sysfs returned (64 without root) */
	size_t compared;     /* min of the two */
	bool identity_match; /* vendor, device, revision, class, header type, subsystem */
	unsigned n_diff;     /* differing bytes in the compared range */
	int first_diff;      /* offset of the first differing byte, -1 if none */
	char why[128];       /* when !done: what could not be read */
};

struct p2ps_vfio_dev_report {
	char bdf[16];
	enum p2ps_vfio_flow flow;
	int group;
	bool noiommu;
	char node[320];
	uint32_t iommu_type; /* legacy: type set on the container */
	struct p2ps_vfio_device_info info;
	unsigned n_regions;
	struct p2ps_vfio_region regions[P2PS_VFIO_MAX_REGIONS];
	unsigned n_irqs;
	struct p2ps_vfio_irq irqs[P2PS_VFIO_MAX_IRQS];
	uint8_t config[P2PS_VFIO_CONFIG_MAX]; /* as read through VFIO */
	size_t config_len;
	struct p2ps_vfio_config_check check;
};

/* GET_INFO, every region, every IRQ index, config space through VFIO and its
 * cross-check against sysfs's config file. */
int p2ps_vfio_device_report(struct p2ps_vfio_device *d, struct p2ps_vfio_dev_report *out,
                            struct p2ps_error *err);

/* ---- read one register, read-only ------------------------------------------ */

struct p2ps_vfio_mmio {
	const struct p2ps_vfio_sys *sys;
	void *map; /* page-aligned mapping, NULL when the value came from pread */
	size_t map_len;
	int fd; /* sysfs resourceN fd we own, or -1 */
	uint64_t bar_size;
	char how[32]; /* "vfio-mmap", "vfio-pread", "sysfs-mmap" */
};

/* Reads the 32-bit register at byte offset off of BAR bar, never writing:
 *  - d != NULL: through the device's VFIO region (mmap PROT_READ of the page
 *    when the region and its sparse areas allow it, else pread);
 *  - d == NULL: mmap PROT_READ of sysfs_root/bus/pci/devices/<bdf>/resource<bar>
 *    (needs root).
 * off must be 4-byte aligned and inside the BAR. */
int p2ps_vfio_read_reg(struct p2ps_vfio_device *d, const struct p2ps_vfio_opts *opts,
                       const char *bdf, unsigned bar, uint64_t off, uint32_t *value, char *how,
                       size_t how_size, struct p2ps_error *err);

/* Parses "BAR:OFFSET" ("0:0x0", "1:0x100"; offset hex with or without 0x, or decimal). */
int p2ps_vfio_reg_spec_parse(const char *s, unsigned *bar, uint64_t *off, struct p2ps_error *err);

/* NVIDIA NV_PMC_BOOT_0 (BAR0 + 0x0), decoded from the published field layout. */
struct p2ps_nv_boot0 {
	uint32_t raw;
	bool responding;        /* false for 0xffffffff (device gone / in reset / BAR off) */
	uint8_t minor_rev;      /* NV_PMC_BOOT_0_MINOR_REVISION 3:0 */
	uint8_t major_rev;      /* NV_PMC_BOOT_0_MAJOR_REVISION 7:4 */
	uint8_t implementation; /* NV_PMC_BOOT_0_IMPLEMENTATION 23:20 */
	uint8_t architecture;   /* ARCHITECTURE_1 8:8 << 5 | ARCHITECTURE_0 28:24 */
	uint16_t chip_id;       /* architecture << 4 | implementation, e.g. 0x192 */
	const char *arch_name;  /* "Ada", ... or NULL when the table has no row */
	const char *chip_name;  /* "AD102", ... or NULL */
	const char *gmmu;       /* libgmmu's format of chip_name ("v2-ga"), or NULL */
};

void p2ps_nv_boot0_decode(uint32_t raw, struct p2ps_nv_boot0 *out);

/* ---- peer BAR through the IOMMU ------------------------------------------- */

struct p2ps_vfio_peer_map {
	char a[16], b[16];
	unsigned bar; /* B's BAR that was mapped */
	uint64_t bar_size;
	uint64_t bar_bus_addr; /* B's BAR bus address (sysfs resource), 0 if unknown */
	uint64_t map_offset;   /* offset inside the BAR of the mapped range (sparse areas) */
	uint64_t map_size;
	uint64_t iova;
	bool iova_is_bus_addr; /* IOVA equals B's bus address (what the hack would use) */
	bool same_group;
	const char *method;  /* "VFIO_IOMMU_MAP_DMA" or "IOMMU_IOAS_MAP" */
	uint32_t iommu_type; /* legacy container type (1, 3) */
	bool mapped;         /* the kernel accepted the mapping */
	int map_errno;       /* when !mapped */
	const char *meaning; /* what the refusal (or success) means */
	bool unmapped;       /* removed again */
	uint64_t unmapped_size;
};

/* Maps B's BAR (the largest mmappable BAR when bar < 0) into the IOMMU context
 * that holds A (A and B must be open in the same session), reports the IOVA or
 * the kernel's refusal, and unmaps. Returns 0 when the attempt was made (the
 * outcome is in out), negative when it could not be made. DMA mapping is
 * readable-only; nothing is written to either device. */
int p2ps_vfio_map_peer(struct p2ps_vfio_device *a, struct p2ps_vfio_device *b, int bar,
                       struct p2ps_vfio_peer_map *out, struct p2ps_error *err);

/* What an errno from VFIO_IOMMU_MAP_DMA / IOMMU_IOAS_MAP of a BAR means. */
const char *p2ps_vfio_map_errno_meaning(int err_no, bool iommufd);

/* ---- the host model through VFIO (bar-inspect --vfio) ---------------------- */

struct p2ps_host;
struct p2ps_host_source;
struct p2ps_host_backend;

#define P2PS_VFIO_MAX_DEVS 16

/* The VFIO side of a host load: the open session and devices (kept open so that
 * --read-reg and --map-peer reuse them instead of opening, and possibly
 * resetting, a device twice) and one report per device. */
struct p2ps_vfio_host {
	struct p2ps_vfio session;
	unsigned n_devs;
	struct p2ps_vfio_device devs[P2PS_VFIO_MAX_DEVS];
	struct p2ps_vfio_dev_report *reports; /* n_devs entries, owned */
	/* The container's IOMMU facts (legacy flow, not no-IOMMU). */
	bool iommu_known;
	char iommu_why[160]; /* why not, when !iommu_known */
};

/* Loads the host model from live sysfs (every device, topology, ACS, groups),
 * then opens each device of src->vfio_bdfs (comma-separated BDFs; "all" = every
 * device bound to vfio-pci, in BDF order) through VFIO and
 * overlays what VFIO knows better: BAR and ROM sizes from the region info, and
 * the full config space (readable through VFIO without root) from which the
 * PCIe, ACS and ReBAR capabilities are decoded again. host->kind becomes
 * P2PS_HOST_VFIO. CAN RESET THE DEVICES. On failure host and vh are empty. */
int p2ps_vfio_host_load(struct p2ps_host *host, const struct p2ps_host_source *src,
                        const struct p2ps_vfio_opts *opts, struct p2ps_vfio_host *vh,
                        struct p2ps_error *err);

/* Closes the devices and the session and frees the reports. */
void p2ps_vfio_host_close(struct p2ps_vfio_host *vh);

/* The open device / report for a BDF ("BB:DD.F" or "DDDD:BB:DD.F"); NULL if not loaded. */
struct p2ps_vfio_device *p2ps_vfio_host_device(struct p2ps_vfio_host *vh, const char *bdf);
const struct p2ps_vfio_dev_report *p2ps_vfio_host_report(const struct p2ps_vfio_host *vh,
                                                         const char *bdf);

/* The host backend table for P2PS_HOST_VFIO (registry entry in host.c): the
 * same load, with the session closed before it returns. */
extern const struct p2ps_host_backend p2ps_host_backend_vfio;

/* ---- rendering (no printing: JSON objects and text lines for the caller) ---- */

struct json_object;

/* The per-device "vfio" JSON object; see docs/vfio.md for the keys. Caller owns
 * the result (json_object_put). NULL when out of memory. */
struct json_object *p2ps_vfio_report_json(const struct p2ps_vfio_dev_report *r);
struct json_object *p2ps_vfio_peer_map_json(const struct p2ps_vfio_peer_map *m);
struct json_object *p2ps_nv_boot0_json(const struct p2ps_nv_boot0 *b);

/* Text: calls line(ctx, s) once per output line (no trailing newline). indent
 * is prepended to each line. */
typedef void (*p2ps_vfio_line_fn)(void *ctx, const char *line);
void p2ps_vfio_report_text(const struct p2ps_vfio_dev_report *r, const char *indent,
                           p2ps_vfio_line_fn line, void *ctx);
void p2ps_vfio_peer_map_text(const struct p2ps_vfio_peer_map *m, const char *indent,
                             p2ps_vfio_line_fn line, void *ctx);
void p2ps_nv_boot0_text(const struct p2ps_nv_boot0 *b, const char *indent, p2ps_vfio_line_fn line,
                        void *ctx);

/* "Type1", "Type1v2", "no-IOMMU" or "none". */
const char *p2ps_vfio_iommu_type_name(uint32_t type);

#ifdef __cplusplus
}
#endif

#endif
