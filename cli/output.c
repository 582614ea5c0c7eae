/*
 * What the subcommands print besides their results: error, warning and note lines on stderr
 * (every control character escaped), and the output options shared by the analysis
 * commands, --csv FILE and --plot FILE.
 */
#include <stdarg.h>
#include <string.h>

#include "cli.h"

int cli_quiet;

/* A line of at most about 4 KiB (an rt_err message is at most 1 KiB) with its control
 * characters escaped: the escaped text may be up to four times as long. */
static void vline(const char *prefix, const char *fmt, va_list ap)
{
    if (cli_quiet)
        return;
    char raw[4096], out[4 * sizeof raw];
    size_t n = (size_t)snprintf(raw, sizeof raw, "%s", prefix);
    if (n < sizeof raw)
        vsnprintf(raw + n, sizeof raw - n, fmt, ap);
    fflush(stdout); /* what was printed before the problem shows before it */
    fprintf(stderr, "%s\n", rt_escape(out, sizeof out, raw));
}

void cli_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("", fmt, ap);
    va_end(ap);
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("retrace: ", fmt, ap);
    va_end(ap);
    return CLI_BAD;
}

void cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("retrace: warning: ", fmt, ap);
    va_end(ap);
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "retrace%s%s: ", cmd ? " " : "", cmd ? cmd->name : "");
    va_list ap;
    va_start(ap, fmt);
    vline(prefix, fmt, ap);
    va_end(ap);
    cli_line("Try 'retrace%s%s --help'.", cmd ? " " : "", cmd ? cmd->name : "");
    return CLI_BAD;
}

int cli_out_option(cli_args *a, cli_out *o)
{
    int k = cli_args_value(a, "--csv", &o->csv);
    if (k)
        return k;
    k = cli_args_value(a, "--plot", &o->plot);
    if (k == 1) {
        rt_err err;
        if (rt_plot_check_path(o->plot, &err)) {
            a->bad = 1;
            cli_usage_error(a->cmd, "--plot: %s", err.msg);
            return -1;
        }
    }
    return k;
}

int cli_out_report(const cli_out *o, const rt_report *r, int text, const cli_plot *p)
{
    for (unsigned i = 0; text && i < r->tables.n; i++) {
        if (i)
            fputc('\n', stdout);
        if (rt_table_write_text(r->tables.t[i], stdout))
            return cli_error("cannot write the output");
    }
    rt_err err;
    if (o->csv && rt_tables_write_csv(&r->tables, o->csv, &err))
        return cli_error("%s", err.msg);
    if (o->plot && !r->plot)
        return cli_error("%s: %s", o->plot, p->none);
    if (o->plot && rt_plot(r->plot, p->kind, p->title, p->xlabel, p->ylabel, o->plot, &err))
        return cli_error("%s", err.msg);
    return CLI_OK;
}

void cli_out_truncated(const char *note)
{
    if (note)
        cli_warning("%s (the figures cover the events up to there)", note);
}

int cli_input_error(const char *path, const char *msg)
{
    size_t n = strlen(path);
    if (!strncmp(msg, path, n) && msg[n] == ':')
        return cli_error("%s", msg); /* the message names the input already */
    return cli_error("%s: %s", path, msg);
}
