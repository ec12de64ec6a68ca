/* SPDX-License-Identifier: MIT */
/* pci.ids names in one pass (src/host/backends/pciids.c) against libpci's own lookup
 * of the same file, the independent answer: on a crafted list covering every rule
 * (generic subsystem blocks, the subsystem lookup order, line ends, blanks, comments,
 * other blocks, long names) and on the system's pci.ids for thousands of real ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pci/pci.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p2ps_test.h"
#include "pciids.h"

#define SYSTEM_IDS "/usr/share/misc/pci.ids"

/* libpci's answers, as the backend asked before (pcilib.c): local list only. */
static void libpci_names(struct pci_access *acc, const struct p2ps_dev *d, char *v, char *dn,
                         char *s)
{
	const int fl = PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
	const char *n;
	n = pci_lookup_name(acc, v, P2PS_HOST_NAME_MAX, PCI_LOOKUP_VENDOR | fl, d->vendor_id);
	if (!n)
		v[0] = '\0';
	n = pci_lookup_name(acc, dn, P2PS_HOST_NAME_MAX, PCI_LOOKUP_DEVICE | fl, d->vendor_id,
	                    d->device_id);
	if (!n)
		dn[0] = '\0';
	s[0] = '\0';
	if (d->subsys_vendor_id &&
	    !pci_lookup_name(acc, s, P2PS_HOST_NAME_MAX,
	                     PCI_LOOKUP_SUBSYSTEM | PCI_LOOKUP_DEVICE | fl, d->vendor_id,
	                     d->device_id, d->subsys_vendor_id, d->subsys_id))
		s[0] = '\0';
}

/* Fills devs through p2ps_pciids_fill on path and compares every name with libpci. */
static int compare(const char *path, struct p2ps_dev *devs, size_t n)
{
	assert_int_equal(p2ps_pciids_fill(path, devs, n), P2PS_PCIIDS_DONE);
	struct pci_access *acc = pci_alloc();
	acc->id_lookup_mode = PCI_LOOKUP_NO_HWDB;
	pci_set_name_list_path(acc, (char *)path, 0);
	int named = 0;
	for (size_t i = 0; i < n; i++) {
		char v[P2PS_HOST_NAME_MAX], d[P2PS_HOST_NAME_MAX], s[P2PS_HOST_NAME_MAX];
		libpci_names(acc, &devs[i], v, d, s);
		if (strcmp(v, devs[i].vendor_name) || strcmp(d, devs[i].device_name) ||
		    strcmp(s, devs[i].subsys_name))
			fail_msg("%04x:%04x %04x:%04x: libpci '%s' / '%s' / '%s', ours '%s' / '%s' "
			         "/ "
			         "'%s'",
			         devs[i].vendor_id, devs[i].device_id, devs[i].subsys_vendor_id,
			         devs[i].subsys_id, v, d, s, devs[i].vendor_name,
			         devs[i].device_name, devs[i].subsys_name);
		named += v[0] != 0;
		named += d[0] != 0;
		named += s[0] != 0;
	}
	pci_cleanup(acc);
	return named;
}

static struct p2ps_dev dev(unsigned v, unsigned d, unsigned sv, unsigned sd)
{
	struct p2ps_dev x;
	memset(&x, 0, sizeof(x));
	x.vendor_id = (uint16_t)v;
	x.device_id = (uint16_t)d;
	x.subsys_vendor_id = (uint16_t)sv;
	x.subsys_id = (uint16_t)sd;
	return x;
}

