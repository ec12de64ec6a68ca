/* pte-decode value-level subcommands: encode, decode of values, p2p, formats. Each returns the
 * process exit status (0 ok, 2 bad input) and prints its own one-line error on stderr. */
#ifndef PTE_DECODE_VALUE_CMDS_H
#define PTE_DECODE_VALUE_CMDS_H

/* argv[0] is the subcommand name. */
int pte_decode_cmd_encode(int argc, char **argv);
int pte_decode_cmd_decode_values(int argc, char **argv);
int pte_decode_cmd_p2p(int argc, char **argv);
int pte_decode_cmd_formats(int argc, char **argv);

#endif
