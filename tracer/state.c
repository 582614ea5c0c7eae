/*
 * The tracer's life cycle: settings from the environment at MPI_Init, node and module ids,
 * the output directory, and at MPI_Finalize the live histogram and the assembly of the
 * OTF2 archive from the raw files. Every decision that must be the same on all ranks is
 * taken by world rank 0 and broadcast on the tool communicator, so a rank with a different
 * environment cannot make the tracer's own collectives mismatch.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__tracer.h"
#include "rt_place_mpi.h"
#include "rt_trace.h"

rt__state rt__g;

static atomic_int failed;

void rt__warn(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char out[4 * sizeof buf]; /* settings and paths may hold control characters */
    fprintf(stderr, "retrace: warning: %s\n", rt_escape(out, sizeof out, buf));
}

void rt__fail(const char *fmt, ...)
{
    __atomic_store_n(&rt__g.tracing, 0, __ATOMIC_RELAXED);
    if (atomic_exchange(&failed, 1))
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char out[4 * sizeof buf];
    fprintf(stderr,
            "retrace: warning: %s; tracing is off for this rank, the application "
            "carries on\n",
            rt_escape(out, sizeof out, buf));
}

/* ---- environment -------------------------------------------------------------------------- */

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* 1/0 for yes/no words, else the default with a warning (from rank 0 only). */
static int env_flag(const char *name, int deflt)
{
    const char *v = env(name);
    if (!v)
        return deflt;
    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") || !strcasecmp(v, "true"))
        return 1;
    if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") || !strcasecmp(v, "false"))
        return 0;
    if (rt__g.rank == 0)
        rt__warn("%s=%s: expected 1 or 0; using %d", name, v, deflt);
    return deflt;
}

/* The first of the two variables that holds an id (rt_place_env_id), with a warning for one
 * that is set but not a number. */
static int env_id(const char *a, const char *b, uint32_t *out)
{
    const char *bad;
    int found = rt_place_env_id(a, b, out, &bad);
    if (bad)
        rt__warn("rank %d: %s=%s is not a number; ignored", rt__g.rank, bad, getenv(bad));
    return found;
}

/* Node and module of this process (DESIGN.md, "Connection types"). */
static void locate(int emulate, uint32_t nodes, uint32_t modules)
{
    uint32_t r = (uint32_t)rt__g.rank;
    if (emulate) {
        rt_place_emulated(r, (uint32_t)rt__g.nranks, nodes, modules, &rt__g.node, &rt__g.module);
        return;
    }
    /* Collective, so every rank takes part even when its own variables are set. */
    uint32_t node = r, v;
    rt_place_shared_node(rt__g.tool, MPI_COMM_WORLD, &node);
    rt__g.node = env_id(RT_PLACE_NODE_VARS, &v) ? v : node;
    if (env_id(RT_PLACE_MODULE_VARS, &v)) {
        rt__g.module = v;
        return;
    }
    rt__g.module = rt_place_info_module(&v) ? v : 0;
}

/* ---- output directory (rank 0) -------------------------------------------------------------- */

/* Chooses the archive and raw directories and creates the raw one. 0, or -RT_E_INVAL (a
 * path that cannot be used) or -RT_E_IO (a system call failed), warned. */
