/* SPDX-License-Identifier: MIT */
/* Links libgmmu-dump as installed: parses a text dump given as arguments with
 * p2ps_text_parse and prints each word, so that debian/tests/installed can check it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <p2pscope/gmmu_dump.h>

static int print_word(void *ctx, const struct p2ps_text_word *w, struct p2ps_error *err)
{
	(void)err;
	++*(unsigned *)ctx;
	printf("%zu:%zu 0x%016" PRIx64 "\n", w->line, w->column, w->lo);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned words = 0;
	struct p2ps_error err;
	for (int i = 1; i < argc; i++) {
		if (p2ps_text_parse(argv[i], strlen(argv[i]), "arg", print_word, &words, &err)) {
			fprintf(stderr, "dump-words: %s\n", err.msg);
			return 2;
		}
	}
	printf("%u words\n", words);
	return 0;
}
