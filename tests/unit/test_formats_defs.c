/* Unit tests of the definitions (formats/defs.c, nbrs.c): communicators, groups, windows,
 * neighbour lists, their checks and copies, and neighbour lists through CSV and OTF2. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test_formats.h"

static void test_defs(void **state)
{
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    assert_int_equal(d.ncomms, 2);
    assert_int_equal(rt_defs_comm(&d, RT_COMM_WORLD)->size, 4);
    assert_true(rt_defs_comm(&d, RT_COMM_SELF)->flags & RT_COMM_IS_SELF);
    uint32_t odd[] = {1, 3}, ab[] = {0, 1, 2, 3}, bad[] = {1, 4};
    assert_int_equal(rt_defs_add_comm(&d, 9, 0, 0, 2, 0, odd, "odd", &err), 0);
    assert_int_equal(rt_defs_add_comm(&d, 4, 0, 0, 2, 2, ab, "inter", &err), 0);
    assert_int_equal(rt_defs_add_comm(&d, 9, 0, 0, 2, 0, odd, "again", &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "communicator 9 is defined twice");
    assert_int_equal(rt_defs_add_comm(&d, 10, 0, 0, 2, 0, bad, "", &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "communicator 10: member 4 is not a world rank (0 to 3)");
    assert_int_equal(rt_defs_add_win(&d, 0, 77, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "window 0: communicator 77 is not defined");
    assert_int_equal(rt_defs_add_win(&d, 0, 9, &err), 0);
    assert_int_equal(rt_defs_add_group(&d, 3, 2, odd, &err), 0);
    /* sorted by id whatever the order of definition */
    assert_int_equal(d.comms[2].id, 4);
    assert_int_equal(d.comms[3].id, 9);
    assert_true(rt_defs_comm(&d, 4)->flags & RT_COMM_IS_INTER);
    assert_int_equal(rt_defs_count_nodes(&d), 1);
    d.node[3] = 7;
    d.module[3] = 2;
    assert_int_equal(rt_defs_count_nodes(&d), 2);
    assert_int_equal(rt_defs_count_modules(&d), 2);

    rt_event ev = {.kind = RT_EV_SEND, .rank = 3, .comm = 9, .peer = 0};
    assert_int_equal(rt_defs_peer_world(&d, &ev), 1);
    ev.peer = 2;
    assert_int_equal(rt_defs_peer_world(&d, &ev), -RT_E_NOTFOUND);
    ev = (rt_event){.kind = RT_EV_SEND, .rank = 0, .comm = 4, .peer = 1}; /* remote group */
    assert_int_equal(rt_defs_peer_world(&d, &ev), 3);
    ev.rank = 2;
    ev.peer = 0;
    assert_int_equal(rt_defs_peer_world(&d, &ev), 0);
    ev = (rt_event){.kind = RT_EV_SEND, .rank = 2, .comm = RT_COMM_SELF, .peer = 0};
    assert_int_equal(rt_defs_peer_world(&d, &ev), 2);
    ev = (rt_event){.kind = RT_EV_RMA_PUT, .rank = 1, .comm = 0, .peer = 1}; /* window 0 */
    assert_int_equal(rt_defs_peer_world(&d, &ev), 3);

    rt_defs c;
    assert_int_equal(rt_defs_copy(&c, &d, &err), 0);
    assert_same_defs(&d, &c);
    rt_defs_free(&c);
    rt_defs_free(&d);
    assert_int_equal(rt_defs_init(&d, 0, &err), -RT_E_INVAL);
}

