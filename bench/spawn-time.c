/* SPDX-License-Identifier: MIT */
/* Wall time of whole commands, alternating, as the bench scripts pair a tool with its
 * yardstick: each sample is one posix_spawn (vfork and exec, no shell) of the command
 * with its output to /dev/null, up to its exit. A shell loop would add its own fork of
 * a large process to every sample alike and so flatten every ratio.
 *
 *   spawn-time RUNS LABEL -- CMD [ARG...] [;; LABEL -- CMD [ARG...]]...
 *
 * Runs each command once untimed (it must exit 0: a failing run would time an error
 * path), then RUNS rounds of every command in turn. Prints one line per command:
 * "MEDIAN_US MIN_US LABEL", or "FAILED LABEL". */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_CMDS 32

struct cmd {
	const char *label;
	char **argv;
	double *us;
	int failed;
};

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One run of c; its wall time in microseconds, or -1 when it failed. */
static double run(const struct cmd *c, posix_spawn_file_actions_t *fa)
{
	pid_t pid;
	int st;
	double t0 = now_us();
	if (posix_spawnp(&pid, c->argv[0], fa, NULL, c->argv, environ) != 0)
		return -1;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	double t = now_us() - t0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Splits argv at ";;" into commands "LABEL -- CMD ARG...". */
static int parse(int argc, char **argv, struct cmd *cmds)
{
	int n = 0;
	for (int i = 0; i < argc;) {
		if (n == MAX_CMDS || i + 2 >= argc || strcmp(argv[i + 1], "--"))
			return -1;
		cmds[n].label = argv[i];
		cmds[n].argv = &argv[i + 2];
		int j = i + 2;
		while (j < argc && strcmp(argv[j], ";;"))
			j++;
		if (j == i + 2) /* "LABEL -- ;;": no command to run */
			return -1;
		argv[j < argc ? j : argc] = NULL; /* argv[argc] is NULL already */
		n++;
		i = j + 1;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct cmd cmds[MAX_CMDS];
	int runs = argc > 1 ? atoi(argv[1]) : 0;
	int n = argc > 2 ? parse(argc - 2, argv + 2, cmds) : -1;
	if (runs < 1 || n < 1) {
		fprintf(stderr,
		        "usage: spawn-time RUNS LABEL -- CMD [ARG...] [;; LABEL -- CMD...]...\n");
		return 2;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	for (int c = 0; c < n; c++) {
		cmds[c].us = calloc((size_t)runs, sizeof(double));
		cmds[c].failed = !cmds[c].us || run(&cmds[c], &fa) < 0;
	}
	for (int r = 0; r < runs; r++)
		for (int c = 0; c < n; c++)
			if (!cmds[c].failed && (cmds[c].us[r] = run(&cmds[c], &fa)) < 0)
				cmds[c].failed = 1;
	for (int c = 0; c < n; c++) {
		if (cmds[c].failed) {
			printf("FAILED %s\n", cmds[c].label);
			free(cmds[c].us);
			continue;
		}
		qsort(cmds[c].us, (size_t)runs, sizeof(double), cmp);
		printf("%.0f %.0f %s\n", cmds[c].us[(runs - 1) / 2], cmds[c].us[0], cmds[c].label);
		free(cmds[c].us);
	}
	posix_spawn_file_actions_destroy(&fa);
	return 0;
}
