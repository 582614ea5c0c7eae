/*
 * What the subcommands print besides their results: error, warning and note lines on stderr
 * (every control character escaped), and the output options shared by the analysis
 * commands, --csv FILE and --plot FILE.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    fflush(stdout);   /* what was printed before the problem shows before it */
    rt_steps_clear(); /* a progress line on the terminal makes room for the message */
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

/* 1 when something is at path where an output of format fmt would go. */
static int taken(const char *path, rt_format fmt)
{
    struct stat st;
    if (fmt == RT_FMT_OTF2)
        return !rt_path_is_free(path);
    if (lstat(path, &st) == 0)
        return 1;
    if (fmt != RT_FMT_TI)
        return 0;
    char files[PATH_MAX + 8];
    snprintf(files, sizeof files, "%s_files", path);
    return lstat(files, &st) == 0;
}

/* 1 when path is the input, or a directory that holds it. */
static int holds_input(const char *path, const char *input)
{
    char p[PATH_MAX], in[PATH_MAX];
    if (!input || !realpath(path, p) || !realpath(input, in))
        return 0;
    size_t n = strlen(p);
    return !strncmp(p, in, n) && (in[n] == '\0' || in[n] == '/' || !strcmp(p, "/"));
}

int cli_out_claim(const cli_command *cmd, const char *opt, const char *path, rt_format fmt,
                  int force, const char *input)
{
    if (!taken(path, fmt))
        return CLI_OK;
    const char *o = opt ? opt : "", *sep = opt ? ": " : "";
    if (holds_input(path, input))
        return cli_usage_error(cmd, "%s%s%s: is the input (not replaced, even with --force)", o,
                               sep, path);
    struct stat st;
    int is_file = lstat(path, &st) == 0 && !S_ISDIR(st.st_mode);
    if (fmt == RT_FMT_AUTO && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_usage_error(cmd, "%s%s%s: is a directory", o, sep, path);
    if (!force) {
        if (fmt == RT_FMT_TI && !is_file)
            return cli_usage_error(cmd, "%s%s%s_files: exists (--force replaces it)", o, sep, path);
        return cli_usage_error(cmd, "%s%s%s: exists (--force replaces %s)", o, sep, path,
                               fmt == RT_FMT_OTF2 ? "a trace retrace wrote" : "it");
    }
    if (fmt == RT_FMT_AUTO) /* a file: overwritten when written */
        return CLI_OK;
    rt_err err;
    if (rt_trace_remove(path, &err) < 0)
        return cli_usage_error(cmd, "%s%s%s (--force replaces only a trace retrace wrote)", o, sep,
                               err.msg);
    if (taken(path, fmt))
        return cli_usage_error(cmd, "%s%s%s: holds other files besides the trace: not replaced", o,
                               sep, path);
    return CLI_OK;
}

int cli_out_option(cli_args *a, cli_out *o)
{
    o->cmd = a->cmd;
    if (cli_args_flag(a, "--force")) {
        o->force = 1;
        return 1;
    }
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

int cli_out_claim_report(const cli_out *o, const char *input)
{
    if (o->csv && cli_out_claim(o->cmd, "--csv", o->csv, RT_FMT_AUTO, o->force, input))
        return CLI_BAD;
    if (o->plot && cli_out_claim(o->cmd, "--plot", o->plot, RT_FMT_AUTO, o->force, input))
        return CLI_BAD;
    return CLI_OK;
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
    for (unsigned i = 1; o->csv && i < r->tables.n; i++) { /* FILE was claimed before */
        char path[PATH_MAX];
        rt_tables_csv_path(&r->tables, i, o->csv, path, sizeof path);
        if (cli_out_claim(o->cmd, "--csv", path, RT_FMT_AUTO, o->force, NULL))
            return CLI_BAD;
    }
    if (o->csv && rt_tables_write_csv(&r->tables, o->csv, &err))
        return cli_error("%s", err.msg);
    if (o->plot && !r->plot && p->empty) { /* the tables say why: an empty chart says it too */
        if (rt_plot_note(p->none, p->kind, p->title, p->xlabel, p->ylabel, o->plot, &err))
            return cli_error("%s", err.msg);
        cli_line("retrace: note: %s: the plot is empty", p->none);
        return CLI_OK;
    }
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

int cli_beside_exe(const char *rel, int mode, char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -RT_E_NOTFOUND;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -RT_E_NOTFOUND;
    *slash = 0;
    if ((size_t)snprintf(buf, len, "%s/%s", exe, rel) >= len || access(buf, mode) != 0)
        return -RT_E_NOTFOUND;
    return 0;
}