/* Neighbour lists: what rt_defs_add_nbrs accepts, lookup, copy, and the consistency check. */
static void test_nbrs(void **state)
{
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    uint32_t rev[] = {3, 2, 1, 0}, ab[] = {0, 1, 2, 3};
    assert_int_equal(rt_defs_add_comm(&d, 2, 0, 0, 4, 0, rev, "graph", &err), 0);
    assert_int_equal(rt_defs_add_comm(&d, 3, 0, 0, 2, 2, ab, "inter", &err), 0);
    /* the ring 0 -> 1 -> 2 -> 3 -> 0 in communicator ranks, plus a border slot on rank 0 */
    int32_t in[4][2] = {{3, RT_PEER_NONE}, {0}, {1}, {2}}, out[4][2] = {{1}, {2}, {3}, {0}};
    for (uint32_t c = 0; c < 4; c++) /* world rank 3 - c: lists arrive out of order */
        assert_int_equal(rt_defs_add_nbrs(&d, 2, 3 - c, c ? 1 : 2, in[c], 1, out[c], &err), 0);
    assert_int_equal(d.nnbrs, 4);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(d.nbrs[i].rank, i); /* sorted by (rank, comm) */
    const rt_nbr_def *n = rt_defs_nbrs(&d, 2, 3);
    assert_non_null(n);
    assert_int_equal(n->nin, 2);
    assert_int_equal(n->in[1], RT_PEER_NONE);
    assert_int_equal(n->out[0], 1);
    assert_null(rt_defs_nbrs(&d, 2, 4));
    assert_null(rt_defs_nbrs(&d, RT_COMM_WORLD, 3));
    assert_int_equal(rt_defs_nbrs_check(&d, &err), 0);

    struct {
        uint32_t comm, rank, nin;
        int32_t v;
        const char *msg;
    } bad[] = {
        {7, 0, 1, 0, "neighbour lists of rank 0: communicator 7 is not defined"},
        {3, 0, 1, 0, "neighbour lists of rank 0: communicator 3 is an inter-communicator"},
        {2, 5, 1, 0, "neighbour lists on communicator 2: rank 5 is not a world rank (0 to 3)"},
        {2, 1, 1, 4,
         "neighbour lists of rank 1 on communicator 2: sources 0 is 4, not a rank of the "
         "communicator (0 to 3) or none"},
        {2, 1, 1, -2,
         "neighbour lists of rank 1 on communicator 2: sources 0 is -2, not a rank of the "
         "communicator (0 to 3) or none"},
        {2, 1, RT_MAX_DEGREE + 1, 0,
         "neighbour lists of rank 1 on communicator 2: 1048577 sources, more than 1048576"},
        {2, 1, 1, 0, "neighbour lists of rank 1 on communicator 2 are defined twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(
            rt_defs_add_nbrs(&d, bad[i].comm, bad[i].rank, bad[i].nin, &bad[i].v, 0, NULL, &err),
            -RT_E_INVAL);
        assert_string_equal(err.msg, bad[i].msg);
    }
    uint32_t odd[] = {1, 3};
    assert_int_equal(rt_defs_add_comm(&d, 4, 0, 0, 2, 0, odd, "odd", &err), 0);
    assert_int_equal(rt_defs_add_nbrs(&d, 4, 0, 0, NULL, 0, NULL, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "neighbour lists on communicator 4: rank 0 is not a member");

    rt_defs c;
    assert_int_equal(rt_defs_copy(&c, &d, &err), 0);
    assert_same_defs(&d, &c);
    rt_defs_free(&c);

    /* A rank without lists is left out of the check (it never called a neighbourhood
     * collective); a pair whose two lists disagree is named. */
    int32_t twice[] = {0, 0}, once[] = {1};
    assert_int_equal(rt_defs_add_nbrs(&d, 4, 3, 0, NULL, 2, twice, &err), 0);
    assert_int_equal(rt_defs_nbrs_check(&d, &err), 0);
    assert_int_equal(rt_defs_add_nbrs(&d, 4, 1, 1, once, 0, NULL, &err), 0);
    assert_int_equal(rt_defs_nbrs_check(&d, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "communicator 4: neighbour lists disagree: rank 1 lists rank 0 "
                                 "among its destinations 2 times, rank 0 lists rank 1 among its "
                                 "sources 1 time");
    rt_defs_free(&d);

    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    assert_int_equal(rt_defs_add_comm(&d, 2, 0, 0, 2, 0, ab, "pair", &err), 0);
    int32_t to1[] = {1}, to0[] = {0};
    assert_int_equal(rt_defs_add_nbrs(&d, 2, 0, 0, NULL, 1, to1, &err), 0);
    assert_int_equal(rt_defs_add_nbrs(&d, 2, 1, 1, to0, 1, to0, &err), 0);
    assert_int_equal(rt_defs_nbrs_check(&d, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "communicator 2: neighbour lists disagree: rank 1 lists rank 0 "
                                 "among its destinations 1 time, rank 0 lists rank 1 among its "
                                 "sources 0 times");
    rt_defs_free(&d);
}

/* The neighbour lists of tests/data/neighbors.csv through CSV and OTF2 (CSV -> OTF2 -> CSV),
 * field by field, and a few of them exactly. */
static void test_nbrs_roundtrip(void **state)
{
    const char *csv = rt_test_tmp_path("nbrs.csv"), *otf2 = rt_test_tmp_path("nbrs-otf2"),
               *back = rt_test_tmp_path("nbrs-back.csv");
    unlink(csv);
    unlink(back);
    remove_any(otf2);
    convert(NEIGHBORS, csv, RT_FMT_CSV);
    convert(NEIGHBORS, otf2, RT_FMT_OTF2);
    convert(otf2, back, RT_FMT_CSV);
    loaded a, b;
    rt_err err;
    assert_int_equal(load(NEIGHBORS, &a, &err), 0);
    assert_int_equal(a.defs.nnbrs, 8);
    const rt_nbr_def *n = rt_defs_nbrs(&a.defs, 2, 1);
    int32_t grid1[] = {3, 3, 0, RT_PEER_NONE};
    assert_int_equal(n->nin, 4);
    assert_memory_equal(n->in, grid1, sizeof grid1);
    assert_memory_equal(n->out, grid1, sizeof grid1);
    n = rt_defs_nbrs(&a.defs, 3, 0);
    assert_int_equal(n->nin, 0);
    assert_int_equal(n->nout, 0);
    n = rt_defs_nbrs(&a.defs, 3, 1);
    int32_t src1[] = {1, 0};
    assert_int_equal(n->nin, 2);
    assert_memory_equal(n->in, src1, sizeof src1);
    assert_int_equal(n->nout, 1);
    assert_int_equal(n->out[0], 0);
    assert_int_equal(rt_defs_nbrs_check(&a.defs, &err), 0);
    const char *paths[3] = {csv, otf2, back};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(load(paths[k], &b, &err), 0);
        assert_same_defs(&a.defs, &b.defs);
        assert_same_events(&a, &b);
        unload(&b);
    }
    unload(&a);
    /* CSV writes them in (rank, comm) order, as the source file has them */
    FILE *f = fopen(csv, "r");
    char line[256];
    int k = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "neighbors,", 10) && k++ == 3)
            assert_string_equal(line, "neighbors,3,1,1 0,0\n");
    if (f)
        fclose(f);
    assert_int_equal(k, 8);
}

