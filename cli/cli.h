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

/*
 * Errors and warnings: one line each on stderr, every control character escaped (rt_escape),
 * so nothing from an input can break the line or hide what it holds.
 *   cli_error         "retrace: MESSAGE": bad input, an output that cannot be written, a
 *                     failure; MESSAGE names the input or output first. Returns CLI_BAD.
 *   cli_usage_error   "retrace CMD: MESSAGE", then "Try 'retrace CMD --help'.": the command
 *                     line is wrong; MESSAGE is "--OPTION: problem" when an option is at
 *                     fault. Never the whole usage. Returns CLI_BAD (exit status 2).
 *   cli_warning       "retrace: warning: MESSAGE"; the command goes on.
 * With cli_quiet set (the processes other than the first under mpiexec) they print nothing.
 */
extern int cli_quiet;
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* cli_error for a message about the input path: "retrace: PATH: MSG", or "retrace: MSG" when
 * MSG names PATH already (a reader's messages do, a later stage's need not): once only. */
int cli_input_error(const char *path, const char *msg);
/* One line on stderr with its control characters escaped, as above (no prefix added). */
void cli_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
extern const cli_command cli_cmd_check;

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
/* For the commands that use getopt_long (opterr = 0, ":" first in the short options): the
 * usage error for what it returned, ':' (a value missing) or '?' (an unknown option). */
int cli_getopt_error(const cli_command *cmd, int c, char **argv);

/*
 * Outputs (cli/output.c). Nothing is overwritten unless --force is given: before any work a
 * command claims each output. A free path (absent; for an OTF2 archive also an empty
 * directory) is fine. A taken one is a usage error ("--OPT: PATH: exists (--force replaces
 * it)") unless force; then a file (fmt RT_FMT_AUTO: an output that is not a trace) is
 * overwritten when written, and a trace retrace wrote (fmt the format it is written in: an
 * OTF2 archive, a CSV file, a TI index and its PATH_files) is removed at once; anything else
 * (a directory where a file goes, a directory that is not such a trace) is refused even
 * then, and so is the input (or a directory that holds it: input may be NULL). opt names the
 * option, or is NULL for an argument. CLI_OK or CLI_BAD (reported).
 */
int cli_out_claim(const cli_command *cmd, const char *opt, const char *path, rt_format fmt,
                  int force, const char *input);

/* --csv FILE, --plot FILE and --force of the analysis commands and replay. */
typedef struct cli_out {
    const cli_command *cmd;
    const char *csv, *plot;
    int force;
} cli_out;
/* Like cli_args_value for --csv and --plot (a plot path must end in .svg or .png), and the
 * flag --force. */
int cli_out_option(cli_args *a, cli_out *o);
/* Claims --csv FILE and --plot FILE (cli_out_claim) before the work. The other CSV files
 * (FILE-NAME.csv) are known once the report is: cli_out_report checks them before writing
 * any. */
int cli_out_claim_report(const cli_out *o, const char *input);
/* How a command draws its report's plot. When the report has none, none says why: an error,
 * or with empty set, a legitimate outcome: the plot is drawn empty with none as its note. */
typedef struct cli_plot {
    rt_plot_kind kind;
    const char *title, *xlabel, *ylabel, *none;
    int empty;
} cli_plot;
/* The report's tables as text on stdout, a blank line between them (unless text is 0), then
 * the CSV files and the plot when asked for. */
int cli_out_report(const cli_out *o, const rt_report *r, int text, const cli_plot *p);
/* --level and --coll (cli/args.c): a choice of algorithms implies the wire level. */
int cli_level_finish(const cli_command *cmd, rt_an_level *l, const char *level,
                     const char *coll_spec);
/* Every entry of l becomes base, then coll_spec (checked by cli_level_finish) applies. */
void cli_level_apply_default(rt_an_level *l, unsigned base, const char *coll_spec);
/* At wire level: the choice of the MPI that recorded the trace (RT_AN_ALG_TRACE, which the
 * pass resolves from the trace's definitions: ompi for Open MPI, else mpich) where coll_spec
 * chooses nothing. */
void cli_level_trace_default(rt_an_level *l, const char *coll_spec);
/* The warning for a trace cut short (nothing when note is NULL). */
void cli_out_truncated(const char *note);

/* buf = the path of the file rel in the folder of the running retrace executable (for what
 * the build or the install puts beside it). 0 when that file exists with the access mode
 * (R_OK, X_OK), -RT_E_NOTFOUND otherwise or when the path does not fit. */
int cli_beside_exe(const char *rel, int mode, char *buf, size_t len);

/* Converts in to out (the convert subcommand); reports errors itself. */
int cli_convert(const char *in, const char *out, rt_format fmt);

/* retrace info's report for one trace, also used by the demo. */
int cli_info_report(const char *path, unsigned threads, FILE *out);
/* --threads N of the analyses (cmd_info.c): N, from 1 to RT_AN_MAX_THREADS, into *threads.
 * cli_threads_parse: 0, or CLI_BAD after the usage error. cli_threads_option: like
 * cli_args_value, -1 after a usage error. */
int cli_threads_parse(const cli_command *cmd, const char *value, unsigned *threads);
int cli_threads_option(cli_args *a, unsigned *threads);
#define CLI_THREADS_USAGE                                                           \
    "  --threads N      read the trace in N threads, each its share of the ranks\n" \
    "                   (OTF2 traces; default: the CPUs available; 1: one thread)\n"

#endif /* RT_CLI_H */
