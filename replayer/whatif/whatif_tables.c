/* The tables of built-in replays: per rank, and one row per configuration (rt_whatif.h). */
#include <stdlib.h>

#include "rt_whatif.h"

rt_table *rt_whatif_rank_table(const rt_sim_result *res, int all)
{
    static const char *const cols[] = {"rank", "end_us", "mpi_us", "compute_us", "mpi_pct"};
    rt_table *tb = rt_table_new("ranks", "per rank (times in microseconds)", 5, cols, "rrrrr");
    if (!tb)
        return NULL;
    uint32_t n = res->nranks, *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) {
        rt_table_free(tb);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    uint32_t shown = n;
    if (!all && n > 64) { /* the 16 latest, latest first (selection: n is large, 16 small) */
        shown = 16;
        for (uint32_t i = 0; i < shown; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (res->ranks[order[j]].end_ps > res->ranks[order[i]].end_ps) {
                    uint32_t x = order[i];
                    order[i] = order[j];
                    order[j] = x;
                }
    }
    for (uint32_t k = 0; k < shown; k++) {
        const rt_sim_rank *r = &res->ranks[order[k]];
        uint64_t total = r->mpi_ps + r->compute_ps;
        if (rt_table_row(tb) || rt_table_cell_u64(tb, order[k]) ||
            rt_table_cell(tb, "%.3f", r->end_ps / 1e6) ||
            rt_table_cell(tb, "%.3f", r->mpi_ps / 1e6) ||
            rt_table_cell(tb, "%.3f", r->compute_ps / 1e6) ||
            rt_table_cell(tb, "%.1f", total ? 100.0 * (double)r->mpi_ps / (double)total : 0.0)) {
            rt_table_free(tb);
            free(order);
            return NULL;
        }
    }
    free(order);
    return tb;
}

rt_table *rt_whatif_compare_table(void)
{
    static const char *const cols[] = {"configuration", "predicted_us", "mpi_us_per_rank",
                                       "messages",      "bytes",        "gw_crossings",
                                       "speedup"};
    return rt_table_new("compare", "what if (times in microseconds)", 7, cols, "lrrrrrr");
}

int rt_whatif_compare_row(rt_table *tb, const char *label, const rt_sim_result *r, uint64_t base_ps)
{
    int bad;
    if (rt_table_row(tb) || rt_table_cell(tb, "%s", label))
        bad = 1;
    else if (!r->completed)
        bad = rt_table_cell(tb, "deadlock") || rt_table_cell(tb, "-") ||
              rt_table_cell_u64(tb, r->messages) || rt_table_cell_u128(tb, r->bytes) ||
              rt_table_cell_u64(tb, r->gw_messages) || rt_table_cell(tb, "-");
    else
        bad = rt_table_cell(tb, "%.3f", r->time_ps / 1e6) ||
              rt_table_cell(tb, "%.3f", r->nranks ? (double)r->mpi_ps / r->nranks / 1e6 : 0.0) ||
              rt_table_cell_u64(tb, r->messages) || rt_table_cell_u128(tb, r->bytes) ||
              rt_table_cell_u64(tb, r->gw_messages) ||
              rt_table_cell(tb, "%.2fx", r->time_ps ? (double)base_ps / (double)r->time_ps : 0.0);
    return bad ? -RT_E_NOMEM : 0;
}