/* The real hosts of tests/data/hosts.csv through CSV and OTF2 (CSV -> OTF2 -> CSV), field by
 * field, the CPUs each host's ranks shared, and the CPU lists retrace takes and refuses. */
static void test_hosts(void **state)
{
    (void)state;
    const char *csv = rt_test_tmp_path("hosts.csv"), *otf2 = rt_test_tmp_path("hosts-otf2"),
               *back = rt_test_tmp_path("hosts-back.csv");
    unlink(csv);
    unlink(back);
    remove_any(otf2);
    convert(HOSTS, csv, RT_FMT_CSV);
    convert(HOSTS, otf2, RT_FMT_OTF2);
    convert(otf2, back, RT_FMT_CSV);
    loaded a, b;
    rt_err err;
    assert_int_equal(load(HOSTS, &a, &err), 0);
    assert_int_equal(a.defs.nhosts, 2);
    assert_string_equal(a.defs.hosts[0].name, "node-a");
    assert_int_equal(a.defs.hosts[1].online, 8);
    assert_int_equal(a.defs.rank_host[2].host, 0);
    assert_string_equal(a.defs.rank_host[2].cpus, "0");
    assert_null(a.defs.rank_host[3].cpus);
    assert_int_equal(a.defs.rank_host[3].ncpus, 4);
    uint32_t cpus[2];
    assert_int_equal(rt_defs_host_cpus(&a.defs, cpus), 0);
    assert_int_equal(cpus[0], 1);
    assert_int_equal(cpus[1], 4);
    const char *paths[3] = {csv, otf2, back};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(load(paths[k], &b, &err), 0);
        assert_same_defs(&a.defs, &b.defs);
        rt_defs copy;
        assert_int_equal(rt_defs_copy(&copy, &b.defs, &err), 0);
        assert_same_defs(&a.defs, &copy);
        rt_defs_free(&copy);
        unload(&b);
    }
    unload(&a);

    uint32_t n = 0;
    uint64_t set[RT_CPU_MAX / 64] = {0};
    assert_int_equal(rt_cpu_list_parse("0-3,8,10-11", &n, set), 0);
    assert_int_equal(n, 7);
    assert_int_equal(set[0], 0xd0full);
    static const char *const bad[] = {"",  ",",  "1,",    "3,1",  "1-1,1", "2-1",
                                      "a", "0-", "65536", "1,,2", "-1",    "0 1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(rt_cpu_list_parse(bad[i], &n, NULL), -RT_E_FORMAT);
    assert_int_equal(rt_cpu_list_parse("65535", &n, NULL), 0);
    assert_int_equal(n, 1);

    /* the union of the ranks' lists on a host: 0-1 and 1-2 share CPU 1, 3 CPUs in all */
    rt_defs d;
    assert_int_equal(rt_defs_init(&d, 3, &err), 0);
    assert_int_equal(rt_defs_set_host(&d, 0, "h", 4, 2, "0-1", &err), 0);
    assert_int_equal(rt_defs_set_host(&d, 2, "h", 4, 2, "1-2", &err), 0);
    assert_int_equal(rt_defs_set_host(&d, 2, "h", 4, 2, "1-2", &err), -RT_E_FORMAT);
    assert_int_equal(rt_defs_set_host(&d, 1, "h h", 4, 1, "0", &err), -RT_E_FORMAT);
    assert_int_equal(rt_defs_set_host(&d, 3, "h", 4, 1, "0", &err), -RT_E_INVAL);
    assert_int_equal(rt_defs_set_host(&d, 1, "g", 0, 1, "0", &err), -RT_E_RANGE);
    assert_int_equal(d.nhosts, 1);
    assert_int_equal(d.rank_host[1].host, RT_ID_NONE);
    assert_int_equal(rt_defs_host_cpus(&d, cpus), 0);
    assert_int_equal(cpus[0], 3);
    rt_defs_free(&d);
}
int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defs),
        cmocka_unit_test(test_nbrs),
        cmocka_unit_test(test_nbrs_roundtrip),
        cmocka_unit_test(test_hosts),
    };
    return rt_test_main("formats_defs", tests, argc, argv);
}