static void test_crafted_list(void **state)
{
	(void)state;
	char longname[400];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	char path[] = "/tmp/p2ps-pciids-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f,
	        "# comment\n"
	        "\t# indented comment\n"
	        "\n"
	        "   \n"
	        "0000  Vendor zero\n"
	        "\t0001  Device zero-one\n"
	        "\t\t0000 0001  Subsystem under vendor zero\n"
	        "1af4  Red Hat, Inc. \n"                /* one trailing blank dropped */
	        "\t1041  Virtio network device\t\n"     /* a trailing tab too */
	        "\t\t1af4 1100  QEMU virtual machine\n" /* per-device subsystem */
	        "\t1042  Virtio block device\r\n"       /* CR ends the line */
	        "\t1043  Virtio console\rjunk after CR\n"
	        "10DE  Upper-case vendor\n"
	        "\t2330  GH100 [H100 SXM5 80GB]\n"
	        "\t\t10de 16c1  H100 SXM5 80GB\n"
	        "\t2331  GH100 [H100 PCIe]\n"
	        "\t2335  %s\n" /* longer than a model name holds */
	        "8086  Intel Corporation\n"
	        "\t1237  440FX - 82441FX PMC [Natoma]\n"
	        "C 06  Bridge\n"
	        "\t00  Host bridge\n"
	        "\t04  PCI bridge\n"
	        "\t\t00  Normal decode\n"
	        "X 11  A reserved block\n"
	        "\t1234  not a device\n"
	        "S 1af4\n"
	        "\t1100  Generic QEMU subsystem\n"
	        "\t0002  Generic two\n"
	        "S 8086\n"
	        "\t1237  Generic Intel subsystem\n"
	        "15b3  Mellanox Technologies\n"
	        "\t101b  MT28908 Family [ConnectX-6]", /* no final newline */
	        longname);
	fclose(f);
	struct p2ps_dev devs[] = {
	        dev(0x0000, 0x0001, 0x0000, 0x0001), /* zero vendor: no per-device lookup */
	        dev(0x1af4, 0x1041, 0x1af4, 0x1100), dev(0x1af4, 0x1042, 0x1af4, 0x1100),
	        dev(0x1af4, 0x1043, 0x1af4, 0x0002), dev(0x1af4, 0x1044, 0, 0),
	        dev(0x10de, 0x2330, 0x10de, 0x16c1), dev(0x10de, 0x2331, 0x10de, 0x2331),
	        dev(0x10de, 0x2335, 0x10de, 0x2335), dev(0x8086, 0x1237, 0x8086, 0x1237),
	        dev(0x8086, 0x1237, 0x1af4, 0x1100), dev(0x1234, 0x1111, 0x1af4, 0x1100),
	        dev(0x15b3, 0x101b, 0x15b3, 0x0001), dev(0x1111, 0x2222, 0x3333, 0x4444),
	};
	int named = compare(path, devs, sizeof(devs) / sizeof(devs[0]));
	unlink(path);
	assert_true(named >= 25);
	assert_string_equal(devs[1].subsys_name, "QEMU virtual machine");
	assert_string_equal(devs[3].subsys_name, "Generic two");
	assert_string_equal(devs[6].subsys_name, "GH100 [H100 PCIe]");
	assert_int_equal(strlen(devs[7].device_name), P2PS_HOST_NAME_MAX - 1);
	assert_string_equal(devs[7].device_name + P2PS_HOST_NAME_MAX - 4, "...");
}

/* Every 7th device and every 5th subsystem entry of the system's list, as devices. */
static size_t sample_system_ids(FILE *f, struct p2ps_dev *devs, size_t max)
{
	char line[1024];
	unsigned v = 0, d = 0, k = 0;
	size_t n = 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned a, b;
		if (line[0] == 'C' && line[1] == ' ')
			break; /* the class list follows the vendors */
		if (sscanf(line, "%4x  ", &a) == 1 && line[0] != '\t')
			v = a;
		else if (line[0] == '\t' && line[1] != '\t' && sscanf(line + 1, "%4x", &a) == 1) {
			d = a;
			if (k++ % 7 == 0)
				devs[n++] = dev(v, d, v, d);
		} else if (line[0] == '\t' && line[1] == '\t' &&
		           sscanf(line + 2, "%4x %4x", &a, &b) == 2 && k++ % 5 == 0)
			devs[n++] = dev(v, d, a, b);
	}
	return n;
}

static void test_system_list(void **state)
{
	(void)state;
	p2ps_test_need_file(SYSTEM_IDS);
	FILE *f = fopen(SYSTEM_IDS, "r");
	assert_non_null(f);
	size_t max = 20000;
	struct p2ps_dev *devs = calloc(max, sizeof(*devs));
	assert_non_null(devs);
	size_t n = sample_system_ids(f, devs, max);
	fclose(f);
	assert_true(n > 1000);
	int named = compare(SYSTEM_IDS, devs, n);
	assert_true(named > (int)n * 2);
	free(devs);
}

/* libpci with zlib reads NAME.gz when it exists: then its lookup is used, not ours. */
static void test_compressed_list(void **state)
{
	(void)state;
	char dir[] = "/tmp/p2ps-pciids-dir-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char gz[256], plain[256];
	snprintf(gz, sizeof(gz), "%s/pci.ids.gz", dir);
	snprintf(plain, sizeof(plain), "%s/pci.ids", dir);
	struct p2ps_dev d = dev(0x1af4, 0x1041, 0, 0);
	assert_int_equal(p2ps_pciids_fill(gz, &d, 1), P2PS_PCIIDS_NO_FILE);
	FILE *f = fopen(plain, "w");
	fputs("1af4  Red Hat, Inc.\n", f);
	fclose(f);
	assert_int_equal(p2ps_pciids_fill(gz, &d, 1), P2PS_PCIIDS_DONE);
	assert_string_equal(d.vendor_name, "Red Hat, Inc.");
	f = fopen(gz, "w");
	fputs("\x1f\x8b", f);
	fclose(f);
	assert_int_equal(p2ps_pciids_fill(gz, &d, 1), P2PS_PCIIDS_USE_LIBPCI);
	unlink(gz);
	f = fopen(plain, "w");
	fputs("\x1f\x8b compressed under the plain name", f);
	fclose(f);
	assert_int_equal(p2ps_pciids_fill(plain, &d, 1), P2PS_PCIIDS_USE_LIBPCI);
	unlink(plain);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_crafted_list),
	        cmocka_unit_test(test_system_list),
	        cmocka_unit_test(test_compressed_list),
	};
	return p2ps_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
