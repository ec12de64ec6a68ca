/* bar-inspect's error line and report writer (output.h). */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int bi_die(const char *msg)
{
	fprintf(stderr, "bar-inspect: %s\n", msg);
	return BI_EXIT_USAGE;
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
