/*
 * The engine's share of a measured time: a small trace of the calls measured, written as CSV
 * to a temporary file and replayed on the built-in engine (calib_calls.c, calib_from_coll.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt__calib.h"
#include "rt_sim.h"

int calib_engine_replay(void (*write)(FILE *f, const void *ctx), const void *ctx,
                        const rt_sim_config *cfg, uint64_t *time_ps)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    *time_ps = 0;
    snprintf(path, sizeof path, "%s/retrace-calib-XXXXXX.csv", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 4);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        return -1;
    }
    write(f, ctx);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    rt_reader *rd = NULL;
    rt_sim_trace *t = NULL;
    rt_err err = {0};
    if (!bad && rt_reader_open(path, &rd, &err) == 0 && rt_sim_trace_load(rd, &t, &err) == 0) {
        rt_sim_result res;
        memset(&res, 0, sizeof res);
        if (rt_sim_run(t, cfg, &res, &err) == 0 && res.completed)
            *time_ps = res.time_ps;
        else
            bad = 1;
        rt_sim_result_free(&res);
    } else {
        bad = 1;
    }
    if (t)
        rt_sim_trace_free(t);
    if (rd)
        rt_reader_close(rd);
    unlink(path);
    return bad ? -1 : 0;
}
