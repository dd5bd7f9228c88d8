/* cuzk: entry point. Everything lives in agent/cli.c and the agent/cmd_*.c subcommands. */
#include "agent/cli.h"

int main(int argc, char **argv) {
  return cuzk_cli_main(argc, argv);
}
