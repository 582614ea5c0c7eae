/* retrace: one binary, git-style subcommands. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_command *const commands[] = {
    &cli_cmd_record,   &cli_cmd_info,    &cli_cmd_convert, &cli_cmd_hist,      &cli_cmd_gateways,
    &cli_cmd_pipeline, &cli_cmd_profile, &cli_cmd_replay,  &cli_cmd_calibrate, &cli_cmd_demo,
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "retrace: %s", prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
    return CLI_BAD;
}

void cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
    cmd->usage(stderr);
    return CLI_BAD;
}

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
    if (argc < 2) {
        usage(stderr);
        return CLI_BAD;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            for (size_t i = 0; i < NCOMMANDS; i++)
                if (!strcmp(argv[2], commands[i]->name)) {
                    commands[i]->usage(stdout);
                    return CLI_OK;
                }
            return cli_error("no such command '%s' (see 'retrace --help')", argv[2]);
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
        cli_error("unknown option '%s'", name);
    else
        cli_error("no such command '%s'", name);
    usage(stderr);
    return CLI_BAD;
}
