/* retrace record [options] -- COMMAND...: run an MPI program under the tracer. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rt_place.h"
#include "rt_sim.h"
#include "record_mpi.h"

/* After --timeout: how long the command has between SIGTERM and SIGKILL. The ranks need
 * milliseconds to write their buffers (docs/tracer.md), mpiexec a little more to end. */
#define GRACE_S 5
#define TIMED_OUT 124        /* the exit status, as timeout(1) gives it */
#define MAX_TIMEOUT 10000000 /* seconds: 115 days */

static void record_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace record [OPTIONS] -- COMMAND [ARGS...]\n"
            "\n"
            "Runs COMMAND (typically mpiexec -n P ./app) with the retrace tracer preloaded\n"
            "and leaves one OTF2 archive for the run. The exit status is COMMAND's; 124 when\n"
            "--timeout ended the run; 1 when COMMAND exited 0 but the run did not reach\n"
            "MPI_Finalize on every rank (mpiexec may exit 0 when a rank died).\n"
            "\n"
            "Options:\n"
            "  --out DIR        the archive to write (must not exist, or be empty); default\n"
            "                   retrace-YYYYMMDD-HHMMSS in the current directory\n"
            "  --force          replace an archive retrace wrote at DIR, and raw files at\n"
            "                   DIR.raw\n"
            "  --histogram      rank 0 prints the psmpi message-size histogram at\n"
            "                   MPI_Finalize (settings: RETRACE_HISTOGRAM_MIN, _MAX,\n"
            "                   _SHIFT, _CONTYPE or PSP_HISTOGRAM_*)\n"
            "  --no-trace       write no trace (with --histogram: counters only)\n"
            "  --nodes N        emulate N nodes: world ranks block-wise onto nodes (each node\n"
            "                   needs a rank: else the tracer warns and does not emulate)\n"
            "  --modules M      emulate M modules: nodes block-wise onto modules (needs\n"
            "                   --nodes; each module needs a node)\n"
            "  --keep-raw       keep the raw per-rank files (DIR.raw) after assembly\n"
            "  --tracer FILE    the tracer library (default: the one built with retrace for\n"
            "                   the MPI library the program uses, MPICH's or Open MPI's,\n"
            "                   as ldd tells; MPICH's when nothing tells, with a warning)\n"
            "  --timeout SEC    end the run after SEC seconds: SIGTERM to COMMAND (mpiexec\n"
            "                   passes it on to the ranks), SIGKILL %d s later if it still\n"
            "                   runs; the trace is assembled as for a killed run, and the\n"
            "                   exit status is 124 (as from timeout(1))\n"
            "\n"
            "While the program runs, each rank writes raw files to DIR.raw; they become the\n"
            "archive at MPI_Finalize. If the run dies (a signal, MPI_Abort, a crash, a rank\n"
            "that leaves main without MPI_Finalize), record assembles what was written into a\n"
            "trace that readers report as truncated: every rank's calls up to where it\n"
            "stopped, the call it was blocked in as a pending call, less the last 100 ms of\n"
            "a rank killed without warning (SIGKILL). Such a run is then replayed with the\n"
            "built-in model, and when the replay cannot go on its report goes to stderr:\n"
            "each blocked rank's call and what it waits for, the wait-for cycle of a\n"
            "deadlock, the rank that aborted or stopped (retrace replay --help).\n",
            GRACE_S);
}

/* The tracer library file (libretrace.so) next to this executable: build tree (tracer/) or
 * installed (../lib/retrace/). */
