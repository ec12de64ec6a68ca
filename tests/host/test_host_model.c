/* SPDX-License-Identifier: MIT */
/* Host model tests on real data: the converted 2 x H200 snapshot (checked against
 * what nvidia-smi -q and sysfs said on that machine), pciutils' lspci dumps, crafted
 * config spaces for the chain walks, and malformed inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_decode.h"
#include "hostfacts.h"
#include "nvfacts.h"
#include "p2ps_test.h"
#include "p2pscope/bytes.h"
#include "p2pscope/host.h"
#include "p2pscope/host_load.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_chips.h"

static int load(struct p2ps_host *h, enum p2ps_host_backend_kind kind, const char *path,
                struct p2ps_error *err)
{
	struct p2ps_host_source src = {
	        .kind = kind, .path = path, .flags = P2PS_HOST_F_NO_NVML | P2PS_HOST_F_NO_NAMES};
	return p2ps_host_load(h, &src, err);
}

static struct p2ps_dev *find(struct p2ps_host *h, const char *bdf)
{
	struct p2ps_bdf b;
	assert_int_equal(p2ps_bdf_parse(bdf, &b), 0);
	return p2ps_host_find(h, &b);
}

/* ---- the 2 x H200 snapshot ------------------------------------------------------ */

/* One H200 of the snapshot (device 0x2335, GH100), NVLinked to the GPU at peer_bdf. */
static void check_h200_gpu(struct p2ps_host *h, const char *bdf, const char *peer_bdf)
{
	struct p2ps_dev *g = find(h, bdf);
	assert_non_null(g);
	assert_true(p2ps_dev_is_nvidia_gpu(g));
	assert_int_equal(g->device_id, 0x2335);
	assert_non_null(g->chip);
	assert_string_equal(p2ps_nvidia_chip_name(g->chip), "GH100");
	/* libgmmu maps GH100 to the Hopper v3 layout (kern_gmmu HAL). */
	assert_non_null(p2ps_nvidia_chip_gmmu(p2ps_nvidia_chip_name(g->chip)));
	assert_string_equal(p2ps_nvidia_chip_gmmu(p2ps_nvidia_chip_name(g->chip))->name, "v3-gh");
	assert_string_equal(g->driver, "nvidia");
	assert_null(g->parent);
	assert_string_equal(g->root_bus, "pci0000:00");
	assert_int_equal(g->config_len, 4096);
	/* The id-0 extended capability entries are walked past to the end. */
	assert_string_equal(g->ext_cap_walk, "ok");
	assert_false(g->acs.present);
	assert_false(g->rebar.present);
	assert_null(p2ps_dev_unknown(g, P2PS_FACT_ACS));

	/* BAR0 16 MiB, BAR2 (the FB aperture, "BAR1" to NVIDIA) 256 GiB, BAR4 32 MiB:
	 * 64-bit prefetchable, from the sysfs resource file. */
	const uint64_t sizes[6] = {16u << 20, 0, 256ull << 30, 0, 32u << 20, 0};
	for (int b = 0; b < 6; b += 2) {
		assert_true(g->bars[b].present);
		assert_true(g->bars[b].is_64bit);
		assert_true(g->bars[b].prefetchable);
		assert_true(g->bars[b].size_known);
		assert_int_equal(g->bars[b].size, sizes[b]);
		assert_false(g->bars[b + 1].present);
	}
	/* nvidia-smi -q on that host: BAR1 Total 262144 MiB — the same aperture. */
	assert_true(g->gpu.bar1_known);
	assert_int_equal(g->gpu.bar1_total_bytes, g->bars[2].size);
	assert_int_equal(g->gpu.bar1_total_bytes, 262144ull << 20);
	assert_true(g->gpu.vram_known);
	assert_int_equal(g->gpu.vram_bytes, 143771ull << 20);

	/* nvidia-smi: PCIe generation max/current 5, width 16x; sysfs agrees. */
	assert_true(g->pcie.present);
	assert_int_equal(g->pcie.port_type, P2PS_PCIE_ENDPOINT);
	assert_int_equal(g->pcie.cap_source, P2PS_LINK_CONFIG);
	assert_int_equal(g->pcie.cap.speed, 5);
	assert_int_equal(g->pcie.cap.width, 16);
	assert_int_equal(g->pcie.sta.speed, 5);
	assert_int_equal(g->pcie.sta.width, 16);
	assert_memory_equal(&g->pcie.sysfs_cur, &g->pcie.sta, sizeof(g->pcie.sta));
	assert_true(p2ps_link_speed_gts(g->pcie.sta.speed) == 32.0);

	/* nvidia-smi topo -m: NV18 between the two GPUs. */
	assert_true(g->gpu.nvlink_known);
	assert_int_equal(g->gpu.n_nvlink_peers, 1);
	assert_int_equal(g->gpu.nvlink_peers[0].links, 18);
	struct p2ps_dev *peer = p2ps_host_find(h, &g->gpu.nvlink_peers[0].bdf);
	assert_non_null(peer);
	assert_string_equal(peer->bdf_str, peer_bdf);
}

