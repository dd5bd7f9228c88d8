/* `cuzk inspect` subcommands implemented outside agent/cmd_inspect.c. */
#ifndef CUZK_AGENT_INSPECT_H
#define CUZK_AGENT_INSPECT_H

#include <stdio.h>

/* `cuzk inspect vanilla ...`: argv[0] is the subcommand name ("vanilla"), the rest its options.
 * Returns CUZK_EXIT_OK when every check passed, CUZK_EXIT_FAIL when a check failed or the file
 * could not be read or decoded, CUZK_EXIT_USAGE for bad options. Main thread only. */
int cuzk_inspect_vanilla_main(int argc, char **argv);

/* Prints the usage of `cuzk inspect vanilla`. */
void cuzk_inspect_vanilla_usage(FILE *out);

#endif
