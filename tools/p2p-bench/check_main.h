/* SPDX-License-Identifier: MIT */
/* p2p-bench check (check_main.c): the functional P2P check's command line. */
#ifndef P2P_BENCH_CHECK_MAIN_H
#define P2P_BENCH_CHECK_MAIN_H

/* argv[0] is "check"; returns the exit status (a live check ends the process itself). */
int pb_check_main(int argc, char **argv);

#endif