static int choose_output(void)
{
    const char *out = env("RETRACE_OUT");
    char name[PATH_MAX];
    if (out) {
        if (strlen(out) >= sizeof name - 8) {
            rt__warn("RETRACE_OUT is too long; not tracing");
            return -RT_E_INVAL;
        }
        strcpy(name, out);
        size_t n = strlen(name);
        while (n > 1 && name[n - 1] == '/')
            name[--n] = 0;
        struct stat st;
        if (stat(name, &st) != 0 && errno != ENOENT) {
            rt__warn("RETRACE_OUT=%s: %s; not tracing", out, strerror(errno));
            return -RT_E_IO;
        }
        if (!rt_path_is_free(name)) {
            rt__warn("RETRACE_OUT=%s: exists and is not an empty directory; not tracing "
                     "(nothing is overwritten)",
                     out);
            return -RT_E_INVAL;
        }
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char base[64];
        strftime(base, sizeof base, "retrace-%Y%m%d-%H%M%S", &tm);
        strcpy(name, base);
        for (int i = 2; i < 1000; i++) {
            char raw[PATH_MAX + 8];
            snprintf(raw, sizeof raw, "%s.raw", name);
            if (rt_path_is_free(name) && rt_path_is_free(raw))
                break;
            snprintf(name, sizeof name, "%s-%d", base, i);
        }
    }
    char cwd[PATH_MAX];
    const char *dir = "";
    if (name[0] != '/') {
        if (!getcwd(cwd, sizeof cwd)) {
            rt__warn("cannot tell the working directory; not tracing");
            return -RT_E_IO;
        }
        dir = cwd;
    }
    size_t dl = strlen(dir), nl = strlen(name);
    if (dl + nl + 8 >= sizeof rt__g.out) {
        rt__warn("%s: path too long; not tracing", name);
        return -RT_E_INVAL;
    }
    char *o = rt__g.out;
    memcpy(o, dir, dl);
    if (dl)
        o[dl++] = '/';
    memcpy(o + dl, name, nl + 1);
    memcpy(rt__g.raw, o, dl + nl);
    memcpy(rt__g.raw + dl + nl, ".raw", 5);
    if (!rt_path_is_free(rt__g.raw)) {
        rt__warn("%s: exists and is not empty (the raw files of an earlier run?); not tracing",
                 rt__g.raw);
        return -RT_E_INVAL;
    }
    if (mkdir(rt__g.raw, 0777) != 0 && errno != EEXIST) {
        rt__warn("cannot create %s: %s; not tracing", rt__g.raw, strerror(errno));
        return -RT_E_IO;
    }
    return 0;
}

/*
 * The calls histogram-only mode still intercepts: those that send (counted once each), and
 * those that keep the state counting needs: communicators for the connection-type filter,
 * persistent sends for their starts, partitioned sends for the Pready that sends them. Every other
 * call goes straight to PMPI.
 */
static void choose_histogram_calls(void)
{
    static const char *const senders[] = {"Send",
                                          "Bsend",
                                          "Ssend",
                                          "Rsend",
                                          "Isend",
                                          "Ibsend",
                                          "Issend",
                                          "Irsend",
                                          "Sendrecv",
                                          "Sendrecv_replace",
                                          "Send_init",
                                          "Bsend_init",
                                          "Ssend_init",
                                          "Rsend_init",
                                          "Start",
                                          "Startall",
                                          "Isendrecv",
                                          "Request_free",
                                          "Isendrecv_replace",
                                          "Psend_init",
                                          "Pready",
                                          "Pready_range",
                                          "Pready_list"};
    memset(rt__g.hist_fn, 0, sizeof rt__g.hist_fn);
    if (!rt__g.histogram)
        return;
    for (unsigned fn = 1; fn < RT_FN_COUNT; fn++) {
        char base[64];
        snprintf(base, sizeof base, "%s", rt_func_name(fn) + 4); /* without "MPI_" */
        size_t n = strlen(base);
        if (n > 2 && !strcmp(base + n - 2, "_c"))
            base[n - 2] = 0; /* a large-count form counts like its base */
        int hook = rt_func_class_of(fn) == RT_CLASS_COMM;
        for (size_t i = 0; !hook && i < sizeof senders / sizeof *senders; i++)
            hook = !strcmp(base, senders[i]);
        rt__g.hist_fn[fn] = (uint8_t)hook;
    }
}

/* ---- MPI_Init ------------------------------------------------------------------------------- */

/* What rank 0 decides for everybody. */
typedef struct shared_settings {
    int tracing, histogram;
    rt_hist_config hist;
    char out[4096];
} shared_settings;

