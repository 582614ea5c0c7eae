/* The streaming pass every analysis runs, and small helpers shared by them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"

int rt_an_run(const char *path, const rt_an_pass *pass, char **truncated, rt_err *err)
{
    *truncated = NULL;
    rt_reader *r;
    int rc = rt_reader_open(path, &r, err);
    if (rc < 0)
        return rc;
    if (pass->setup && (rc = pass->setup(pass->ctx, rt_reader_defs(r), err)) < 0) {
        rt_reader_close(r);
        return rc;
    }
    rt_progress prog;
    rt_progress_begin(&prog, r);
    rt_event ev;
    while ((rc = rt_reader_next(r, &ev, err)) > 0) {
        if ((rc = pass->event(pass->ctx, &ev)) < 0) {
            rc = rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
            break;
        }
        rt_progress_tick(&prog);
    }
    rt_progress_end(&prog);
    if (rc == 0 && rt_reader_truncated(r) && !(*truncated = strdup(rt_reader_truncated(r))))
        rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    if (rc == 0 && pass->finish && (rc = pass->finish(pass->ctx, err)) < 0)
        rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
    rt_reader_close(r);
    return rc;
}

void rt_an_size_label(uint64_t v, char *buf, size_t len)
{
    static const char units[] = "KMGTPE";
    int u = -1;
    while (v >= 1024 && v % 1024 == 0 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%" PRIu64, v);
    else
        snprintf(buf, len, "%" PRIu64 "%c", v, units[u]);
}
