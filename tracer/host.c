/*
 * The real host of this rank (rt_rank_host in rt_event.h), written once into the defs file at
 * MPI_Init: its name, its online CPUs and the CPUs this process may run on. The node and module
 * ids may be emulated (RETRACE_EMULATE); these say what ran, so that a replay of the recorded
 * run knows which ranks shared CPUs.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt__tracer.h"
#include "rt_trace.h"

/* gethostname's answer as a name retrace keeps (rt_host_name_valid): other characters become
 * '_', and a name that cannot be told becomes "unknown". */
static size_t host_name(char *name)
{
    char buf[256] = "";
    if (gethostname(buf, sizeof buf - 1) < 0 || !buf[0])
        strcpy(buf, "unknown");
    size_t n = strnlen(buf, RT_HOST_NAME_LEN);
    for (size_t i = 0; i < n; i++)
        name[i] = rt_host_char(buf[i]) ? buf[i] : '_';
    return n;
}

/* The CPUs of set in Linux's list form ("0-3,8") into list (room for RT_CPU_LIST_LEN bytes and
 * the NUL): its length, or 0 when it does not fit. *count: the CPUs in set. */
static size_t cpu_list(const cpu_set_t *set, size_t size, char *list, uint32_t *count)
{
    size_t len = 0;
    int fits = 1;
    *count = 0;
    for (int c = 0; c < RT_CPU_MAX; c++) {
        if (!CPU_ISSET_S(c, size, set))
            continue;
        int last = c;
        while (last + 1 < RT_CPU_MAX && CPU_ISSET_S(last + 1, size, set))
            last++;
        *count += (uint32_t)(last - c + 1);
        char item[32];
        int n = last > c ? snprintf(item, sizeof item, "%s%d-%d", len ? "," : "", c, last)
                         : snprintf(item, sizeof item, "%s%d", len ? "," : "", c);
        if (fits && len + (size_t)n <= RT_CPU_LIST_LEN) {
            memcpy(list + len, item, (size_t)n);
            len += (size_t)n;
        } else {
            fits = 0;
        }
        c = last;
    }
    list[len] = '\0';
    return fits ? len : 0;
}

void rt__host_write(void)
{
    struct {
        rt_raw_def_host h;
        char text[RT_HOST_NAME_LEN + RT_CPU_LIST_LEN + 1];
    } d;
    memset(&d, 0, sizeof d);
    size_t name_len = host_name(d.text);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    d.h.online = online > 0 && online <= RT_CPU_MAX ? (uint32_t)online : 1;
    char list[RT_CPU_LIST_LEN + 1];
    size_t list_len = 0;
    uint32_t count = 0;
    size_t size = CPU_ALLOC_SIZE(RT_CPU_MAX);
    cpu_set_t *set = CPU_ALLOC(RT_CPU_MAX);
    if (set && sched_getaffinity(0, size, set) == 0)
        list_len = cpu_list(set, size, list, &count);
    CPU_FREE(set);
    if (!count) /* no mask to be had: every online CPU */
        count = d.h.online;
    d.h.ncpus = count;
    d.h.name_len = (uint16_t)name_len;
    d.h.cpus_len = (uint16_t)list_len;
    memcpy(d.text + name_len, list, list_len);
    rt__def_write(RT_RAW_DEF_HOST, &d, sizeof d.h + name_len + list_len);
}