static void read_histogram_settings(shared_settings *s)
{
    s->histogram = env_flag("RETRACE_HISTOGRAM", 0) | env_flag("PSP_HISTOGRAM", 0);
    const char *names[4] = {"MIN", "MAX", "SHIFT", "CONTYPE"};
    const char *vals[4];
    int ours = 0;
    char var[64];
    for (int i = 0; i < 4; i++) {
        snprintf(var, sizeof var, "RETRACE_HISTOGRAM_%s", names[i]);
        ours |= env(var) != NULL;
    }
    const char *prefix = ours ? "RETRACE_HISTOGRAM" : "PSP_HISTOGRAM";
    for (int i = 0; i < 4; i++) {
        snprintf(var, sizeof var, "%s_%s", prefix, names[i]);
        vals[i] = env(var);
    }
    char warnings[2048];
    if (rt_hist_config_from_env(&s->hist, prefix, vals[0], vals[1], vals[2], vals[3], warnings,
                                sizeof warnings) > 0 &&
        s->histogram) {
        for (char *line = warnings, *nl; *line; line = nl + 1) {
            nl = strchr(line, '\n');
            if (!nl)
                break;
            *nl = 0;
            rt__warn("%s", line);
        }
    }
}

void rt__init_after(int thread_level)
{
    if (atomic_load(&rt__g.phase))
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rt__g.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &rt__g.nranks);
    rt__clock_start();
    rt__status_direct_check();
#ifdef RT__COST
    rt__cost_init();
#endif
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen = 0;
    if (PMPI_Get_library_version(version, &vlen) == MPI_SUCCESS && vlen > 0) {
        version[vlen < (int)sizeof version ? vlen : (int)sizeof version - 1] = '\0';
        rt_library_name(version, rt__g.library, sizeof rt__g.library);
    }
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &rt__g.tool) != MPI_SUCCESS) {
        if (rt__g.rank == 0)
            rt__warn("cannot duplicate MPI_COMM_WORLD for the tracer; not tracing");
        return;
    }
    rt__g.mt = thread_level == MPI_THREAD_MULTIPLE;

    shared_settings s;
    memset(&s, 0, sizeof s);
    uint32_t nodes = 0, modules = 0;
    const char *em = env(RT_PLACE_EMULATE_VAR);
    int emulate = em && rt_place_parse_emulate(em, &nodes, &modules) == 0;
    if (em && !emulate && rt__g.rank == 0)
        rt__warn("RETRACE_EMULATE=%s: expected nodes=N,modules=M with N, M >= 1; not "
                 "emulating",
                 em);
    rt_err why; /* a shape with empty nodes or modules: the same on every rank */
    if (emulate && rt_place_check_emulated((uint32_t)rt__g.nranks, nodes, modules, &why) < 0) {
        emulate = 0;
        if (rt__g.rank == 0)
            rt__warn("RETRACE_EMULATE=%s: %s; not emulating", em, why.msg);
    }
    if (rt__g.rank == 0) {
        s.tracing = env_flag("RETRACE_TRACE", 1);
        read_histogram_settings(&s);
        if (s.tracing && choose_output() < 0)
            s.tracing = 0;
        memcpy(s.out, rt__g.out, sizeof s.out);
    }
    PMPI_Bcast(&s, (int)sizeof s, MPI_BYTE, 0, rt__g.tool);
    rt__g.tracing = s.tracing;
    rt__g.histogram = s.histogram;
    rt__g.hist_report = s.histogram;
    rt__g.hist_cfg = s.hist;
    rt__g.need_contype = s.histogram && s.hist.contype >= 0;
    choose_histogram_calls();
    memcpy(rt__g.out, s.out, sizeof rt__g.out);
    size_t ol = strnlen(rt__g.out, sizeof rt__g.out - 8);
    memcpy(rt__g.raw, rt__g.out, ol);
    memcpy(rt__g.raw + ol, ".raw", 5);

    locate(emulate, nodes, modules);
    size_t n = (size_t)rt__g.nranks;
    uint32_t *both = malloc(2 * n * sizeof *both);
    uint32_t mine[2] = {rt__g.node, rt__g.module};
    int ok = both != NULL;
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, rt__g.tool);
    if (!all_ok) {
        free(both);
        if (rt__g.rank == 0)
            rt__warn("out of memory for the node table; not tracing");
        return;
    }
    PMPI_Allgather(mine, 2, MPI_UINT32_T, both, 2, MPI_UINT32_T, rt__g.tool);
    rt__g.node_of = malloc(n * sizeof *rt__g.node_of);
    rt__g.module_of = malloc(n * sizeof *rt__g.module_of);
    if (!rt__g.node_of || !rt__g.module_of) {
        rt__fail("rank %d: out of memory for the node table", rt__g.rank);
        rt__g.histogram = 0; /* nothing to count with; rank 0 still reduces zeros */
    } else {
        for (size_t i = 0; i < n; i++) {
            rt__g.node_of[i] = both[2 * i];
            rt__g.module_of[i] = both[2 * i + 1];
        }
    }
    free(both);

    rt__tables_init();
    rt__requests_init();
    PMPI_Barrier(rt__g.tool);
    rt__clock_origin();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    rt__g.origin_realtime = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (rt__g.tracing && rt__defs_open() == 0)
        rt__host_write();
    rt__thread_get(); /* thread 0: the one that initialised MPI */
    if (rt__g.tracing)
        rt__crash_start(); /* the flusher thread, the signal and exit handlers */
    atomic_store(&rt__g.phase, 1);
}

