/* retrace: one binary, git-style subcommands. */
#include <string.h>

#include "cli.h"

static const cli_command *const commands[] = {
    &cli_cmd_record,   &cli_cmd_info,      &cli_cmd_convert, &cli_cmd_hist,
    &cli_cmd_gateways, &cli_cmd_pipeline,  &cli_cmd_profile, &cli_cmd_replay,
    &cli_cmd_check,    &cli_cmd_calibrate, &cli_cmd_demo,
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *out)
{
    fprintf(out, "usage: retrace [--version] [--help] COMMAND [ARGS]\n"
                 "\n"
                 "Record, analyse and replay MPI traces.\n"
                 "\n"
                 "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "\n"
                 "TRACE is an OTF2 archive (its directory or its .otf2 anchor file) or a\n"
                 "retrace CSV trace. 'retrace COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(NULL, "no command given");
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            for (size_t i = 0; i < NCOMMANDS; i++)
                if (!strcmp(argv[2], commands[i]->name)) {
                    commands[i]->usage(stdout);
                    return CLI_OK;
                }
            return cli_usage_error(NULL, "no such command '%s'", argv[2]);
        }
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(name, "--version")) {
        printf("retrace %s\n", RETRACE_VERSION);
        return CLI_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i]->name))
            return commands[i]->run(argc - 1, argv + 1);
    if (name[0] == '-')
        return cli_usage_error(NULL, "%s: unknown option", name);
    return cli_usage_error(NULL, "no such command '%s'", name);
}