static void test_h200_snapshot(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct p2ps_error err = {0};
	char root[4096];
	snprintf(root, sizeof(root), "%s", p2ps_test_src_path("tests/fixtures/h200x2-raw-snap"));
	assert_int_equal(load(&h, P2PS_HOST_SNAPSHOT, root, &err), 0);
	assert_int_equal(h.n_devs, 8);
	assert_string_equal(h.backend_name, "snapshot");

	/* README of the raw capture: no IOMMU in the guest, both GPUs on root bus 00. */
	assert_true(h.iommu.known);
	assert_false(h.iommu.present);
	assert_true(h.cmdline.known);
	assert_string_equal(h.cmdline.pci, "realloc=off");
	assert_string_equal(h.cmdline.iommu, "");
	assert_true(h.is_root);

	const char *gpus[] = {"0000:00:06.0", "0000:00:07.0"};
	for (int i = 0; i < 2; i++)
		check_h200_gpu(&h, gpus[i], gpus[1 - i]);
	/* virtio devices: 256-byte config space, no PCIe link. */
	struct p2ps_dev *v = find(&h, "0000:00:01.0");
	assert_non_null(v);
	assert_int_equal(v->config_len, 256);
	assert_string_equal(v->driver, "virtio-pci");
	assert_false(v->pcie.present);
	p2ps_host_free(&h);
	assert_int_equal(h.n_devs, 0);
}

/* ---- lspci dumps ---------------------------------------------------------------- */

static void test_dump_rebar(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct p2ps_error err = {0};
	const char *path = p2ps_test_shared_path("fixtures/pciutils-tests/cap-rebar.txt");
	assert_int_equal(load(&h, P2PS_HOST_LSPCI_DUMP, path, &err), 0);
	struct p2ps_dev *d = find(&h, "0000:09:00.0");
	assert_non_null(d);
	/* lspci: "BAR 0: current size: 256MB, supported: 256MB 512MB 1GB 2GB 4GB" */
	assert_true(d->rebar.present);
	assert_int_equal(d->rebar.offset, 0x200);
	assert_int_equal(d->rebar.count, 1);
	assert_int_equal(d->rebar.e[0].bar, 0);
	assert_int_equal(d->rebar.e[0].current, 8);
	assert_int_equal(d->rebar.e[0].sizes, 0x1f00);
	/* A dump has no sizes; ReBAR's current size is the size BAR 0 decodes. */
	assert_true(d->bars[0].size_known);
	assert_int_equal(d->bars[0].size, 256u << 20);
	assert_false(d->bars[2].size_known);
	assert_non_null(p2ps_dev_unknown(d, P2PS_FACT_BAR_SIZES));
	assert_non_null(p2ps_dev_unknown(d, P2PS_FACT_DRIVER));
	p2ps_host_free(&h);
}

