/* retrace demo: the whole pipeline on a run of this machine. It records a bundled example
 * program under MPICH (or, when that cannot run, takes a bundled trace), then summarises,
 * converts, analyses and replays the trace. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define DEMO_EXAMPLE RETRACE_SOURCE_DIR "/examples/halo.csv"
/* The program recorded: examples/patterns/stencil.c, built next to retrace (patterns/). */
#define DEMO_PROGRAM "stencil"
#define DEMO_TIMEOUT_S 60 /* the run takes well under a second */

static void demo_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace demo [--out DIR] [--no-record | --example TRACE]\n"
            "\n"
            "Shows retrace on a run of this machine. It records the bundled example program\n"
            "examples/patterns/" DEMO_PROGRAM ".c (a 2D halo exchange with an allreduce per\n"
            "iteration) on 4 ranks under MPICH's mpiexec, emulated as 2 nodes in 2 modules\n"
            "(retrace record). When MPI cannot run it says why and takes the bundled trace\n"
            "instead (a 4-rank halo exchange with an allreduce, on 2 nodes in 2 modules).\n"
            "Then it summarises the trace, converts it between OTF2 and CSV and checks the\n"
            "round trip, prints the psmpi message-size histogram and the traffic through\n"
            "the gateways (with what MSA-aware collectives would save), draws both with\n"
            "gnuplot (DIR/hist.svg, DIR/gateways.svg), and ends with a what-if table: the\n"
            "run replayed on the built-in MPI engine under other collective algorithms,\n"
            "placements, protocols and machine shapes (DIR/whatif.svg).\n"
            "  --out DIR        where the demo writes (default: retrace-demo); the demo\n"
            "                   replaces only its own earlier results there\n"
            "  --no-record      record nothing: take the bundled trace\n"
            "  --example TRACE  record nothing: take this trace (bundled: %s)\n",
            DEMO_EXAMPLE);
}

static int demo_step;

/* "== N. " and the heading, a blank line before all but the first. */
static void heading(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void heading(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s== %d. ", demo_step ? "\n" : "", demo_step + 1);
    demo_step++;
    vprintf(fmt, ap);
    va_end(ap);
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 0;
    return cli_error("%s: cannot create directory: %s", dir, strerror(errno));
}

/* Removes an earlier demo result (only a trace retrace wrote). */
static void remove_previous(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    rt_err err;
    if (access(p, F_OK) == 0 && rt_trace_remove(p, &err) < 0)
        cli_warning("%s", err.msg);
}

/* Loads every event of a trace (small traces only), ordered by rank, stable within a rank. */
static int load_events(const char *path, rt_event **out, size_t *n)
{
    rt_reader *r;
    rt_err err;
    if (rt_reader_open(path, &r, &err) < 0)
        return cli_error("%s", err.msg);
    size_t cap = 0;
    rt_event ev, *v = NULL;
    int rc;
    *n = 0;
    while ((rc = rt_reader_next(r, &ev, &err)) > 0) {
        if (RT_VEC_RESERVE(v, cap, (uint64_t)*n + 1, 1024) < 0) {
            rc = rt_err_set(&err, RT_E_NOMEM, "%s: out of memory", path);
            break;
        }
        v[(*n)++] = ev;
    }
    rt_reader_close(r);
    if (rc < 0) {
        free(v);
        return cli_error("%s", err.msg);
    }
    /* Insertion by rank keeps each rank's order; the demo traces are small. */
    for (size_t i = 1; i < *n; i++)
        for (size_t j = i; j > 0 && v[j - 1].rank > v[j].rank; j--) {
            rt_event t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    *out = v;
    return CLI_OK;
}

/* Prints whether two traces hold the same events; CLI_FAIL when they differ. */
static int compare_traces(const char *a, const char *b)
{
    rt_event *x = NULL, *y = NULL;
    size_t nx, ny;
    int rc = load_events(a, &x, &nx);
    if (!rc)
        rc = load_events(b, &y, &ny);
    if (!rc) {
        size_t i = 0;
        while (i < nx && i < ny && rt_event_equal(&x[i], &y[i]))
            i++;
        if (i == nx && nx == ny) {
            printf("Round trip: the %zu events are the same, field by field.\n", nx);
        } else {
            printf("Round trip: the traces differ at event %zu of rank %u.\n", i,
                   i < nx ? (unsigned)x[i].rank : 0);
            rc = CLI_FAIL;
        }
    }
    free(x);
    free(y);
    return rc;
}

/* The first executable called name in PATH. */
static int find_in_path(const char *name, char *out, size_t len)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n && (size_t)snprintf(out, len, "%.*s/%s", (int)n, path, name) < len &&
            access(out, X_OK) == 0)
            return 0;
        path += n + (path[n] == ':');
    }
    return -1;
}

