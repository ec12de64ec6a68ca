/* Placeholder until the dump commands land: owned by the page-table dump work. */
#include "cmds.h"

#include <stdio.h>
#include <string.h>

bool pte_decode_args_name_dump(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--raw") || !strcmp(argv[i], "--text") ||
		    !strcmp(argv[i], "--mem"))
			return true;
	return false;
}

int pte_decode_cmd_decode_dump(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pte-decode: file inputs are not available in this build\n");
	return 2;
}

int pte_decode_cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pte-decode: verify is not available in this build\n");
	return 2;
}