static void test_dump_acs_and_tree(void **state)
{
	(void)state;
	struct p2ps_host h;
	struct p2ps_error err = {0};
	const char *path = p2ps_test_shared_path("fixtures/pciutils-tests/cap-exp-lnkcap2.txt");
	assert_int_equal(load(&h, P2PS_HOST_LSPCI_DUMP, path, &err), 0);
	/* Sunrise Point root port: ACSCap SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+,
	 * ACSCtl all off. */
	struct p2ps_dev *rp = find(&h, "0000:00:1c.0");
	assert_non_null(rp);
	assert_true(rp->acs.present);
	assert_int_equal(rp->acs.cap & 0x7f, P2PS_ACS_SV | P2PS_ACS_TB | P2PS_ACS_RR | P2PS_ACS_CR);
	assert_int_equal(rp->acs.ctl, 0);
	assert_int_equal(rp->pcie.port_type, P2PS_PCIE_ROOT_PORT);
	/* The MX150 sits behind that root port (bus 02 = its secondary bus). */
	struct p2ps_dev *gpu = find(&h, "0000:02:00.0");
	assert_non_null(gpu);
	assert_ptr_equal(gpu->parent, rp);
	assert_string_equal(p2ps_nvidia_chip_name(gpu->chip), "GP108");
	assert_string_equal(gpu->root_bus, "pci0000:00");
	p2ps_host_free(&h);

	/* X58 with an NF200 switch: 00:03.0 root port -> 02:00.0 upstream -> 03:00.0 /
	 * 03:02.0 downstream ports. */
	path = p2ps_test_shared_path("fixtures/pciutils-tests/tree-asus-p6t6.txt");
	assert_int_equal(load(&h, P2PS_HOST_LSPCI_DUMP, path, &err), 0);
	struct p2ps_dev *up = find(&h, "0000:02:00.0");
	assert_non_null(up);
	assert_ptr_equal(up->parent, find(&h, "0000:00:03.0"));
	assert_int_equal(up->pcie.port_type, P2PS_PCIE_SWITCH_UPSTREAM);
	assert_ptr_equal(find(&h, "0000:03:00.0")->parent, up);
	assert_ptr_equal(find(&h, "0000:03:02.0")->parent, up);
	assert_int_equal(find(&h, "0000:03:02.0")->pcie.port_type, P2PS_PCIE_SWITCH_DOWNSTREAM);
	assert_string_equal(find(&h, "0000:04:00.0")->root_bus, "pci0000:00");
	assert_string_equal(find(&h, "0000:ff:00.0")->root_bus, "pci0000:ff");
	p2ps_host_free(&h);
}

/* ---- chain walks over crafted config spaces ------------------------------------- */

static void put_ecap(uint8_t *cfg, unsigned off, unsigned id, unsigned next)
{
	p2ps_put_le32(cfg + off, (uint32_t)id | 1u << 16 | (uint32_t)next << 20);
}

static void test_ext_walk(void **state)
{
	(void)state;
	static uint8_t cfg[4096];
	enum p2ps_walk_end end;
	memset(cfg, 0, sizeof(cfg));
	/* 0x100: id 0 (hidden) -> 0x180: id 0 -> 0x200: ReBAR -> 0x300: ACS -> end */
	put_ecap(cfg, 0x100, 0, 0x180);
	put_ecap(cfg, 0x180, 0, 0x200);
	put_ecap(cfg, 0x200, 0x15, 0x300);
	put_ecap(cfg, 0x300, 0x0d, 0);
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, sizeof(cfg), 0x0d, &end), 0x300);
	assert_int_equal(end, P2PS_WALK_OK);
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, sizeof(cfg), 0x15, &end), 0x200);
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, sizeof(cfg), 0x0b, &end), 0);
	assert_int_equal(end, P2PS_WALK_OK);
	/* id 0 is never "found": it is a placeholder, not a capability. */
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, sizeof(cfg), 0, &end), 0);
	/* Only 256 bytes readable: denied, not absent. */
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, 256, 0x0d, &end), 0);
	assert_int_equal(end, P2PS_WALK_DENIED);
	/* A loop back to 0x180. */
	put_ecap(cfg, 0x300, 0x0b, 0x180);
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, sizeof(cfg), 0x0d, &end), 0);
	assert_int_equal(end, P2PS_WALK_LOOPED);
	/* A pointer below 0x100 is broken; so is an all-ones header. */
	put_ecap(cfg, 0x300, 0x0b, 0x40);
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, sizeof(cfg), 0x0d, &end), 0);
	assert_int_equal(end, P2PS_WALK_BROKEN);
	p2ps_put_le32(cfg + 0x300, 0xffffffffu);
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, sizeof(cfg), 0x0d, &end), 0);
	assert_int_equal(end, P2PS_WALK_BROKEN);
	/* Empty list. */
	memset(cfg, 0, sizeof(cfg));
	assert_int_equal(p2ps_cfg_find_ext_cap(cfg, sizeof(cfg), 0x0d, &end), 0);
	assert_int_equal(end, P2PS_WALK_NONE);
}

