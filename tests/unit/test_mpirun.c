/* Unit tests for the real-MPI replay's machine and placement (replayer/mpi/mpi_place.c):
 * the parts that need no MPI. Which trace rank each process plays, worked out by hand from
 * rt_mpirun.h and rt_map.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <string.h>

#include "rt_mpirun.h"
#include "rt_trace.h"

static void assert_u32s(const uint32_t *got, const uint32_t *want, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("index %u: got %u, want %u", i, got[i], want[i]);
}

static rt_map_spec spec_of(const char *text)
{
    rt_map_spec s;
    rt_err err;
    if (rt_map_parse(text, &s, &err) < 0)
        fail_msg("%s", err.msg);
    return s;
}

/* A machine of n processes; fails the test on error. */
static rt_mpirun_machine machine_of(uint32_t n, const uint32_t *node, const uint32_t *module)
{
    rt_mpirun_machine mc;
    rt_err err;
    if (rt_mpirun_machine_make(&mc, n, node, module, &err) < 0)
        fail_msg("%s", err.msg);
    return mc;
}

/* Node ids become dense indexes in order of first appearance; modules are counted. */
static void test_machine(void **state)
{
    (void)state;
    const uint32_t ids[] = {7, 7, 3, 7, 3, 9}, mods[] = {0, 0, 1, 0, 1, 1};
    rt_mpirun_machine mc = machine_of(6, ids, mods);
    assert_int_equal(mc.n, 6);
    assert_int_equal(mc.nodes, 3);
    assert_int_equal(mc.modules, 2);
    assert_int_equal(mc.most, 3); /* node 7: processes 0, 1 and 3 */
    assert_u32s(mc.node, (const uint32_t[]){0, 0, 1, 0, 1, 2}, 6);
    assert_u32s(mc.module, mods, 6);
    rt_mpirun_machine_free(&mc);
    const uint32_t one[] = {42}, zero[] = {0};
    mc = machine_of(1, one, zero);
    assert_int_equal(mc.nodes, 1);
    assert_int_equal(mc.modules, 1);
    assert_int_equal(mc.most, 1);
    assert_int_equal(mc.node[0], 0);
    rt_mpirun_machine_free(&mc);
}

/* recorded: process p plays trace rank p, wherever it runs. */
static void test_place_recorded(void **state)
{
    (void)state;
    const uint32_t ids[] = {5, 6, 5, 6}, mods[] = {0, 1, 0, 1};
    rt_mpirun_machine mc = machine_of(4, ids, mods);
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    rt_mpirun_placement pl;
    assert_int_equal(rt_mpirun_placement_init(&pl, 4, &err), 0);
    rt_map_spec spec = spec_of("recorded");
    assert_int_equal(rt_mpirun_place(&spec, &d, NULL, 0, &mc, &pl, &err), 0);
    assert_string_equal(pl.map_name, "recorded");
    assert_u32s(pl.play, (const uint32_t[]){0, 1, 2, 3}, 4);
    assert_u32s(pl.node, (const uint32_t[]){0, 1, 0, 1}, 4);
    assert_u32s(pl.module, mods, 4);
    rt_mpirun_placement_free(&pl);
    rt_mpirun_machine_free(&mc);
    rt_defs_free(&d);
}

/* mpiexec hands out processes round robin over 2 nodes (0, 1, 0, 1): block puts trace ranks
 * 0 and 1 on node 0, whose processes are 0 and 2, and ranks 2 and 3 on node 1 (processes 1
 * and 3), both in rank order. */
static void test_place_block(void **state)
{
    (void)state;
    const uint32_t ids[] = {0, 1, 0, 1}, mods[] = {0, 0, 0, 0};
    rt_mpirun_machine mc = machine_of(4, ids, mods);
    assert_int_equal(mc.most, 2);
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    rt_mpirun_placement pl;
    assert_int_equal(rt_mpirun_placement_init(&pl, 4, &err), 0);
    rt_map_spec spec = spec_of("block");
    assert_int_equal(rt_mpirun_place(&spec, &d, NULL, 0, &mc, &pl, &err), 0);
    assert_string_equal(pl.map_name, "block");
    assert_u32s(pl.play, (const uint32_t[]){0, 2, 1, 3}, 4);
    assert_u32s(pl.node, (const uint32_t[]){0, 0, 1, 1}, 4);
    /* cyclic on the same machine: rank r on node r % 2, which is where process r runs */
    spec = spec_of("cyclic");
    assert_int_equal(rt_mpirun_place(&spec, &d, NULL, 0, &mc, &pl, &err), 0);
    assert_string_equal(pl.map_name, "cyclic");
    assert_u32s(pl.play, (const uint32_t[]){0, 1, 2, 3}, 4);
    assert_u32s(pl.node, (const uint32_t[]){0, 1, 0, 1}, 4);
    rt_mpirun_placement_free(&pl);
    rt_mpirun_machine_free(&mc);
    rt_defs_free(&d);
}

