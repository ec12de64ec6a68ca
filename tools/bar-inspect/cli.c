/* SPDX-License-Identifier: MIT */
/* bar-inspect's error line, report writer and list splitting (cli.h). */
#include "cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "p2pscope/evidence.h"
#include "p2pscope/paste_report.h"

int bi_die(const char *msg)
{
	fprintf(stderr, "bar-inspect: %s\n", msg);
	return BI_EXIT_USAGE;
}

/* A paste decides by its own verdict, and one that shows no GPU pair at all (an empty or
 * unrelated paste, a single GPU) is unknown: a check never passes on nothing. */
static int paste_status(const struct p2ps_analysis *an)
{
	const struct p2ps_paste_report *r = an->paste;
	bool pairs = an->n_pairs || r->n_pairs || (an->host->evidence && an->host->evidence->n_obs);
	if (r->verdict == P2PS_VERDICT_NOT_READY)
		return BI_EXIT_BLOCKED;
	return r->verdict == P2PS_VERDICT_READY && pairs ? BI_EXIT_READY : BI_EXIT_UNKNOWN;
}

int bi_check_status(const struct p2ps_analysis *an)
{
	bool unknown = false;
	if (an->paste)
		return paste_status(an);
	for (size_t i = 0; i < an->n_pairs; i++) {
		if (an->pairs[i].verdict == P2PS_VERDICT_NOT_READY)
			return BI_EXIT_BLOCKED;
		unknown |= an->pairs[i].verdict == P2PS_VERDICT_UNKNOWN;
	}
	return unknown ? BI_EXIT_UNKNOWN : BI_EXIT_READY;
}

int bi_write_report(const struct p2ps_strbuf *out)
{
	if (out->oom)
		return bi_die("out of memory");
	if (out->len && fwrite(out->s, 1, out->len, stdout) != out->len)
		return bi_die(strerror(errno));
	if (fflush(stdout) != 0)
		return bi_die(strerror(errno));
	return 0;
}

void bi_print_timings(const struct p2ps_timings *t)
{
	uint64_t sum = 0;
	bool beside = false;
	fprintf(stderr, "bar-inspect: timings (ms, runs)\n");
	for (size_t i = 0; i < t->n; i++) {
		fprintf(stderr, "  %-52s %9.3f %5u%s\n", t->t[i].phase, (double)t->t[i].ns / 1e6,
		        t->t[i].runs, t->t[i].beside ? " *" : "");
		if (!t->t[i].beside)
			sum += t->t[i].ns;
		beside |= t->t[i].beside;
	}
	fprintf(stderr, "  %-52s %9.3f\n", "total (from main; process start not included)",
	        (double)sum / 1e6);
	if (beside)
		fprintf(stderr,
		        "  * on the RM session's thread, beside the phases above it: not in "
		        "the total\n");
}

int bi_each_token(const char *opt, const char *arg, int (*each)(void *ctx, const char *token),
                  void *ctx, char *err, size_t err_size)
{
	char buf[1024];
	size_t len = strlen(arg);
	if (len >= sizeof(buf)) {
		snprintf(err, err_size, "%s: list too long", opt);
		return -1;
	}
	memcpy(buf, arg, len + 1);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int rc = each(ctx, t);
		if (rc)
			return rc;
	}
	return 0;
}