static void test_std_walk(void **state)
{
	(void)state;
	uint8_t cfg[256];
	enum p2ps_walk_end end;
	memset(cfg, 0, sizeof(cfg));
	cfg[0x06] = 0x10; /* status: capability list */
	cfg[0x34] = 0x40;
	cfg[0x40] = 0x01, cfg[0x41] = 0x60; /* PM -> */
	cfg[0x60] = 0x10, cfg[0x61] = 0x00; /* PCIe, end */
	assert_int_equal(p2ps_cfg_find_cap(cfg, sizeof(cfg), 0x10, &end), 0x60);
	assert_int_equal(p2ps_cfg_find_cap(cfg, 64, 0x10, &end), 0);
	assert_int_equal(end, P2PS_WALK_DENIED);
	cfg[0x61] = 0x40; /* loop */
	assert_int_equal(p2ps_cfg_find_cap(cfg, sizeof(cfg), 0x05, &end), 0);
	assert_int_equal(end, P2PS_WALK_LOOPED);
	cfg[0x61] = 0x20; /* into the header */
	assert_int_equal(p2ps_cfg_find_cap(cfg, sizeof(cfg), 0x05, &end), 0);
	assert_int_equal(end, P2PS_WALK_BROKEN);
}

/* ReBAR entries with extended sizes (control bits 31:16) and a bad BAR count. */
static void test_rebar_decode(void **state)
{
	(void)state;
	struct p2ps_dev *d = calloc(1, sizeof(*d));
	assert_non_null(d);
	d->config_len = 4096;
	/* entry 0: BAR 1, 2 resizable BARs, current 2^15 MiB = 32 GiB, sizes 64MB..128TB and
	 * one extended size (bit 16 of control => 2^28 MiB) */
	p2ps_put_le32(d->config + 0x204, (0x0fffffffu & ~0x3fu) << 4); /* 2^6..2^27 MiB */
	p2ps_put_le32(d->config + 0x208, 1u | 2u << 5 | 15u << 8 | 1u << 16);
	p2ps_put_le32(d->config + 0x20c, 0x10); /* 1 MiB only */
	p2ps_put_le32(d->config + 0x210, 3u | 0u << 8);
	d->bars[1].present = true;
	p2ps_ecap_rebar(d, 0x200);
	assert_int_equal(d->rebar.count, 2);
	assert_int_equal(d->rebar.e[0].bar, 1);
	assert_int_equal(d->rebar.e[0].current, 15);
	assert_true(d->rebar.e[0].sizes & (1ull << 28));
	assert_int_equal(d->rebar.e[1].bar, 3);
	assert_int_equal(d->rebar.e[1].sizes, 1);
	assert_int_equal(d->bars[1].size, 32ull << 30);
	memset(d, 0, sizeof(*d));
	d->config_len = 4096;
	p2ps_put_le32(d->config + 0x208, 7u << 5); /* 7 BARs: out of specification */
	p2ps_ecap_rebar(d, 0x200);
	assert_true(d->rebar.present);
	assert_int_equal(d->rebar.count, 0);
	assert_non_null(p2ps_dev_unknown(d, P2PS_FACT_REBAR));
	free(d);
}

/* ---- malformed inputs ----------------------------------------------------------- */

static char tmpdir[64];

static const char *tmpfile_with(const char *name, const char *text)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void expect_fail(enum p2ps_host_backend_kind kind, const char *path, int code,
                        const char *needle)
{
	struct p2ps_host h;
	struct p2ps_error err = {0};
	int rc = load(&h, kind, path, &err);
	if (rc != code || !strstr(err.msg, needle))
		fail_msg("%s: rc %d (want %d), message '%s' (want '%s')", path, rc, code, err.msg,
		         needle);
	assert_null(strchr(err.msg, '\n'));
	assert_int_equal(h.n_devs, 0);
}