/* ---- MPI_Finalize --------------------------------------------------------------------------- */

static void report_histogram(int counted)
{
    rt_hist mine;
    rt_hist_init(&mine, &rt__g.hist_cfg);
    if (counted)
        rt__threads_hist(&mine);
    rt_hist sum = mine;
    PMPI_Reduce(mine.count, sum.count, (int)rt_hist_nbins(&mine), MPI_UINT64_T, MPI_SUM, 0,
                rt__g.tool);
    if (rt__g.rank == 0) {
        rt_hist_write_text(&sum, stdout);
        fflush(stdout);
    }
}

/* Rank 0 turns the raw files of all ranks into the OTF2 archive. */
static void assemble(void)
{
    rt_err err;
    rt_reader *r = NULL;
    rt_writer *w = NULL;
    int rc = rt_reader_open(rt__g.raw, &r, &err);
    if (rc == 0)
        rc = rt_writer_open(rt__g.out, RT_FMT_OTF2, rt_reader_defs(r), &w, &err);
    rt_event ev;
    while (rc == 0 && (rc = rt_reader_next(r, &ev, &err)) > 0)
        rc = rt_writer_write(w, &ev, &err); /* 0 or a negative code */
    if (rc == 0 && rt_reader_truncated(r))
        rc = rt_writer_set_truncated(w, rt_reader_truncated(r), &err);
    if (rc == 0) {
        rc = rt_writer_close(w, &err);
        w = NULL;
    }
    if (rc < 0) {
        if (w)
            rt_writer_abort(w);
        rt__warn("cannot write the OTF2 archive %s: %s; the raw trace stays in %s "
                 "('retrace convert %s %s' retries)",
                 rt__g.out, err.msg, rt__g.raw, rt__g.raw, rt__g.out);
    } else {
        if (rt_reader_truncated(r))
            rt__warn("the trace is incomplete: %s", rt_reader_truncated(r));
        if (!env_flag("RETRACE_KEEP_RAW", 0))
            rt_raw_remove(rt__g.raw);
    }
    rt_reader_close(r);
}

void rt__finalize_before(void)
{
    if (!atomic_load(&rt__g.phase))
        return;
    atomic_store(&rt__g.phase, 0);
    int traced = rt__g.tracing;
    rt__crash_stop();
    rt__clock_calibrate();
    rt__threads_close(rt__now());
    rt__defs_close();
    if (rt__g.hist_report)
        report_histogram(rt__g.histogram);
    /* Rank 0 may read the raw files once every rank has closed its own. */
    int any = 0;
    PMPI_Reduce(&traced, &any, 1, MPI_INT, MPI_MAX, 0, rt__g.tool);
    if (rt__g.rank == 0 && any)
        assemble();
    rt__requests_free();
    rt__groups_free();
    rt__tables_free();
    free(rt__g.node_of);
    free(rt__g.module_of);
    rt__g.node_of = rt__g.module_of = NULL;
    PMPI_Comm_free(&rt__g.tool);
}

void rt__abort_before(void)
{
    /* Every thread's records so far reach the file: MPI_Abort does not return, and the
     * other ranks may be killed without warning (MPICH's mpiexec sends them SIGKILL). */
    atomic_store(&rt__g.phase, 0);
    rt__crash_flush_all();
}
