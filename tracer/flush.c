/*
 * How a run that dies keeps its trace (docs/tracer.md, "A run that dies"). Each thread
 * publishes after every call how far its buffer holds whole calls (stream.c); from there:
 *
 *  - The flusher, a thread started at MPI_Init and stopped at MPI_Finalize, writes every
 *    thread's newly committed records each RT__FLUSH_PERIOD_NS. It takes a buffer's lock
 *    only when free (the owner may be writing a full one) and blocks every signal, so that
 *    the application's signals go to the application's threads. A process killed without
 *    warning (SIGKILL) loses what was committed since the flusher's last round.
 *  - The signals that end a process and can be caught (SIGTERM, SIGINT, SIGHUP, SIGQUIT:
 *    timeout, Slurm, Ctrl-C; SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: a crash) get a
 *    handler, unless the application ignores the signal. It writes every thread's
 *    committed records with async-signal-safe calls only (atomics, pwrite, nanosleep), then
 *    puts back the action the signal had before MPI_Init (the application's handler, MPI's
 *    or the default) and sends the signal again, so that the process goes on as it would
 *    have without the tracer: the application's handler runs, or the process dies of it. A
 *    fault the kernel raised (a SIGSEGV with si_code > 0, ...) is not sent again: it comes
 *    again by itself when the faulting instruction is retried, with its own siginfo. The
 *    handler runs once per signal: an application that survives the signal keeps its own
 *    action, and the flusher still runs. A handler the application installs after MPI_Init
 *    replaces this one; then exit() (below) and the flusher still write.
 *  - MPI_Abort writes every thread before PMPI_Abort; exit() without MPI_Finalize (a rank
 *    that returns from main) writes every thread from an atexit handler. Neither writes a
 *    CLOSE record: the files stay cut short.
 *
 * A writer that finds a buffer's lock taken waits for it, up to CRASH_WAIT_NS in all (its
 * holder is writing, which takes a short time), except when it is this very thread, caught
 * by a signal in the middle of writing its own full buffer: that buffer holds nothing
 * committed that its write does not cover. A forked child (same memory, same files) writes
 * nothing: its copy of the buffers is the parent's.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt__tracer.h"

#define CRASH_WAIT_NS UINT64_C(1000000000)

static const int caught[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV,
                             SIGBUS,  SIGFPE, SIGILL, SIGABRT};
#define NCAUGHT (sizeof caught / sizeof *caught)
static struct sigaction previous[NCAUGHT]; /* the actions before ours */
static int installed[NCAUGHT];
static pid_t traced_pid;

static pthread_t flusher;
static int flusher_running, flusher_stop;
static pthread_mutex_t flusher_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flusher_cv;

/* ---- writing every thread ---------------------------------------------------------------- */

/* Takes t's lock, waiting until deadline (rt__mono) for its holder. 1 when taken; 0 when
 * it is held by this thread (interrupted by a signal) or the wait ran out. */
static int lock_until(rt__thread *t, uint64_t deadline)
{
    while (!rt__buf_trylock(t)) {
        if (atomic_load_explicit(&t->lock, memory_order_relaxed) == rt__lock_id() ||
            rt__mono() > deadline)
            return 0;
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
    }
    return 1;
}

/* Writes every thread's committed records. Async-signal-safe unless report is set (then a
 * failed write is reported, and tracing turned off). */
static void write_all(int report)
{
    if (!__atomic_load_n(&rt__g.tracing, __ATOMIC_RELAXED))
        return;            /* a write failed before: the files stay as they are */
    rt__clock_calibrate(); /* the times of a run cut short read right */
    uint64_t deadline = rt__mono() + CRASH_WAIT_NS;
    for (rt__thread *t = rt__threads_first(); t; t = t->next) {
        if (!lock_until(t, deadline))
            continue;
        int rc = rt__buf_write_all(t, 1);
        int err = errno;
        rt__buf_unlock(t);
        if (rc < 0 && report)
            rt__stream_write_failed(t, err);
    }
}

void rt__crash_flush_all(void)
{
    if (getpid() == traced_pid)
        write_all(1);
}

/* ---- the flusher ------------------------------------------------------------------------- */