static void test_malformed(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/p2ps-host-test-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	expect_fail(P2PS_HOST_LSPCI_DUMP, "/nonexistent/dump.txt", P2PS_ENOENT, "No such file");
	expect_fail(P2PS_HOST_LSPCI_DUMP, tmpdir, P2PS_EINVAL, "not a regular file");
	expect_fail(P2PS_HOST_LSPCI_DUMP, tmpfile_with("empty", ""), P2PS_EINVAL, "no devices");
	expect_fail(P2PS_HOST_LSPCI_DUMP, tmpfile_with("prose", "hello\nworld\n"), P2PS_EINVAL,
	            "no devices");
	/* A hex row that libpci's dump parser rejects (libpci would exit; we return). */
	expect_fail(P2PS_HOST_LSPCI_DUMP,
	            tmpfile_with("badhex", "00:00.0 Host bridge\n00: 86 80 zz\n"), P2PS_EINVAL,
	            "lspci dump");
	expect_fail(P2PS_HOST_LSPCI_DUMP,
	            tmpfile_with("short", "00:00.0 Host bridge\n00: 86 80 57 0d 00 00 00 00 00 "
	                                  "00 00 06 00 00 00 00\n"),
	            P2PS_EINVAL, "config bytes");
	expect_fail(P2PS_HOST_SNAPSHOT, "/nonexistent/snap", P2PS_ENOENT, "snapshot");
	expect_fail(P2PS_HOST_SNAPSHOT, tmpfile_with("file", "x"), P2PS_EINVAL, "not a directory");
	expect_fail(P2PS_HOST_SNAPSHOT, tmpdir, P2PS_ENOENT, "no sys/bus/pci/devices");
	expect_fail(P2PS_HOST_SNAPSHOT, "", P2PS_EINVAL, "no root directory");

	/* A snapshot whose device directory lacks config and resource files still loads:
	 * what is missing becomes unknown. */
	char cmd[8192];
	snprintf(cmd, sizeof(cmd),
	         "mkdir -p %s/s/sys/devices/pci0000:00/0000:00:01.0 %s/s/sys/bus/pci/devices && "
	         "ln -s ../../../devices/pci0000:00/0000:00:01.0 "
	         "%s/s/sys/bus/pci/devices/0000:00:01.0 && "
	         "echo 0x10de > %s/s/sys/devices/pci0000:00/0000:00:01.0/vendor",
	         tmpdir, tmpdir, tmpdir, tmpdir);
	assert_int_equal(system(cmd), 0);
	char root[128];
	snprintf(root, sizeof(root), "%s/s", tmpdir);
	struct p2ps_host h;
	struct p2ps_error err = {0};
	int rc = load(&h, P2PS_HOST_SNAPSHOT, root, &err);
	if (rc == 0) {
		assert_int_equal(h.n_devs, 1);
		assert_int_equal(h.devs[0].config_len, 0);
		assert_non_null(p2ps_dev_unknown(&h.devs[0], P2PS_FACT_CONFIG));
		p2ps_host_free(&h);
	} else {
		/* libpci may refuse a device without its mandatory attributes: then it is
		 * one clear error, not a crash. */
		assert_non_null(strstr(err.msg, root));
	}
	/* A snapshot whose resource file is garbage: libpci's parser objects (it would
	 * exit); the model returns one line naming the file, as bad input. */
	snprintf(cmd, sizeof(cmd),
	         "cp -a %s %s/bad && chmod -R u+w %s/bad && "
	         "echo garbage > %s/bad/sys/devices/pci0000:00/0000:00:06.0/resource",
	         p2ps_test_src_path("tests/fixtures/h200x2-raw-snap"), tmpdir, tmpdir, tmpdir);
	assert_int_equal(system(cmd), 0);
	snprintf(root, sizeof(root), "%s/bad", tmpdir);
	expect_fail(P2PS_HOST_SNAPSHOT, root, P2PS_EINVAL, "0000:00:06.0/resource");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	assert_int_equal(system(cmd), 0);
}

/* ---- small parsers -------------------------------------------------------------- */

