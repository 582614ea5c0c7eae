/*
 * Memory for the engine's arrays (sim_realloc_lines): indexed by rank, collective or channel
 * and read at random, they start on a cache line, and the big ones are mapped on huge pages
 * where the kernel has them (off for a run in fast mode, sim_lines_huge).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rt__sim.h"

/* Arrays indexed by rank, collective or channel are read at random. At a million ranks
 * nearly every access is to another page, and with 4 KB pages each one first needs a page
 * walk, which (two-dimensional in a virtual machine) can take longer than the access and
 * holds up prefetches. So arrays of 4 MB and more are mapped on their own, 2 MB aligned, with
 * transparent huge pages asked for (a hint: without them nothing changes; malloc would reuse
 * heap pages already faulted in as 4 KB ones). Smaller ones start on a cache line. */
#define HUGE_FROM ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/* Set for a run in fast mode (sim_fast.c): there the arrays are mostly swept in order, and
 * at a million ranks the first replay after loading a trace spent about 4 s of 8 faulting
 * huge pages in (the kernel compacting memory full of the trace file's page cache), for no
 * gain after; at 131072 ranks fast mode takes the same time either way. The usual way keeps
 * them (20 % faster at 131072 ranks). Per thread: a run is one thread's. */
static _Thread_local int huge_off;

static size_t huge_len(size_t bytes)
{
    return (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

static void *huge_map(size_t bytes)
{
    size_t len = huge_len(bytes);
    char *m =
        mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (m + len + HUGE_PAGE > a + len)
        munmap(a + len, (size_t)(m + len + HUGE_PAGE - (a + len)));
#ifdef MADV_HUGEPAGE
    if (!huge_off)
        madvise(a, len, MADV_HUGEPAGE);
#endif
    return a; /* zero-filled */
}

void sim_lines_huge(int on)
{
    huge_off = !on;
}

void *sim_realloc_lines(void *p, size_t old, size_t bytes)
{
    void *q;
    if (bytes >= HUGE_FROM) {
        if (!(q = huge_map(bytes)))
            return NULL;
    } else {
        if (posix_memalign(&q, 64, bytes ? bytes : 64))
            return NULL;
        memset((char *)q + old, 0, bytes - old);
    }
    if (old)
        memcpy(q, p, old);
    sim_free_lines(p, old);
    return q;
}

void sim_free_lines(void *p, size_t bytes)
{
    if (p && bytes >= HUGE_FROM)
        munmap(p, huge_len(bytes));
    else
        free(p);
}
