/* The retrace command: shared helpers of the subcommands. */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <stdio.h>

#include "rt_an.h"
#include "rt_trace.h"
#include "rt_util.h"

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
extern const cli_command cli_cmd_hist;
extern const cli_command cli_cmd_gateways;
extern const cli_command cli_cmd_pipeline;
extern const cli_command cli_cmd_profile;
extern const cli_command cli_cmd_replay;
extern const cli_command cli_cmd_calibrate;

/* Scanning the arguments of a subcommand (cli/args.c): for (a.i = 1; a.i < argc; a.i++). */
typedef struct cli_args {
    const cli_command *cmd;
    int argc, i, bad;
    char **argv;
} cli_args;
/* 1 when argv[i] is the flag. */
int cli_args_flag(cli_args *a, const char *name);
/* 1 when argv[i] is "name VALUE" (i moves on) or "name=VALUE"; -1 after a usage error
 * (value missing; a->bad set); 0 when it is another argument. */
int cli_args_value(cli_args *a, const char *name, const char **value);
/* The same for an option whose value is optional: *value is the next argument only when it
 * does not start with '-' and holds an '='; else NULL. */
int cli_args_optional(cli_args *a, const char *name, const char **value);
/* Usage error for an unknown option or an unexpected argument; returns CLI_BAD. */
int cli_args_unknown(cli_args *a);

/* --csv FILE and --plot FILE of the analysis commands (cli/output.c). */
typedef struct cli_out {
    const char *csv, *plot;
} cli_out;
/* Like cli_args_value for --csv and --plot (a plot path must end in .svg or .png). */
int cli_out_option(cli_args *a, cli_out *o);
/* How a command draws its report's plot; none is the error when the report has none. */
typedef struct cli_plot {
    rt_plot_kind kind;
    const char *title, *xlabel, *ylabel, *none;
} cli_plot;
/* The report's tables as text on stdout, a blank line between them (unless text is 0), then
 * the CSV files and the plot when asked for. */
int cli_out_report(const cli_out *o, const rt_report *r, int text, const cli_plot *p);
/* --level and --coll (cli/args.c): a choice of algorithms implies the wire level. */
int cli_level_finish(const cli_command *cmd, rt_an_level *l, const char *level,
                     const char *coll_spec);
/* The warning for a trace cut short (nothing when note is NULL). */
void cli_out_truncated(const char *note);

/* Converts in to out (the convert subcommand); reports errors itself. */
int cli_convert(const char *in, const char *out, rt_format fmt);

/* retrace info's report for one trace, also used by the demo. */
int cli_info_report(const char *path, FILE *out);

#endif /* RT_CLI_H */