/* The example program next to this executable (build/patterns/). */
static int find_program(char *out, size_t len)
{
    return cli_beside_exe("patterns/" DEMO_PROGRAM, X_OK, out, len);
}

static volatile sig_atomic_t demo_signal;

static void on_signal(int sig)
{
    demo_signal = sig;
}

/* Stops the run's process group: SIGTERM first (mpiexec then stops its ranks), SIGKILL
 * after two seconds; returns the wait status. */
static int stop_group(pid_t pid)
{
    int st = 0;
    kill(-pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    kill(-pid, SIGKILL);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return st;
}

/* Runs retrace record in a child process: record's settings (LD_PRELOAD, the tracer's
 * variables) stay out of the demo's later commands, and the child leads a process group of
 * its own, so that a run that hangs, or an interrupted demo, stops with all of its
 * processes. Standard input is /dev/null (a background group must not read the terminal).
 * Returns record's exit status; -1 when the run timed out, -2 when it could not start. */
static int run_record(int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -2;
    if (pid == 0) {
        setpgid(0, 0);
        int fd = open("/dev/null", O_RDONLY);
        if (fd >= 0) {
            dup2(fd, STDIN_FILENO);
            close(fd);
        }
        int rc = cli_cmd_record.run(argc, argv);
        fflush(NULL);
        _exit(rc);
    }
    setpgid(pid, pid);
    /* Signals the demo was started to ignore stay ignored (a background job of a script). */
    struct sigaction on = {.sa_handler = on_signal}, old_int, old_term;
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    if (old_int.sa_handler != SIG_IGN)
        sigaction(SIGINT, &on, NULL);
    if (old_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &on, NULL);
    int st = 0, timed_out = 0;
    for (long ms = 0;; ms += 20) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            st = 0;
            break;
        }
        if (demo_signal || ms >= DEMO_TIMEOUT_S * 1000L) {
            timed_out = !demo_signal;
            st = stop_group(pid);
            break;
        }
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (demo_signal) /* interrupted: the demo ends as the signal would have ended it */
        raise(demo_signal);
    if (timed_out)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

/* Why the demo records nothing, in one line; returns -1. */
static int no_record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int no_record(const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    cli_warning("demo: no run recorded: %s; taking the bundled trace %s", why, DEMO_EXAMPLE);
    return -1;
}

/* Step 1: records the example program under MPICH into DIR/stencil-otf2 (trace); -1 after
 * saying why it could not. */
static int demo_record(const char *dir, char *trace, size_t len)
{
    heading("A run of this machine, recorded: examples/patterns/" DEMO_PROGRAM ".c (a 2D halo\n"
            "      exchange with an allreduce per iteration), 4 ranks under MPICH's mpiexec,\n"
            "      emulated as 2 nodes in 2 modules (retrace record)\n\n");
    /* MPICH by name: Debian's plain mpiexec may be Open MPI's, and retrace is built with
     * MPICH. */
    char mpiexec[PATH_MAX], prog[PATH_MAX];
    if (find_in_path("mpiexec.mpich", mpiexec, sizeof mpiexec) < 0 &&
        find_in_path("mpiexec", mpiexec, sizeof mpiexec) < 0)
        return no_record("neither mpiexec.mpich nor mpiexec is on PATH (Debian package mpich)");
    if (find_program(prog, sizeof prog) < 0)
        return no_record("the example program %s is not built", prog);
    /* Shown and run relative to the current directory when it is below it (make demo). */
    char cwd[PATH_MAX], *run = prog;
    size_t ncwd = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (ncwd > 1 && !strncmp(prog, cwd, ncwd) && prog[ncwd] == '/')
        run = prog + ncwd + 1;
    char raw[PATH_MAX + 8];
    snprintf(trace, len, "%s/%s-otf2", dir, DEMO_PROGRAM);
    snprintf(raw, sizeof raw, "%s.raw", trace);
    remove_previous(dir, DEMO_PROGRAM "-otf2");
    rt_raw_remove(raw); /* left by an earlier demo stopped while it recorded */
    char *argv[] = {"record", "--out", trace, "--nodes", "2", "--modules", "2",
                    "--",     mpiexec, "-n",  "4",       run, "-i",        "20",
                    "-s",     "64K",   "-c",  "200",     NULL};
    int argc = (int)(sizeof argv / sizeof *argv) - 1;
    printf("$ retrace");
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
    int st = run_record(argc, argv);
    if (st == -2)
        return no_record("cannot start retrace record: %s", strerror(errno));
    if (st == -1)
        return no_record("the run did not end within %d s and was stopped", DEMO_TIMEOUT_S);
    if (st != 0)
        return no_record("the run failed (exit status %d)", st);
    char anchor[PATH_MAX + 16];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", trace);
    if (access(anchor, R_OK) != 0)
        return no_record("the run left no trace in %s", trace);
    printf("\nThe trace of that run: %s (OTF2)\n", trace);
    return 0;
}

/* The analyzer on the trace: psmpi histogram, gateway traffic, two plots. */
static int demo_analyses(const char *dir, const char *example)
{
    char hist_svg[4096], gw_svg[4096];
    snprintf(hist_svg, sizeof hist_svg, "%s/hist.svg", dir);
    snprintf(gw_svg, sizeof gw_svg, "%s/gateways.svg", dir);
    rt_err err;
    rt_an_hist_opts ho;
    memset(&ho, 0, sizeof ho);
    rt_hist_config_default(&ho.cfg);
    rt_an_level_default(&ho.level);
    ho.level.level = RT_AN_WIRE;
    ho.level.coll = RT_AN_COLL_FLOWS;
    rt_an_hist_result hr;
    heading(
        "Message sizes as psmpi counts them (retrace hist %s --level wire):\n"
        "      point-to-point messages and the allreduce's messages under MPICH's algorithm\n\n",
        example);
    int rc = rt_an_hist(example, &ho, &hr, &err);
    if (!rc)
        rc = rt_hist_write_text(&hr.total, stdout);
    if (!rc && rt_plot(hr.report.plot, RT_PLOT_BARS, "Messages by size (wire level)",
                       "message size (bytes, upper bin limit)", "messages", hist_svg, &err))
        rc = -1;
    rt_report_free(&hr.report);
    if (rc)
        return cli_error("%s", err.msg);

    rt_an_gw_opts go;
    memset(&go, 0, sizeof go);
    rt_an_level_default(&go.level);
    go.level.level = RT_AN_WIRE;
    go.level.coll = RT_AN_COLL_FLOWS;
    go.level.rma = 1;
    go.nchoices = 1;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        go.choice[0][op] = rt_coll_alg_valid(op, RT_ALG_MSA) ? RT_ALG_MSA : RT_ALG_MPICH;
    go.label[0] = "all=msa";
    rt_an_gw_result gr;
    heading("Traffic through the gateways between the modules (retrace gateways %s\n"
            "      --coll all=msa): the summary, the module x module bytes, and what MSA-aware\n"
            "      collectives would save\n\n",
            example);
    if (rt_an_gateways(example, &go, &gr, &err)) {
        rt_report_free(&gr.report);
        return cli_error("%s", err.msg);
    }
    for (unsigned i = 0; i < gr.report.tables.n; i++) {
        const char *name = rt_table_name(gr.report.tables.t[i]);
        if (strcmp(name, "summary") && strcmp(name, "matrix_bytes") && strcmp(name, "compare"))
            continue;
        rt_table_write_text(gr.report.tables.t[i], stdout);
        fputc('\n', stdout);
    }
    rc = rt_plot(gr.report.plot, RT_PLOT_HEATMAP, "Bytes from module (rows) to module (columns)",
                 "to module", "from module", gw_svg, &err);
    rt_report_free(&gr.report);
    if (rc)
        return cli_error("%s", err.msg);
    printf("Plots (gnuplot): %s (the histogram), %s (the module matrix)\n", hist_svg, gw_svg);
    return CLI_OK;
}

/* The replayer's what-if table for the trace. */
static int demo_whatif(const char *dir, const char *trace)
{
    char svg[4096];
    snprintf(svg, sizeof svg, "%s/whatif.svg", dir);
    char *argv[] = {"replay",    (char *)trace,
                    "--compare", "coll:all=msa",
                    "--compare", "map:cyclic",
                    "--compare", "eager:0",
                    "--compare", "contention:on",
                    "--compare", "nodes:4+map:cyclic",
                    "--plot",    svg,
                    "--force",   NULL}; /* its own earlier plot: replaced */
    heading("What if (retrace replay %s --compare ...): the run replayed on the\n"
            "      built-in MPI engine with MSA-aware collectives, another placement, no eager\n"
            "      messages, network contention, and four nodes instead of two\n\n",
            trace);
    fflush(stdout);
    int rc = cli_cmd_replay.run((int)(sizeof argv / sizeof *argv) - 1, argv);
    if (rc == CLI_OK)
        printf("\nPlot (gnuplot): %s (the predicted times)\n", svg);
    return rc;
}

/* The trace summarised, converted to the other form (OTF2 or CSV) and back, and the two
 * compared event by event. */
static int demo_forms(const char *dir, const char *trace, const char *name, int recorded)
{
    char other[4096], back[4096];
    int rc;
    heading("The %s trace: %s\n\n", recorded ? "recorded" : "bundled", trace);
    if ((rc = cli_info_report(trace, 0, stdout)))
        return rc;
    if (recorded) { /* OTF2 -> CSV -> OTF2 */
        snprintf(other, sizeof other, "%s/%s.csv", dir, name);
        snprintf(back, sizeof back, "%s/%s-roundtrip-otf2", dir, name);
        remove_previous(dir, strrchr(other, '/') + 1);
        remove_previous(dir, strrchr(back, '/') + 1);
        heading("Converted to CSV, one event a line: %s\n\n", other);
        if ((rc = cli_convert(trace, other, RT_FMT_CSV)))
            return rc;
        printf("%s holds the same run as text (retrace convert).\n", other);
        heading("And back to OTF2: %s\n\n", back);
        if ((rc = cli_convert(other, back, RT_FMT_OTF2)))
            return rc;
    } else { /* CSV -> OTF2 -> CSV */
        snprintf(other, sizeof other, "%s/%s-otf2", dir, name);
        snprintf(back, sizeof back, "%s/%s-roundtrip.csv", dir, name);
        remove_previous(dir, strrchr(other, '/') + 1);
        remove_previous(dir, strrchr(back, '/') + 1);
        heading("Converted to OTF2: %s\n\n", other);
        if ((rc = cli_convert(trace, other, RT_FMT_OTF2)) ||
            (rc = cli_info_report(other, 0, stdout)))
            return rc;
        heading("And back to CSV: %s\n\n", back);
        if ((rc = cli_convert(other, back, RT_FMT_CSV)))
            return rc;
    }
    if ((rc = compare_traces(trace, back)))
        return rc;
    printf("Read the archive with any OTF2 tool, e.g.: otf2-print %s/traces.otf2\n",
           recorded ? trace : other);
    return CLI_OK;
}

static int demo_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"example", required_argument, NULL, 'e'},
        {"no-record", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *dir = "retrace-demo", *example = NULL;
    int c, record = 1;
    opterr = 0;
    optind = 0; /* glibc: a full restart, also of the state a previous scan left */
    while ((c = getopt_long(argc, argv, ":ho:e:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            demo_usage(stdout);
            return CLI_OK;
        case 'o':
            dir = optarg;
            break;
        case 'e':
            example = optarg;
            record = 0;
            break;
        case 'n':
            record = 0;
            break;
        default:
            return cli_getopt_error(&cli_cmd_demo, c, argv);
        }
    }
    if (optind != argc)
        return cli_usage_error(&cli_cmd_demo, "unexpected argument '%s'", argv[optind]);
    int rc = make_dir(dir);
    if (rc)
        return rc;
    demo_step = 0;
    char recorded[PATH_MAX];
    const char *trace = example ? example : DEMO_EXAMPLE, *name = "example";
    if (record && demo_record(dir, recorded, sizeof recorded) == 0) {
        trace = recorded;
        name = DEMO_PROGRAM;
    }
    if ((rc = demo_forms(dir, trace, name, trace == recorded)) ||
        (rc = demo_analyses(dir, trace)) || (rc = demo_whatif(dir, trace)))
        return rc;
    printf("\nThe trace: %s\n", trace);
    if (trace == recorded)
        printf("Record a program of your own the same way:\n"
               "  retrace record --nodes 2 --modules 2 -- mpiexec.mpich -n 4 ./app\n");
    printf("More: retrace hist, gateways, pipeline, profile, replay, check (retrace COMMAND "
           "--help)\n");
    return CLI_OK;
}

const cli_command cli_cmd_demo = {"demo", "record, analyse and replay a bundled example", demo_run,
                                  demo_usage};