static int find_tracer(const char *file, char *out, size_t len)
{
    char rel[2][128];
    snprintf(rel[0], sizeof rel[0], "tracer/%s", file);
    snprintf(rel[1], sizeof rel[1], "../lib/retrace/%s", file);
    for (size_t i = 0; i < 2; i++)
        if (cli_beside_exe(rel[i], R_OK, out, len) == 0)
            return 0;
    return -RT_E_NOTFOUND;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int parse_count(const char *opt, const char *text, unsigned *out)
{
    uint64_t v;
    if (rt_parse_uint(text, 1, RT_MAX_RANKS, &v, NULL) < 0)
        return cli_usage_error(&cli_cmd_record, "%s: takes a positive number, not '%s'", opt, text);
    *out = (unsigned)v;
    return 0;
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Waits for the command pid to end: 0 with its wait status in *st, or CLI_BAD (reported).
 * With a timeout (seconds, 0: none) it is sent SIGTERM after that time, SIGKILL GRACE_S
 * later, and *timed_out is set. */
static int wait_command(pid_t pid, const char *name, unsigned timeout, int *st, int *timed_out)
{
    const uint64_t s = 1000000000u;
    uint64_t start = clock_ns(), term_at = 0;
    int killed = 0;
    *timed_out = 0;
    for (;;) {
        pid_t r = waitpid(pid, st, timeout ? WNOHANG : 0);
        if (r == pid)
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return cli_error("record: waiting for %s: %s", name, strerror(errno));
        uint64_t now = clock_ns();
        if (!*timed_out && now - start >= timeout * s) {
            cli_line("retrace: record: %s did not finish within %u s: ending it (SIGTERM, then "
                     "SIGKILL after %d s)",
                     name, timeout, GRACE_S);
            kill(pid, SIGTERM);
            *timed_out = 1;
            term_at = now;
        } else if (*timed_out && !killed && now - term_at >= GRACE_S * s) {
            cli_line("retrace: record: %s still runs %d s after SIGTERM: killing it (SIGKILL)",
                     name, GRACE_S);
            kill(pid, SIGKILL);
            killed = 1;
        }
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
    }
}

static int run_command(char **argv, unsigned timeout, int *status, int *timed_out)
{
    /* The program gets the terminal's signals; record outlives them to assemble. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_term;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGTERM, &ign, &old_term);
    pid_t pid = fork();
    if (pid < 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        return cli_error("record: cannot start %s: %s", argv[0], strerror(errno));
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        execvp(argv[0], argv);
        char line[PATH_MAX + 256], out[4 * sizeof line]; /* not cli_line: stdout is not ours */
        snprintf(line, sizeof line, "retrace: record: cannot run %s: %s", argv[0], strerror(errno));
        fprintf(stderr, "%s\n", rt_escape(out, sizeof out, line));
        _exit(127);
    }
    int st = 0;
    int rc = wait_command(pid, argv[0], timeout, &st, timed_out);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc)
        return rc;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    return 0;
}

typedef struct record_opts {
    const char *out, *tracer;
    int histogram, trace, keep_raw, force;
    unsigned nodes, modules;
    unsigned timeout; /* seconds, 0: none */
    char **command;   /* the program to run, with its arguments */
} record_opts;

