/*
 * ucp_count: preloaded into MPICH programs (ch4:ucx) by mpich_wire.sh, counts the messages
 * MPICH hands to UCX: every call of ucp_tag_send_nbx, ucp_tag_send_sync_nbx and
 * ucp_am_send_nb, MPICH 4.0.2's only sends (nm -D libmpich.so.12: no other ucp_*send*). The
 * program marks what to count with close(-MARK), a system call that does nothing
 * (mpich_esize.c): from close(-1001) to close(-1002) the floats, from close(-1003) to
 * close(-1004) the doubles. At each end mark one line "floats N" or "doubles N" is appended
 * to $RT_UCP_COUNT/PID at once, so that a run that hangs later (MPI_Finalize) has its counts.
 * The prototypes are UCX's (ucp/api/ucp.h) with its handle types as void pointers: the test
 * needs no UCX headers. The real functions come from the next library (dlsym RTLD_NEXT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long sends; /* ucp sends since the last start mark */
static int counting;        /* between a start and an end mark */

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) { /* never returns into the program with a null function */
        fprintf(stderr, "ucp_count: %s not found\n", name);
        _exit(3);
    }
    return f;
}

void *ucp_tag_send_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param)
{
    static void *(*f)(void *, const void *, size_t, uint64_t, const void *);
    if (!f)
        f = (void *(*)(void *, const void *, size_t, uint64_t, const void *))next(__func__);
    sends += counting;
    return f(ep, buf, count, tag, param);
}

void *ucp_tag_send_sync_nbx(void *ep, const void *buf, size_t count, uint64_t tag,
                            const void *param)
{
    static void *(*f)(void *, const void *, size_t, uint64_t, const void *);
    if (!f)
        f = (void *(*)(void *, const void *, size_t, uint64_t, const void *))next(__func__);
    sends += counting;
    return f(ep, buf, count, tag, param);
}

void *ucp_am_send_nb(void *ep, uint16_t id, const void *buf, size_t count, uint64_t datatype,
                     void *cb, unsigned flags)
{
    static void *(*f)(void *, uint16_t, const void *, size_t, uint64_t, void *, unsigned);
    if (!f)
        f = (void *(*)(void *, uint16_t, const void *, size_t, uint64_t, void *, unsigned))next(
            __func__);
    sends += counting;
    return f(ep, id, buf, count, datatype, cb, flags);
}

static void report(const char *what)
{
    const char *dir = getenv("RT_UCP_COUNT");
    char path[4096];
    if (!dir || snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid()) >= (int)sizeof path)
        return;
    FILE *out = fopen(path, "a");
    if (!out)
        return;
    fprintf(out, "%s %lu\n", what, sends);
    fclose(out);
}

int close(int fd)
{
    static int (*f)(int);
    if (!f)
        f = (int (*)(int))next(__func__);
    switch (fd) {
    case -1001:
    case -1003:
        sends = 0;
        counting = 1;
        break;
    case -1002:
    case -1004:
        counting = 0;
        report(fd == -1002 ? "floats" : "doubles");
        break;
    }
    return f(fd);
}
