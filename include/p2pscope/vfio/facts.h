/* SPDX-License-Identifier: MIT */
/* p2pscope: what VFIO tells about devices bound to vfio-pci, as facts of the host model.
 *
 * These are plain data: the VFIO backend (src/host/backends/vfio.c, with the session,
 * capability parsers, MMIO and peer-mapping code of src/host/vfio) fills them, the model
 * keeps them in host->vfio, and the renderers print them. Nothing here opens a device.
 *
 * ioctl buffers are in the host's byte order (unlike config space, which is
 * little-endian); the parsers load them with memcpy, never by casting.
 */
#ifndef P2PSCOPE_VFIO_FACTS_H
#define P2PSCOPE_VFIO_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2pscope/error.h"
#include "p2pscope/nvidia_chips.h"
#include "p2pscope/pci_addr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define P2PS_VFIO_MAX_CAPS    32 /* capability entries walked per INFO buffer */
#define P2PS_VFIO_MAX_AREAS   16 /* sparse-mmap areas kept per region */
#define P2PS_VFIO_MAX_REGIONS 16 /* vfio-pci: 9 fixed + device-specific */
#define P2PS_VFIO_MAX_IRQS    8  /* vfio-pci: INTx, MSI, MSI-X, ERR, REQ */
#define P2PS_VFIO_MAX_RANGES  16 /* IOVA ranges kept from VFIO_IOMMU_GET_INFO */
#define P2PS_VFIO_CONFIG_MAX  4096
#define P2PS_VFIO_MAX_DEVS    16 /* devices one load opens */

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

/* "Type1", "Type1v2", "no-IOMMU", "none" (0) or "other". */
const char *p2ps_vfio_iommu_type_name(uint32_t type);

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

/* How a device is opened. */
enum p2ps_vfio_flow {
	P2PS_VFIO_FLOW_AUTO = 0, /* legacy when /dev/vfio/<group> exists, else cdev */
	P2PS_VFIO_FLOW_LEGACY,   /* /dev/vfio/vfio container + /dev/vfio/<group> */
	P2PS_VFIO_FLOW_CDEV,     /* /dev/vfio/devices/vfioN + /dev/iommu (Linux >= 6.6) */
};

/* "auto", "legacy", "cdev". */
const char *p2ps_vfio_flow_name(enum p2ps_vfio_flow flow);

/* ---- everything about one device ------------------------------------------- */

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
	struct p2ps_bdf addr;
	char bdf[16]; /* addr formatted */
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

/* ---- a peer's BAR through the IOMMU ---------------------------------------- */

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

/* ---- one register, read-only ------------------------------------------------ */

struct p2ps_vfio_reg_read {
	struct p2ps_bdf addr;
	char bdf[16];
	bool ok;
	uint32_t value;
	char how[32]; /* "vfio-mmap", "vfio-pread", "sysfs-mmap" */
	char error[P2PS_ERROR_MSG_MAX];
	bool nvidia_boot0; /* the register is NVIDIA's NV_PMC_BOOT_0, decoded below */
	struct p2ps_nv_boot0 boot0;
};

/* ---- what one load found ---------------------------------------------------- */

/* The register read and the peer mapping a load is asked for (bar-inspect's --read-reg
 * and --map-peer); the facts keep the question beside the answers. */
struct p2ps_vfio_asked {
	bool read_reg; /* read the 32-bit register at reg_off of BAR reg_bar, read-only */
	unsigned reg_bar;
	uint64_t reg_off;
	bool map_peer; /* map B's BAR into A's IOMMU context */
	struct p2ps_bdf peer_a, peer_b;
	int peer_bar; /* -1: B's largest mmappable BAR */
};

/* The VFIO facts of a host model (host->vfio): one allocation, no pointers to free. */
struct p2ps_vfio_facts {
	/* The devices opened through VFIO (none when only registers were read via sysfs). */
	bool opened;
	bool container;  /* a legacy container was opened */
	int api_version; /* VFIO_GET_API_VERSION */
	bool ext_type1, ext_type1v2, ext_noiommu;
	uint32_t iommu_type; /* VFIO_SET_IOMMU model of the container, 0 if none */
	bool iommu_known;    /* VFIO_IOMMU_GET_INFO answered (legacy, not no-IOMMU) */
	char iommu_why[160]; /* why not, when !iommu_known */
	struct p2ps_vfio_iommu_info iommu;
	unsigned n_devs;
	struct p2ps_vfio_dev_report devs[P2PS_VFIO_MAX_DEVS];

	struct p2ps_vfio_asked asked;

	/* The peer-mapping attempt (asked.map_peer): its outcome, or why it was not made. */
	struct p2ps_vfio_peer_map peer;
	char peer_error[P2PS_ERROR_MSG_MAX]; /* "" when the attempt was made */

	/* Register reads (asked.read_reg), one per selected device. */
	size_t n_regs;
	struct p2ps_vfio_reg_read regs[]; /* n_regs entries */
};

/* "intx", "msi", "msix", "err", "req" or "other". */
const char *p2ps_vfio_irq_name(uint32_t index);

/* The IOMMU context a device was opened into: "iommufd" for the cdev flow, else the
 * container's model (p2ps_vfio_iommu_type_name). */
const char *p2ps_vfio_report_iommu_name(const struct p2ps_vfio_dev_report *r);

/* The same for a peer mapping, by the call it used. */
const char *p2ps_vfio_peer_iommu_name(const struct p2ps_vfio_peer_map *m);

/* The report of the device at bdf, or NULL. */
const struct p2ps_vfio_dev_report *p2ps_vfio_facts_report(const struct p2ps_vfio_facts *f,
                                                          const struct p2ps_bdf *bdf);

#ifdef __cplusplus
}
#endif

#endif
