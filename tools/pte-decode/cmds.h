/* pte-decode subcommands split across files so that the value-level commands
 * (main.c: encode, decode of values, p2p, formats) and the dump-level commands
 * (dump_cmds.c: decode of --raw/--text/--mem inputs, verify) evolve separately.
 * Each returns the process exit status: 0 ok, 1 differences (verify), 2 bad input. */
#ifndef PTE_DECODE_CMDS_H
#define PTE_DECODE_CMDS_H

#include <stdbool.h>

/* True when argv (the arguments after "decode") names a file input
 * (--raw, --text, --mem) that dump_cmds.c handles. */
bool pte_decode_args_name_dump(int argc, char **argv);

/* `pte-decode decode ...` with file inputs; argv[0] is "decode". */
int pte_decode_cmd_decode_dump(int argc, char **argv);

/* `pte-decode verify ...`; argv[0] is "verify". */
int pte_decode_cmd_verify(int argc, char **argv);

#endif