static void test_cmdline_and_versions(void **state)
{
	(void)state;
	struct p2ps_host_cmdline c = {0};
	char raw[] = "BOOT_IMAGE=/vmlinuz iommu=on intel_iommu=on iommu=pt amd_iommu=off "
	             "pcie_acs_override=downstream,multifunction pci=noaer -- iommu=off";
	c.raw = raw;
	p2ps_cmdline_parse(&c);
	assert_string_equal(c.iommu, "pt"); /* the last one before "--" wins */
	assert_string_equal(c.intel_iommu, "on");
	assert_string_equal(c.amd_iommu, "off");
	assert_string_equal(c.pcie_acs_override, "downstream,multifunction");
	assert_string_equal(c.pci, "noaer");
	char v[64];
	p2ps_nvidia_version_number("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
	                           "580.159.04  Release Build  (dvs-builder@U22)  Tue Aug",
	                           v, sizeof(v));
	assert_string_equal(v, "580.159.04");
	p2ps_nvidia_version_number("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  "
	                           "Thu Feb 22 01:44:30 UTC 2024",
	                           v, sizeof(v));
	assert_string_equal(v, "550.54.14");
	p2ps_nvidia_version_number("no version here 12", v, sizeof(v));
	assert_string_equal(v, "");

	struct p2ps_link l = {3, 16};
	/* Gen3 x16: 8 GT/s * 128/130 * 16 / 8 = 15.75 GB/s per direction */
	assert_true(p2ps_link_gbps(&l) > 15.75 && p2ps_link_gbps(&l) < 15.76);
	l.speed = 1;
	assert_true(p2ps_link_gbps(&l) == 4.0); /* 2.5 GT/s * 0.8 * 16 / 8 */
	l.width = 0;
	assert_true(p2ps_link_gbps(&l) == 0.0);

	struct p2ps_bdf b;
	assert_int_equal(p2ps_bdf_parse("0000:41:00.0", &b), 0);
	assert_int_equal(b.bus, 0x41);
	assert_int_equal(p2ps_bdf_parse("41:1f.7", &b), 0);
	assert_int_equal(b.dev, 0x1f);
	assert_int_equal(p2ps_bdf_parse("41:20.0", &b), P2PS_EINVAL);
	assert_int_equal(p2ps_bdf_parse("0000:41:00.0x", &b), P2PS_EINVAL);
	assert_int_equal(p2ps_bdf_parse("", &b), P2PS_EINVAL);

	/* Equality covers all four fields; a 32-bit VMD domain is not truncated. */
	struct p2ps_bdf x = {0x10000, 0x41, 0, 1}, y = x;
	assert_true(p2ps_bdf_equal(&x, &y));
	y.domain = 0;
	assert_false(p2ps_bdf_equal(&x, &y));
	y = x;
	y.fn = 0;
	assert_false(p2ps_bdf_equal(&x, &y));
}

/* ---- chip table against the system's pci.ids ------------------------------------ */

/* Whether two device-id blocks share an id. */
static bool ranges_overlap(const struct p2ps_nv_id_range *x, const struct p2ps_nv_id_range *y)
{
	return x->last && y->last && x->first <= y->last && y->first <= x->last;
}

/* pci.ids names NVIDIA GPUs "AD102 [GeForce RTX 4090]": for every entry whose name
 * starts with a chip code the table t (n rows) covers, the table must agree. Returns how
 * many entries were checked. */
static int check_pci_ids(const struct p2ps_nvidia_chip *t, size_t n)
{
	FILE *f = fopen("/usr/share/misc/pci.ids", "r");
	assert_non_null(f);
	char line[512];
	bool in_nvidia = false;
	int checked = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "10de  ", 6)) {
			in_nvidia = true;
			continue;
		}
		if (in_nvidia && line[0] != '\t' && line[0] != '#' && line[0] != '\n')
			break;
		unsigned id;
		char name[16];
		if (!in_nvidia || line[1] == '\t' ||
		    sscanf(line, "\t%4x  %15[A-Z0-9]", &id, name) != 2)
			continue;
		/* Audio, USB and NVSwitch functions share the chip prefix but are no GPUs. */
		if (strstr(line, "Audio") || strstr(line, "USB") || strstr(line, "UCSI") ||
		    strstr(line, "Serial") || strstr(line, "NVSwitch"))
			continue;
		const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_lookup((uint16_t)id);
		for (size_t i = 0; i < n; i++) {
			/* Rows without device-id blocks cover no pci.ids entry. */
			if (!t[i].ids[0].last || strncmp(name, t[i].gmmu.name, 5) ||
			    strlen(name) < 5)
				continue;
			if (!c || strcmp(p2ps_nvidia_chip_name(c), t[i].gmmu.name))
				fail_msg("pci.ids %04x %s: table says %s", id, name,
				         c ? p2ps_nvidia_chip_name(c) : "nothing");
			checked++;
			break;
		}
	}
	fclose(f);
	return checked;
}