/* CLI_OK with o filled, -1 after --help, or CLI_BAD (reported). */
static int parse(int argc, char **argv, record_opts *o)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"histogram", no_argument, NULL, 'H'},
        {"no-trace", no_argument, NULL, 'N'},
        {"nodes", required_argument, NULL, 'n'},
        {"modules", required_argument, NULL, 'm'},
        {"keep-raw", no_argument, NULL, 'k'},
        {"tracer", required_argument, NULL, 't'},
        {"force", no_argument, NULL, 'f'},
        {"timeout", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    int c;
    o->trace = 1;
    opterr = 0;
    optind = 0; /* glibc: a full restart, also of the state a previous scan left */
    /* '+': stop at the first non-option, so the command's own options stay its own. */
    while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            record_usage(stdout);
            return -1;
        case 'o':
            o->out = optarg;
            break;
        case 'H':
            o->histogram = 1;
            break;
        case 'N':
            o->trace = 0;
            break;
        case 'k':
            o->keep_raw = 1;
            break;
        case 'f':
            o->force = 1;
            break;
        case 't':
            o->tracer = optarg;
            break;
        case 'n':
            if (parse_count("--nodes", optarg, &o->nodes))
                return CLI_BAD;
            break;
        case 'm':
            if (parse_count("--modules", optarg, &o->modules))
                return CLI_BAD;
            break;
        case 'T': {
            uint64_t v;
            if (rt_parse_uint(optarg, 1, MAX_TIMEOUT, &v, NULL) < 0)
                return cli_usage_error(&cli_cmd_record,
                                       "--timeout: takes whole seconds from 1 to %d, not '%s'",
                                       MAX_TIMEOUT, optarg);
            o->timeout = (unsigned)v;
            break;
        }
        default:
            return cli_getopt_error(&cli_cmd_record, c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error(&cli_cmd_record, "no command to run (put it after --)");
    o->command = argv + optind;
    if (o->modules && !o->nodes)
        return cli_usage_error(&cli_cmd_record, "--modules: needs --nodes");
    rt_err why; /* the ranks are known once the program runs: the tracer checks them */
    if (o->modules && rt_place_check_emulated(0, o->nodes, o->modules, &why) < 0)
        return cli_usage_error(&cli_cmd_record, "--modules: %s", why.msg);
    if (!o->trace && o->out)
        return cli_usage_error(&cli_cmd_record, "--out: not with --no-trace (no trace is written)");
    return CLI_OK;
}

/* Where the trace goes: its name as given (or dated), the absolute path, the raw files. */
typedef struct record_paths {
    char name[PATH_MAX], path[PATH_MAX], raw[PATH_MAX + 8];
} record_paths;

static int trace_paths(const record_opts *o, record_paths *p)
{
    if (o->out) {
        snprintf(p->name, sizeof p->name, "%s", o->out);
        for (size_t n = strlen(p->name); n > 1 && p->name[n - 1] == '/';)
            p->name[--n] = '\0'; /* "run1/" is run1, and its raw files run1.raw */
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(p->name, sizeof p->name, "retrace-%Y%m%d-%H%M%S", &tm);
    }
    if (p->name[0] == '/') {
        snprintf(p->path, sizeof p->path, "%s", p->name);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd) ||
            (size_t)snprintf(p->path, sizeof p->path, "%s/%s", cwd, p->name) >= sizeof p->path)
            return cli_error("record: %s: path too long", p->name);
    }
    snprintf(p->raw, sizeof p->raw, "%s.raw", p->path);
    return CLI_OK;
}

/* Before the program starts: where the trace goes must be writable, and nothing is
 * overwritten without --force (the tracer could only warn, once the program runs). */
static int claim_paths(const record_opts *o, const record_paths *p)
{
    const char *name = p->name;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", p->path);
    char *slash = strrchr(dir, '/');
    slash[slash == dir] = '\0'; /* path is absolute: "/x" is in "/" */
    if (access(dir, W_OK | X_OK) != 0)
        return cli_error("record: %s: cannot write the trace: %s: %s", name, dir, strerror(errno));
    if (!o->force && !rt_path_is_free(p->raw))
        return cli_usage_error(&cli_cmd_record,
                               "--out: %s.raw: exists (the raw files of an earlier run? "
                               "'retrace convert %s.raw %s' assembles them; --force removes "
                               "them)",
                               name, name, name);
    if (cli_out_claim(&cli_cmd_record, "--out", name, RT_FMT_OTF2, o->force, NULL))
        return CLI_BAD;
    if (!rt_path_is_free(p->raw)) {
        rt_raw_remove(p->raw);
        if (!rt_path_is_free(p->raw))
            return cli_usage_error(&cli_cmd_record,
                                   "--out: %s.raw: holds other files besides raw trace files: "
                                   "not removed",
                                   name);
    }
    return CLI_OK;
}

