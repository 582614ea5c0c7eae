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

static void record_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace record [OPTIONS] -- COMMAND [ARGS...]\n"
            "\n"
            "Runs COMMAND (typically mpiexec -n P ./app) with the retrace tracer preloaded\n"
            "and leaves one OTF2 archive for the run. The exit status is COMMAND's.\n"
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
            "  --tracer FILE    the tracer library (default: the one built with retrace)\n"
            "\n"
            "While the program runs, each rank writes raw files to DIR.raw; they become the\n"
            "archive at MPI_Finalize. If the run dies (a signal, MPI_Abort), record assembles\n"
            "what was written into a trace that readers report as truncated.\n");
}

/* The tracer next to this executable: build tree (tracer/) or installed (../lib/retrace/). */
static int find_tracer(char *out, size_t len)
{
    const char *env = getenv("RETRACE_TRACER");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    const char *rel[] = {"tracer/libretrace.so", "../lib/retrace/libretrace.so"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        if ((size_t)snprintf(out, len, "%s/%s", exe, rel[i]) < len && access(out, R_OK) == 0)
            return 0;
    }
    return -1;
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

static int run_command(char **argv, int *status)
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
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    return 0;
}

static int record_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},     {"histogram", no_argument, NULL, 'H'},
        {"no-trace", no_argument, NULL, 'N'},      {"nodes", required_argument, NULL, 'n'},
        {"modules", required_argument, NULL, 'm'}, {"keep-raw", no_argument, NULL, 'k'},
        {"tracer", required_argument, NULL, 't'},  {"force", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},          {0},
    };
    const char *out = NULL, *tracer = NULL;
    int histogram = 0, trace = 1, keep_raw = 0, force = 0;
    unsigned nodes = 0, modules = 0;
    int c;
    opterr = 0;
    optind = 1;
    /* '+': stop at the first non-option, so the command's own options stay its own. */
    while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            record_usage(stdout);
            return CLI_OK;
        case 'o':
            out = optarg;
            break;
        case 'H':
            histogram = 1;
            break;
        case 'N':
            trace = 0;
            break;
        case 'k':
            keep_raw = 1;
            break;
        case 'f':
            force = 1;
            break;
        case 't':
            tracer = optarg;
            break;
        case 'n':
            if (parse_count("--nodes", optarg, &nodes))
                return CLI_BAD;
            break;
        case 'm':
            if (parse_count("--modules", optarg, &modules))
                return CLI_BAD;
            break;
        default:
            return cli_getopt_error(&cli_cmd_record, c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error(&cli_cmd_record, "no command to run (put it after --)");
    if (modules && !nodes)
        return cli_usage_error(&cli_cmd_record, "--modules: needs --nodes");
    rt_err why; /* the ranks are known once the program runs: the tracer checks them */
    if (modules && rt_place_check_emulated(0, nodes, modules, &why) < 0)
        return cli_usage_error(&cli_cmd_record, "--modules: %s", why.msg);
    if (!trace && out)
        return cli_usage_error(&cli_cmd_record, "--out: not with --no-trace (no trace is written)");

    char lib[PATH_MAX];
    if (tracer) {
        if (access(tracer, R_OK) != 0)
            return cli_error("record: %s: %s", tracer, strerror(errno));
        if (!realpath(tracer, lib))
            return cli_error("record: %s: %s", tracer, strerror(errno));
    } else if (find_tracer(lib, sizeof lib) < 0) {
        return cli_error("record: cannot find the tracer library libretrace.so next to retrace "
                         "(use --tracer FILE or RETRACE_TRACER)");
    }

    char name[PATH_MAX], path[PATH_MAX], raw[PATH_MAX + 8];
    if (out) {
        snprintf(name, sizeof name, "%s", out);
        for (size_t n = strlen(name); n > 1 && name[n - 1] == '/';)
            name[--n] = '\0'; /* "run1/" is run1, and its raw files run1.raw */
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(name, sizeof name, "retrace-%Y%m%d-%H%M%S", &tm);
    }
    if (name[0] == '/') {
        snprintf(path, sizeof path, "%s", name);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd) ||
            (size_t)snprintf(path, sizeof path, "%s/%s", cwd, name) >= sizeof path)
            return cli_error("record: %s: path too long", name);
    }
    snprintf(raw, sizeof raw, "%s.raw", path);
    /* Before the program starts: where the trace goes must be writable, and nothing is
     * overwritten without --force (the tracer could only warn, once the program runs). */
    if (trace) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        slash[slash == dir] = '\0'; /* path is absolute: "/x" is in "/" */
        if (access(dir, W_OK | X_OK) != 0)
            return cli_error("record: %s: cannot write the trace: %s: %s", name, dir,
                             strerror(errno));
        if (!force && !rt_path_is_free(raw))
            return cli_usage_error(&cli_cmd_record,
                                   "--out: %s.raw: exists (the raw files of an earlier run? "
                                   "'retrace convert %s.raw %s' assembles them; --force removes "
                                   "them)",
                                   name, name, name);
        if (cli_out_claim(&cli_cmd_record, "--out", name, RT_FMT_OTF2, force, NULL))
            return CLI_BAD;
        if (!rt_path_is_free(raw)) {
            rt_raw_remove(raw);
            if (!rt_path_is_free(raw))
                return cli_usage_error(&cli_cmd_record,
                                       "--out: %s.raw: holds other files besides raw trace files: "
                                       "not removed",
                                       name);
        }
    }

    char preload[2 * PATH_MAX];
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? " " : "", old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv("RETRACE_TRACE", trace ? "1" : "0", 1);
    if (trace)
        setenv("RETRACE_OUT", path, 1);
    if (histogram)
        setenv("RETRACE_HISTOGRAM", "1", 1);
    if (keep_raw)
        setenv("RETRACE_KEEP_RAW", "1", 1);
    if (nodes) {
        char em[64];
        snprintf(em, sizeof em, "nodes=%u,modules=%u", nodes, modules ? modules : 1);
        setenv("RETRACE_EMULATE", em, 1);
    }

    int status = 0;
    if (run_command(argv + optind, &status))
        return CLI_BAD;
    if (!trace)
        return status;

    char anchor[PATH_MAX + 16];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", path);
    char defs0[PATH_MAX + 32];
    snprintf(defs0, sizeof defs0, "%s/r0.defs.rtr", raw);
    if (exists(anchor)) {
        cli_line("retrace: trace written to %s", name);
    } else if (exists(defs0)) {
        /* The run ended before MPI_Finalize could assemble the archive. */
        cli_warning("the program ended before MPI_Finalize (exit status %d); assembling what "
                    "it recorded",
                    status);
        if (cli_convert(raw, path, RT_FMT_OTF2) == CLI_OK) {
            cli_line("retrace: trace written to %s", name);
            if (!keep_raw)
                rt_raw_remove(raw);
        }
    } else {
        cli_warning("no trace was recorded (did %s start MPI programs linked against a shared "
                    "MPI library?)",
                    argv[optind]);
    }
    return status;
}

const cli_command cli_cmd_record = {"record", "run an MPI program under the tracer", record_run,
                                    record_usage};
