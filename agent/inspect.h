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

/* `cuzk inspect circuit ...`: argv[0] is "circuit". Returns CUZK_EXIT_OK after printing the
 * counts, CUZK_EXIT_FAIL when synthesis failed, CUZK_EXIT_USAGE for bad options. Main thread. */
int cuzk_inspect_circuit_main(int argc, char **argv);

/* Prints the usage of `cuzk inspect circuit`. */
void cuzk_inspect_circuit_usage(FILE *out);

#endif
