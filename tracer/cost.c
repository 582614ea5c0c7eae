/*
 * The bench build's switches (libretrace-cost.so, -DRETRACE_TRACER_COST=ON; never in the
 * shipped libraries): RETRACE_COST_OFF names, comma-separated, the parts of the call path
 * to leave out, so that bench/tracer_components.sh can take each one's cost as the difference:
 *   clock     the clock reads (every time is 0)
 *   requests  the request table (nonblocking calls are not followed to their completion)
 *   encode    the records (none is built: the buffer writes go too)
 *   buffer    the copy of a call's records into the thread's buffer and its publication
 *   write     the write of a full buffer to the raw file: the records are copied and published,
 *             then dropped instead of handed to the kernel (the file keeps only its header)
 *   all       all five: what stays is the wrappers' dispatch to PMPI and their bookkeeping
 * The trace such a run writes is incomplete by design.
 */
#include <stdlib.h>
#include <string.h>

#include "rt__tracer.h"

unsigned rt__cost_off;
volatile uint64_t rt__cost_sink;

void rt__cost_init(void)
{
    static const struct {
        const char *name;
        unsigned bits;
    } parts[] = {{"clock", RT__COST_CLOCK},
                 {"requests", RT__COST_REQUESTS},
                 {"encode", RT__COST_ENCODE},
                 {"buffer", RT__COST_BUFFER},
                 {"write", RT__COST_WRITE},
                 {"all", RT__COST_CLOCK | RT__COST_REQUESTS | RT__COST_ENCODE | RT__COST_BUFFER |
                             RT__COST_WRITE}};
    const char *v = getenv("RETRACE_COST_OFF");
    rt__cost_off = 0;
    for (const char *p = v; p && *p;) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        while (i < sizeof parts / sizeof *parts &&
               (strlen(parts[i].name) != n || strncmp(p, parts[i].name, n)))
            i++;
        if (i < sizeof parts / sizeof *parts)
            rt__cost_off |= parts[i].bits;
        else if (rt__g.rank == 0)
            rt__warn(
                "RETRACE_COST_OFF=%s: '%.*s' is not clock, requests, encode, buffer, write or all",
                v, (int)n, p);
        p += n + (p[n] == ',');
    }
}
