/* pte-decode: encode and decode NVIDIA GMMU page-table entries, model P2P mappings, list the
 * formats; the dump-level commands (decode of --raw/--text/--mem files, verify) live in
 * dump_cmds.c. */
#include "cmds.h"
#include "value_cmds.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
        "usage: pte-decode COMMAND [options]\n"
        "\n"
        "Encode and decode NVIDIA GPU MMU (GMMU) page-table entries, format v2 (Pascal..Ada)\n"
        "and v3 (Hopper, Blackwell), and show the PTE a peer-to-peer mapping gets.\n"
        "\n"
        "commands:\n"
        "  encode  (--chip CHIP | --format FMT) [--entry pte|pde|dual-pde] [--as-written]\n"
        "          FIELD=VALUE ...\n"
        "          Print the entry as 0x + 16 hex digits (32 for a dual PDE, bit 127 first).\n"
        "          Values: hwref names (PEER_MEMORY, TRUE, GENERIC_MEMORY ...) or numbers;\n"
        "          address fields take byte addresses. A value that does not fit is refused\n"
        "          (the driver's assertion) unless --as-written, which stores what a release\n"
        "          driver build stores (unmasked values smear into neighbouring bits).\n"
        "  decode  (--chip CHIP | --format FMT) [--entry pte|pde|dual-pde] [--json] VALUE ...\n"
        "          Print FIELD=VALUE lines for the fields of the entry's aperture (--json: one\n"
        "          object per entry per line). With --raw/--text/--mem: decode dumps\n"
        "          (see 'pte-decode decode --raw --help').\n"
        "  p2p     (--chip CHIP | --format FMT) --mode stock|nvlink|bar1 [--peer N]\n"
        "          [--bar1 ADDR] [--bar1-form patch|patch-as-published|tinygrad|stock]\n"
        "          [--fabric-base ADDR] [--offset OFF] [--page-size SIZE] [--kind KIND]\n"
        "          [--vol|--cached] [--read-only] [--privilege] [--atomic-disable] [--ace]\n"
        "          [--nvswitch] [--as-written] [--json] [-q]\n"
        "          The PTE the stock driver writes for a PCIe or NVLink peer, or a BAR1-P2P\n"
        "          entry (default: the kernel patch's, SYSTEM_NON_COHERENT at the peer's BAR1\n"
        "          address), and the level and page size it is a PTE for.\n"
        "  formats [--markdown | --json]\n"
        "          List formats and chips; --markdown renders docs/gmmu-formats.md.\n"
        "  verify  Compare a dump with intended mappings (see 'pte-decode verify --help').\n"
        "\n"
        "Exit status: 0 ok, 1 differences (verify), 2 bad input.\n";

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "encode"))
		return pte_decode_cmd_encode(argc - 1, argv + 1);
	if (!strcmp(cmd, "decode")) {
		if (pte_decode_args_name_dump(argc - 2, argv + 2))
			return pte_decode_cmd_decode_dump(argc - 1, argv + 1);
		return pte_decode_cmd_decode_values(argc - 1, argv + 1);
	}
	if (!strcmp(cmd, "verify"))
		return pte_decode_cmd_verify(argc - 1, argv + 1);
	if (!strcmp(cmd, "p2p"))
		return pte_decode_cmd_p2p(argc - 1, argv + 1);
	if (!strcmp(cmd, "formats"))
		return pte_decode_cmd_formats(argc - 1, argv + 1);
	fprintf(stderr,
	        "pte-decode: unknown command '%s' (encode, decode, p2p, formats, verify; "
	        "--help)\n",
	        cmd);
	return 2;
}