/* The tracer's settings, for the program and everything it starts. */
static void set_environment(const record_opts *o, const char *lib, const record_paths *p)
{
    char preload[2 * PATH_MAX];
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? " " : "", old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv("RETRACE_TRACE", o->trace ? "1" : "0", 1);
    if (o->trace)
        setenv("RETRACE_OUT", p->path, 1);
    if (o->histogram)
        setenv("RETRACE_HISTOGRAM", "1", 1);
    if (o->keep_raw)
        setenv("RETRACE_KEEP_RAW", "1", 1);
    if (o->nodes) {
        char em[64];
        snprintf(em, sizeof em, "nodes=%u,modules=%u", o->nodes, o->modules ? o->modules : 1);
        setenv("RETRACE_EMULATE", em, 1);
    }
}

/* 1 when the archive at path says it was cut short: a rank did not reach MPI_Finalize. */
static int cut_short(const char *path)
{
    rt_reader *r;
    rt_err err;
    if (rt_reader_open(path, &r, &err) < 0)
        return 0; /* no archive: collect said so */
    int cut = rt_reader_truncated(r) != NULL;
    rt_reader_close(r);
    return cut;
}

/* After the program: the archive MPI_Finalize wrote, or one assembled from the raw files of
 * a run that died, or a warning that there is none. */
static void collect(const record_opts *o, const record_paths *p, int status)
{
    char anchor[PATH_MAX + 16];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", p->path);
    char defs0[PATH_MAX + 32];
    snprintf(defs0, sizeof defs0, "%s/r0.defs.rtr", p->raw);
    if (exists(anchor)) {
        cli_line("retrace: trace written to %s", p->name);
    } else if (exists(defs0)) {
        /* No archive: the run ended before MPI_Finalize could assemble it, or MPI_Finalize
         * could not (the tracer warned why). The trace assembled now tells which: every thread
         * of a run that finished closed its file. */
        if (cli_convert(p->raw, p->path, RT_FMT_OTF2) != CLI_OK) {
            cli_warning("no archive was written (exit status %d), and none could be assembled "
                        "from %s.raw (above): the raw trace stays there",
                        status, p->name);
            return;
        }
        if (cut_short(p->path))
            cli_warning("the program ended before MPI_Finalize (exit status %d); the trace "
                        "holds what it recorded",
                        status);
        else
            cli_warning("every rank reached MPI_Finalize, but no archive was written there "
                        "(exit status %d; the tracer's warning above says why): assembled "
                        "afterwards",
                        status);
        cli_line("retrace: trace written to %s", p->name);
        if (!o->keep_raw)
            rt_raw_remove(p->raw);
    } else {
        cli_warning("no trace was recorded (did %s start MPI programs linked against a shared "
                    "MPI library?)",
                    o->command[0]);
    }
}

/* After a run that timed out or failed: the built-in engine replays the trace with the
 * default model, and when the replay cannot go on, its report (which ranks are blocked in
 * what, the wait-for cycle, the time of the hang) goes to stderr, where it does not mix with
 * the program's own output (docs/replay.md). */
static void hang_report(const char *path, int timed_out)
{
    rt_reader *r = NULL;
    rt_sim_trace *t = NULL;
    rt_err err;
    if (rt_reader_open(path, &r, &err) < 0 || rt_sim_trace_load(r, &t, &err) < 0) {
        if (r)
            rt_reader_close(r);
        return; /* no archive (collect said so), or one replay would refuse likewise */
    }
    rt_reader_close(r);
    rt_sim_config c;
    rt_sim_config_default(&c);
    rt_sim_result res;
    if (rt_sim_run(t, &c, &res, &err) < 0) {
        cli_warning("cannot replay the trace to tell where the run hung: %s", err.msg);
    } else if (!res.completed) {
        fprintf(stderr,
                "retrace: record: the replay of the trace (built-in model) cannot go "
                "on:\n%s",
                res.report ? res.report : "");
    } else if (timed_out) {
        const rt_sim_trace_end *e = rt_sim_trace_end_of(t);
        fprintf(stderr,
                "retrace: record: the replay of the trace (built-in model) completes: no "
                "deadlock shows in what was recorded (%u of %u ranks did not reach "
                "MPI_Finalize, %u of them in a call that never returned)\n",
                (unsigned)e->unfinished, (unsigned)res.nranks, (unsigned)e->pending);
    }
    rt_sim_result_free(&res);
    rt_sim_trace_free(t);
}

