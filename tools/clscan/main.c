/*
 * The clscan program's entry point: --help, --version, `help COMMAND`, and the dispatch to a
 * command of the table in cli_usage.c. Everything else is in the object library clscan_cli_objs,
 * which the fuzz target tests/fuzz_cli.c links too.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_print_usage(stderr, NULL);
    return CLI_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    cli_print_usage(stdout, NULL);
    return CLI_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0) {
    printf("clscan %s\n", clscan_version_string());
    return CLI_EXIT_OK;
  }
  // "clscan help COMMAND" is the same as "clscan COMMAND --help".
  if (strcmp(first, "help") == 0) {
    if (argc > 2 && !cli_find_command(argv[2]))
      return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
    cli_print_usage(stdout, argc > 2 ? argv[2] : NULL);
    return CLI_EXIT_OK;
  }
  const cli_command *c = cli_find_command(first);
  if (!c) {
    if (first[0] == '-')
      return cli_usage_error(NULL, "unknown option '%s'", first);
    return cli_usage_error(NULL, "unknown command '%s'", first);
  }
  return c->run(argc - 1, argv + 1);
}
