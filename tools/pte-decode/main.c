/* SPDX-License-Identifier: MIT */
/* pte-decode: encode and decode NVIDIA GMMU page-table entries, model P2P mappings, list the
 * formats, decode and verify page-table dumps. A thin front end: each command parses its
 * options with its table (value_cmds.c, dump_cmds.c) and hands the work to libgmmu and its
 * renderings (libgmmu-dump). */
#include "pte_decode.h"

#include <stdio.h>
#include <string.h>

#include "version.h"

#ifndef P2PS_VERSION
#error "P2PS_VERSION is set by tools/CMakeLists.txt"
#endif

static const char usage[] =
        "usage: pte-decode COMMAND [options]\n"
        "\n"
        "Encode and decode NVIDIA GPU MMU (GMMU) page-table entries, format v2 (Pascal..Ada)\n"
        "and v3 (Hopper, Blackwell), and show the PTE a peer-to-peer mapping gets.\n"
        "\n"
        "commands ('pte-decode COMMAND --help' lists each one's options):\n"
        "  encode   (--chip CHIP | --format FMT) [--entry TYPE] [--as-written] FIELD=VALUE ...\n"
        "           the entry with these fields, as 0x + 16 hex digits (32 for a dual PDE)\n"
        "  decode   (--chip CHIP | --format FMT) [--entry TYPE] [--json] VALUE ...\n"
        "           FIELD=VALUE lines for the fields of the entry's aperture; with\n"
        "           --raw/--text/--mem: decode dumps ('pte-decode decode --raw --help')\n"
        "  p2p      (--chip CHIP | --format FMT) --mode stock|nvlink|bar1 [options]\n"
        "           the PTE the stock driver writes for a PCIe or NVLink peer, or a BAR1-P2P\n"
        "           entry, and the level and page size it is a PTE for\n"
        "  formats  [--markdown | --json]\n"
        "           the formats and chips; --markdown renders docs/gmmu-formats.md\n"
        "  verify   compare a dump with intended mappings ('pte-decode verify --help')\n"
        "\n"
        "  -h, --help     this help\n"
        "  -V, --version  print the version and the build\n"
        "\n"
        "Exit status: 0 ok, 1 differences (verify), 2 bad input.\n";

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return PD_EXIT_BAD;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		char version[256];
		fputs(p2ps_version_text(version, sizeof(version), "pte-decode"), stdout);
		return 0;
	}
	if (!strcmp(cmd, "encode"))
		return pd_cmd_encode(argc - 1, argv + 1);
	if (!strcmp(cmd, "decode"))
		return pd_args_name_dump(argc - 2, argv + 2)
		               ? pd_cmd_dump(argc - 1, argv + 1)
		               : pd_cmd_decode_values(argc - 1, argv + 1);
	if (!strcmp(cmd, "verify"))
		return pd_cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "p2p"))
		return pd_cmd_p2p(argc - 1, argv + 1);
	if (!strcmp(cmd, "formats"))
		return pd_cmd_formats(argc - 1, argv + 1);
	return pd_fail(NULL, "unknown command '%s' (encode, decode, p2p, formats, verify; --help)",
	               cmd);
}