/* The tracer library for the command, its absolute path in lib: --tracer FILE, else
 * RETRACE_TRACER, else the one built for the MPI library the program uses (record_mpi.c). When
 * that cannot be told, warn (a line for once the outputs are claimed) says what record does. */
static int choose_tracer(const record_opts *o, char *lib, char *warn, size_t warn_len)
{
    const char *given = o->tracer ? o->tracer : getenv("RETRACE_TRACER");
    if (given && *given) {
        if (access(given, R_OK) != 0 || !realpath(given, lib))
            return cli_error("record: %s: %s", given, strerror(errno));
        return CLI_OK;
    }
    record_mpi_guess g;
    record_mpi_of(o->command, &g);
    const char *file = g.mpi == RECORD_MPI_OPENMPI ? "libretrace-openmpi.so" : "libretrace.so";
    if (g.mpi == RECORD_MPI_UNKNOWN)
        snprintf(warn, warn_len,
                 "cannot tell which MPI library %s uses (%s): preloading MPICH's tracer "
                 "(--tracer FILE chooses another)",
                 g.program ? g.program : o->command[0], g.why);
    if (find_tracer(file, lib, PATH_MAX) == 0)
        return CLI_OK;
    if (g.mpi == RECORD_MPI_OPENMPI)
        return cli_error("record: %s uses Open MPI (%s), and retrace was built without its "
                         "tracer %s (install Open MPI's development files, Debian: "
                         "libopenmpi-dev, and build again; or --tracer FILE)",
                         g.program ? g.program : o->command[0],
                         g.library[0] ? g.library : g.launcher, file);
    return cli_error("record: cannot find the tracer library %s next to retrace (use --tracer "
                     "FILE or RETRACE_TRACER)",
                     file);
}

static int record_run(int argc, char **argv)
{
    record_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    char lib[PATH_MAX], warn[PATH_MAX + 256] = "";
    if (choose_tracer(&o, lib, warn, sizeof warn) != CLI_OK)
        return CLI_BAD;
    record_paths p;
    if (trace_paths(&o, &p) != CLI_OK || (o.trace && claim_paths(&o, &p) != CLI_OK))
        return CLI_BAD;
    if (warn[0])
        cli_warning("%s", warn);
    set_environment(&o, lib, &p);
    char **cmd = record_mpi_forward(o.command); /* Open MPI: the settings to every node */
    if (!cmd)
        return cli_error("record: cannot name the tracer's variables for Open MPI's %s (out "
                         "of memory, or OMPI_MCA_mca_base_env_list too long)",
                         o.command[0]);
    int status = 0, timed_out = 0;
    int run_rc = run_command(cmd, o.timeout, &status, &timed_out);
    if (cmd != o.command)
        free(cmd);
    if (run_rc)
        return CLI_BAD;
    if (o.trace)
        collect(&o, &p, status);
    int cut = o.trace && !timed_out && status == 0 && cut_short(p.path);
    if (o.trace && (timed_out || status != 0 || cut))
        hang_report(p.path, timed_out);
    if (timed_out)
        return TIMED_OUT;
    if (cut) {
        cli_warning("%s exited 0, but the run did not reach MPI_Finalize on every rank (the "
                    "trace is cut short): exit status 1",
                    o.command[0]);
        return CLI_FAIL;
    }
    return status;
}

const cli_command cli_cmd_record = {"record", "run an MPI program under the tracer", record_run,
                                    record_usage};
