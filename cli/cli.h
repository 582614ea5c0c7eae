/* The retrace command: shared helpers of the subcommands. */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <stdio.h>

#include "rt_trace.h"

/* Exit statuses: 0 success, 1 the subcommand ran but found a problem it reports (none yet),
 * 2 bad input or bad usage. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_BAD = 2 };

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out);
} cli_command;

/* "retrace: <message>" on stderr; returns CLI_BAD. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a subcommand's usage to stderr after a usage error; returns CLI_BAD. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

extern const cli_command cli_cmd_record;
extern const cli_command cli_cmd_convert;
extern const cli_command cli_cmd_info;
extern const cli_command cli_cmd_demo;

/* Converts in to out (the convert subcommand); reports errors itself. */
int cli_convert(const char *in, const char *out, rt_format fmt);

/* retrace info's report for one trace, also used by the demo. */
int cli_info_report(const char *path, FILE *out);

#endif /* RT_CLI_H */