static void flush_round(void)
{
    rt__clock_calibrate();
    for (rt__thread *t = rt__threads_first();
         t && __atomic_load_n(&rt__g.tracing, __ATOMIC_RELAXED); t = t->next) {
        if (!rt__buf_trylock(t))
            continue; /* its owner is writing it */
        int rc = rt__buf_write_all(t, 0);
        int err = errno;
        rt__buf_unlock(t);
        if (rc < 0)
            rt__stream_write_failed(t, err);
    }
}

static void *flusher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&flusher_mu);
    while (!flusher_stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + RT__FLUSH_PERIOD_NS;
        until.tv_sec += (time_t)(ns / 1000000000u);
        until.tv_nsec = (long)(ns % 1000000000u);
        while (!flusher_stop &&
               pthread_cond_timedwait(&flusher_cv, &flusher_mu, &until) != ETIMEDOUT)
            ;
        if (flusher_stop)
            break;
        pthread_mutex_unlock(&flusher_mu);
        flush_round();
        pthread_mutex_lock(&flusher_mu);
    }
    pthread_mutex_unlock(&flusher_mu);
    return NULL;
}

static void start_flusher(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&flusher_cv, &ca);
    pthread_condattr_destroy(&ca);
    flusher_stop = 0;
    /* The thread is born with every signal blocked. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&flusher, NULL, flusher_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        rt__warn("rank %d: cannot start the trace flusher thread (%s); a rank killed without "
                 "warning may lose more than its last 100 ms",
                 rt__g.rank, strerror(rc));
        pthread_cond_destroy(&flusher_cv);
        return;
    }
    flusher_running = 1;
}

static void stop_flusher(void)
{
    if (!flusher_running)
        return;
    pthread_mutex_lock(&flusher_mu);
    flusher_stop = 1;
    pthread_cond_signal(&flusher_cv);
    pthread_mutex_unlock(&flusher_mu);
    pthread_join(flusher, NULL);
    pthread_cond_destroy(&flusher_cv);
    flusher_running = 0;
}

/* ---- signals ----------------------------------------------------------------------------- */

static int is_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    int saved = errno;
    if (getpid() == traced_pid)
        write_all(0);
    for (size_t i = 0; i < NCAUGHT; i++)
        if (caught[i] == sig)
            sigaction(sig, &previous[i], NULL);
    if (!(is_fault(sig) && info && info->si_code > 0))
        raise(sig); /* pending until this handler returns, then taken by the action above */
    errno = saved;
}

static void install_handlers(void)
{
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_signal;
    sigemptyset(&ours.sa_mask); /* the others wait: a second one must not cut this one short */
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaddset(&ours.sa_mask, caught[i]);
    for (size_t i = 0; i < NCAUGHT; i++) {
        struct sigaction old;
        if (sigaction(caught[i], NULL, &old) != 0)
            continue;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)
            continue; /* ignored: it does not end the process */
        previous[i] = old;
        /* interrupted system calls go on as the application's action said */
        ours.sa_flags = SA_SIGINFO | SA_ONSTACK | (old.sa_flags & SA_RESTART);
        installed[i] = sigaction(caught[i], &ours, NULL) == 0;
    }
}

/* Puts back the actions of before, where ours is still in place. */
static void restore_handlers(void)
{
    for (size_t i = 0; i < NCAUGHT; i++) {
        struct sigaction cur;
        if (installed[i] && sigaction(caught[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
            cur.sa_sigaction == on_signal)
            sigaction(caught[i], &previous[i], NULL);
        installed[i] = 0;
    }
}

/* ---- start and stop ---------------------------------------------------------------------- */

/* exit() before MPI_Finalize: the records so far go out; the files stay cut short. */
static void at_exit(void)
{
    if (getpid() != traced_pid || !atomic_exchange(&rt__g.phase, 0))
        return;
    stop_flusher();
    write_all(1);
}

void rt__crash_start(void)
{
    static int exit_handler;
    traced_pid = getpid();
    if (!exit_handler && atexit(at_exit) == 0)
        exit_handler = 1;
    start_flusher();
    install_handlers();
}

void rt__crash_stop(void)
{
    restore_handlers();
    stop_flusher();
}