/* 3 processes on node 0 and 1 on node 1: cyclic gives node 1 ranks 1 and 3, one more than
 * it has processes. The placement is left as it was. */
static void test_place_too_many(void **state)
{
    (void)state;
    const uint32_t ids[] = {0, 0, 0, 1}, mods[] = {0, 0, 0, 0};
    rt_mpirun_machine mc = machine_of(4, ids, mods);
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    rt_mpirun_placement pl;
    assert_int_equal(rt_mpirun_placement_init(&pl, 4, &err), 0);
    memset(pl.play, 0x5a, 4 * sizeof *pl.play);
    memset(pl.node, 0x5a, 4 * sizeof *pl.node);
    snprintf(pl.map_name, sizeof pl.map_name, "before");
    rt_map_spec spec = spec_of("cyclic");
    assert_int_equal(rt_mpirun_place(&spec, &d, NULL, 0, &mc, &pl, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "--map cyclic: node 1 gets more ranks than it has processes");
    assert_string_equal(pl.map_name, "before");
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(pl.play[i], 0x5a5a5a5a);
        assert_int_equal(pl.node[i], 0x5a5a5a5a);
    }
    /* a trace of another size than the machine */
    rt_defs d3;
    assert_int_equal(rt_defs_init(&d3, 3, &err), 0);
    spec = spec_of("block");
    assert_int_equal(rt_mpirun_place(&spec, &d3, NULL, 0, &mc, &pl, &err), -RT_E_INVAL);
    rt_defs_free(&d3);
    rt_mpirun_placement_free(&pl);
    rt_mpirun_machine_free(&mc);
    rt_defs_free(&d);
}

/* auto from the traffic: ranks 0 and 3 exchange 1 MB, 1 and 2 too, everything else little.
 * Two nodes in two modules (processes 0, 1 on node 0): the heavy pairs stay on one node each,
 * and each process plays a rank placed on its own node. */
static void test_place_auto(void **state)
{
    (void)state;
    const uint32_t ids[] = {0, 0, 1, 1}, mods[] = {0, 0, 1, 1};
    rt_mpirun_machine mc = machine_of(4, ids, mods);
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    const rt_map_edge edges[] = {{0, 3, 1000000}, {1, 2, 1000000}, {0, 1, 10}, {2, 3, 10}};
    rt_mpirun_placement pl;
    assert_int_equal(rt_mpirun_placement_init(&pl, 4, &err), 0);
    rt_map_spec spec = spec_of("auto");
    assert_int_equal(rt_mpirun_place(&spec, &d, edges, 4, &mc, &pl, &err), 0);
    assert_string_equal(pl.map_name, "auto");
    assert_int_equal(pl.node[0], pl.node[3]);
    assert_int_equal(pl.node[1], pl.node[2]);
    assert_int_not_equal(pl.node[0], pl.node[1]);
    unsigned seen[4] = {0};
    for (unsigned p = 0; p < 4; p++) {
        assert_true(pl.play[p] < 4);
        seen[pl.play[p]]++;
        assert_int_equal(pl.node[pl.play[p]], mc.node[p]);
        assert_int_equal(pl.module[pl.play[p]], mc.module[p]);
    }
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(seen[r], 1);
    rt_mpirun_placement_free(&pl);
    rt_mpirun_machine_free(&mc);
    rt_defs_free(&d);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_machine),     cmocka_unit_test(test_place_recorded),
        cmocka_unit_test(test_place_block), cmocka_unit_test(test_place_too_many),
        cmocka_unit_test(test_place_auto),
    };
    return rt_test_main("mpirun", tests, argc, argv);
}