static void test_chip_table(void **state)
{
	(void)state;
	size_t n;
	const struct p2ps_nvidia_chip *t = p2ps_nvidia_chip_table(&n);
	assert_true(n > 20);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < P2PS_NV_MAX_ID_RANGES; k++) {
			const struct p2ps_nv_id_range *r = &t[i].ids[k];
			assert_true(r->first <= r->last);
			/* Blocks do not overlap, within a row or across rows. */
			for (size_t j = i; j < n; j++)
				for (size_t l = j == i ? k + 1 : 0; l < P2PS_NV_MAX_ID_RANGES; l++)
					if (ranges_overlap(r, &t[j].ids[l]))
						fail_msg("%s and %s share device ids",
						         t[i].gmmu.name, t[j].gmmu.name);
		}
		/* libgmmu's chip map (from NVIDIA's kern_gmmu HAL) is the table's rows with a
		 * format; it agrees on the family, and the host side takes the format from it. */
		const struct gmmu_chip *gc = gmmu_chip_find(t[i].gmmu.name);
		if (!t[i].gmmu.format) {
			assert_null(gc);
			continue;
		}
		if (!gc)
			fail_msg("%s: not in libgmmu's chip map", t[i].gmmu.name);
		assert_string_equal(gc->family, p2ps_nv_generation_name(t[i].generation));
		assert_ptr_equal(p2ps_nvidia_chip_gmmu(t[i].gmmu.name), gc->format);
	}
	/* One chip per layout, by device id as bar-inspect resolves it. The expected names
	 * are the HAL's per-family format choice (libgmmu's chip map, checked against
	 * NVIDIA's g_kern_gmmu_nvoc.c by gmmu_golden_compare). */
	static const struct {
		uint16_t device_id;
		const char *chip, *format;
	} by_id[] = {
	        {0x1d01, "GP108", "v2-gp"}, {0x1e04, "TU102", "v2-tu"}, {0x2684, "AD102", "v2-ga"},
	        {0x2335, "GH100", "v3-gh"}, {0x2b85, "GB202", "v3-gb"},
	};
	for (size_t i = 0; i < sizeof(by_id) / sizeof(by_id[0]); i++) {
		const struct p2ps_nvidia_chip *c = p2ps_nvidia_chip_lookup(by_id[i].device_id);
		assert_non_null(c);
		assert_string_equal(p2ps_nvidia_chip_name(c), by_id[i].chip);
		assert_non_null(p2ps_nvidia_chip_gmmu(p2ps_nvidia_chip_name(c)));
		assert_string_equal(p2ps_nvidia_chip_gmmu(p2ps_nvidia_chip_name(c))->name,
		                    by_id[i].format);
	}
	/* No format without a chip libgmmu knows: Maxwell (v1, not modeled), none at all. */
	assert_null(p2ps_nvidia_chip_gmmu("GM107"));
	assert_null(p2ps_nvidia_chip_gmmu("NOSUCH"));
	assert_null(p2ps_nvidia_chip_gmmu(NULL));
	/* Every pci.ids entry named after a chip the table covers agrees with it. */
	p2ps_test_need_file("/usr/share/misc/pci.ids");
	assert_true(check_pci_ids(t, n) > 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_h200_snapshot),
	        cmocka_unit_test(test_dump_rebar),
	        cmocka_unit_test(test_dump_acs_and_tree),
	        cmocka_unit_test(test_ext_walk),
	        cmocka_unit_test(test_std_walk),
	        cmocka_unit_test(test_rebar_decode),
	        cmocka_unit_test(test_malformed),
	        cmocka_unit_test(test_cmdline_and_versions),
	        cmocka_unit_test(test_chip_table),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
