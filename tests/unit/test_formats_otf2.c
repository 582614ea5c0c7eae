/* Unit tests of the OTF2 form (formats/otf2_*.c): the round trip through CSV, a receive's
 * wildcards, dense renumbering, damaged and cut archives, and neighbour lists written by
 * another tool. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "rt__otf2.h"
#include "test_formats.h"

/* The first len - 1 bytes of the file at path, NUL-terminated, into text. */
static void read_text(const char *path, char *text, size_t len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(text, 1, len - 1, f);
    fclose(f);
    text[n] = '\0';
}

/* CSV -> OTF2 -> CSV gives the same definitions and events, field by field. */
static void test_otf2_roundtrip(void **state)
{
    const char *otf2 = rt_test_tmp_path("rt-otf2"), *csv = rt_test_tmp_path("rt-back.csv");
    remove_any(otf2);
    unlink(csv);
    convert(ALL_KINDS, otf2, RT_FMT_OTF2);
    convert(otf2, csv, RT_FMT_CSV);
    loaded a, b, c;
    rt_err err;
    assert_int_equal(load(ALL_KINDS, &a, &err), 0);
    assert_int_equal(load(otf2, &b, &err), 0);
    assert_int_equal(load(csv, &c, &err), 0);
    assert_null(b.truncated);
    assert_same_defs(&a.defs, &b.defs);
    assert_same_events(&a, &b);
    assert_same_defs(&a.defs, &c.defs);
    assert_same_events(&a, &c);
    unload(&a);
    unload(&b);
    unload(&c);
    /* the anchor file names the archive as well as its directory */
    char anchor[1100];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", otf2);
    assert_int_equal(load(anchor, &b, &err), 0);
    assert_int_equal(b.n, 114);
    unload(&b);
}

/* The MPI library that recorded a trace through CSV -> OTF2 -> CSV (the property
 * RETRACE::MPI_LIBRARY, the mpi_library line). */
static void test_library_roundtrip(void **state)
{
    (void)state;
    const char *src = RT_TEST_DATA "/mpi_library.csv", *otf2 = rt_test_tmp_path("rt-lib-otf2"),
               *csv = rt_test_tmp_path("rt-lib-back.csv");
    remove_any(otf2);
    unlink(csv);
    convert(src, otf2, RT_FMT_OTF2);
    convert(otf2, csv, RT_FMT_CSV);
    loaded b, c;
    rt_err err;
    assert_int_equal(load(otf2, &b, &err), 0);
    assert_int_equal(load(csv, &c, &err), 0);
    assert_string_equal(b.defs.library, "Open MPI 4.1.4");
    assert_string_equal(c.defs.library, "Open MPI 4.1.4");
    unload(&b);
    unload(&c);
}

/*
 * A receive's wildcards through every form: each set on RECV and IRECV, read from CSV,
 * written to CSV and to OTF2 (the retrace::op attribute, left out for the empty set) and
 * read back. The CSV form names the set in the OP column, empty for none.
 */
static void test_recv_flags_roundtrip(void **state)
{
    const char *in =
        rt_test_write_file("wild.csv", "ranks,2\n"
                                       "0,10,recv,MPI_Recv,0,1,5,8,,shm,,\n"
                                       "0,20,recv,MPI_Recv,0,1,5,8,,shm,,any_source\n"
                                       "0,30,recv,MPI_Recv,0,1,5,8,,shm,,any_tag\n"
                                       "0,40,recv,MPI_Recv,0,1,5,8,,shm,,any_tag|any_source\n"
                                       "1,10,irecv,MPI_Wait,0,0,6,4,,shm,1,\n"
                                       "1,20,irecv,MPI_Wait,0,0,6,4,,shm,2,any_source\n"
                                       "1,30,irecv,MPI_Wait,0,0,6,4,,shm,3,any_tag\n"
                                       "1,40,irecv,MPI_Test,0,0,6,4,,shm,4,"
                                       "any_source|any_tag\n");
    static const unsigned want[8] = {0, RT_RECV_ANY_SOURCE, RT_RECV_ANY_TAG, RT_RECV_WILD,
                                     0, RT_RECV_ANY_SOURCE, RT_RECV_ANY_TAG, RT_RECV_WILD};
    const char *csv = rt_test_tmp_path("wild-back.csv"), *otf2 = rt_test_tmp_path("wild-otf2"),
               *csv2 = rt_test_tmp_path("wild-otf2.csv");
    unlink(csv);
    unlink(csv2);
    remove_any(otf2);
    convert(in, csv, RT_FMT_CSV);
    convert(in, otf2, RT_FMT_OTF2);
    convert(otf2, csv2, RT_FMT_CSV);
    const char *paths[] = {in, csv, otf2, csv2};
    loaded l[4];
    rt_err err;
    for (int i = 0; i < 4; i++) {
        if (load(paths[i], &l[i], &err))
            fail_msg("%s", err.msg);
        assert_int_equal(l[i].n, 8);
        for (size_t j = 0; j < 8; j++) {
            assert_int_equal(l[i].ev[j].kind, j < 4 ? RT_EV_RECV : RT_EV_IRECV);
            if (l[i].ev[j].op != want[j])
                fail_msg("%s: event %zu has op %u, expected %u", paths[i], j, l[i].ev[j].op,
                         want[j]);
        }
        if (i)
            assert_same_events(&l[0], &l[i]);
    }
    for (int i = 0; i < 4; i++)
        unload(&l[i]);
    /* the names as written, the empty set as an empty column */
    char text[4096];
    read_text(csv, text, sizeof text);
    assert_non_null(strstr(text, "\n0,10,recv,MPI_Recv,0,1,5,8,,shm,,\n"));
    assert_non_null(strstr(text, "\n0,40,recv,MPI_Recv,0,1,5,8,,shm,,any_source|any_tag\n"));
    assert_non_null(strstr(text, "\n1,30,irecv,MPI_Wait,0,0,6,4,,shm,3,any_tag\n"));
}

/*
 * Element sizes (rt_event.esize, resize) through every form: read from CSV (the optional
 * thirteenth column "S/R" and the elem_sizes line), written to CSV and to OTF2 (the
 * retrace::esize attribute only where the sizes are not rt_esize_default's: 4 floats need it,
 * 2 doubles do not) and read back the same; a trace without the line has none; sizes a trace
 * cannot keep, and sizes on events that carry none, are refused.
 */
static void test_esize_roundtrip(void **state)
{
    (void)state;
    const char *in =
        rt_test_write_file("esize.csv", "ranks,2\nelem_sizes\n"
                                        "0,10,coll_end,MPI_Allreduce,0,,,16,16,,,allreduce,4/4\n"
                                        "0,20,coll_end,MPI_Allreduce,0,,,16,16,,,allreduce,8/8\n"
                                        "0,30,send,MPI_Send,0,1,5,12,,shm,,,4/\n"
                                        "0,40,coll_end,MPI_Bcast,0,1,,0,24,,,bcast,/24\n"
                                        "0,50,coll_end,MPI_Bcast,0,1,,0,100,,,bcast\n"
                                        "0,60,send,MPI_Send,0,1,5,0,,shm,,,8/\n"
                                        "1,10,recv,MPI_Recv,0,0,5,256,,shm,,,128/\n"
                                        "1,20,coll_end,MPI_Gather,0,0,,6,0,,,gather,2/\n");
    static const unsigned want[8][2] = {{4, 4}, {8, 8}, {4, 0},   {0, 24},
                                        {0, 0}, {8, 0}, {128, 0}, {2, 0}};
    const char *csv = rt_test_tmp_path("esize-back.csv"), *otf2 = rt_test_tmp_path("esize-otf2"),
               *csv2 = rt_test_tmp_path("esize-otf2.csv");
    unlink(csv);
    unlink(csv2);
    remove_any(otf2);
    convert(in, csv, RT_FMT_CSV);
    convert(in, otf2, RT_FMT_OTF2);
    convert(otf2, csv2, RT_FMT_CSV);
    const char *paths[] = {in, csv, otf2, csv2};
    loaded l[4];
    rt_err err;
    for (int i = 0; i < 4; i++) {
        if (load(paths[i], &l[i], &err))
            fail_msg("%s", err.msg);
        assert_true(l[i].defs.flags & RT_DEFS_ELEM_SIZES);
        assert_int_equal(l[i].n, 8);
        for (size_t j = 0; j < 8; j++)
            if (rt_esize_of(l[i].ev[j].esize) != want[j][0] ||
                rt_esize_of(l[i].ev[j].resize) != want[j][1])
                fail_msg("%s: event %zu has sizes %llu/%llu, expected %u/%u", paths[i], j,
                         (unsigned long long)rt_esize_of(l[i].ev[j].esize),
                         (unsigned long long)rt_esize_of(l[i].ev[j].resize), want[j][0],
                         want[j][1]);
        if (i)
            assert_same_events(&l[0], &l[i]);
    }
    for (int i = 0; i < 4; i++)
        unload(&l[i]);
    /* the column as written: absent where both sides are unknown */
    char text[4096];
    read_text(csv, text, sizeof text);
    assert_non_null(strstr(text, "\nelem_sizes\n"));
    assert_non_null(strstr(text, "\n0,10,coll_end,MPI_Allreduce,0,,,16,16,,,allreduce,4/4\n"));
    assert_non_null(strstr(text, "\n0,50,coll_end,MPI_Bcast,0,1,,0,100,,,bcast\n"));
    assert_non_null(strstr(text, "\n1,10,recv,MPI_Recv,0,0,5,256,,shm,,,128/\n"));
    /* a trace without sizes: none, and the flag unset */
    const char *old = rt_test_write_file(
        "esize-old.csv", "ranks,1\n0,10,coll_end,MPI_Allreduce,0,,,16,16,,,allreduce\n");
    assert_int_equal(load(old, &l[0], &err), 0);
    assert_false(l[0].defs.flags & RT_DEFS_ELEM_SIZES);
    assert_int_equal(l[0].ev[0].esize, 0);
    assert_int_equal(l[0].ev[0].resize, 0);
    unload(&l[0]);
    expect_open_error(rt_test_write_file("esize-100.csv", "ranks,1\nelem_sizes\n"
                                                          "0,10,coll_end,MPI_Bcast,0,0,,100,0,,,"
                                                          "bcast,100/\n"),
                      RT_E_INVAL, "element size 100 is not one a trace keeps");
    expect_open_error(rt_test_write_file("esize-kind.csv",
                                         "ranks,1\nelem_sizes\n"
                                         "0,10,coll_begin,MPI_Bcast,,,,,,,,,4/4\n"),
                      RT_E_FORMAT, "event coll_begin has no element sizes");
    expect_open_error(rt_test_write_file("esize-slash.csv",
                                         "ranks,1\n0,10,coll_end,MPI_Bcast,0,0,,8,0,,,bcast,8\n"),
                      RT_E_FORMAT, "bad element sizes '8' (expected S/R)");
}

/*
 * The assert of a fence, post and start (rt_rma_assert) through every form: read from CSV (the
 * names in the TAG column, empty for none, in any order), written to CSV (table order) and to
 * OTF2 (the retrace::assert attribute, left out for none) and read back; bits a call does not
 * take, and unknown names, are refused.
 */
static void test_rma_assert_roundtrip(void **state)
{
    const char *in = rt_test_write_file("assert.csv",
                                        "ranks,2\n"
                                        "group,0,1\n"
                                        "group,1,0\n"
                                        "win,0,0\n"
                                        "0,10,rma_coll_end,MPI_Win_fence,0,,,,,,,barrier\n"
                                        "0,20,rma_coll_end,MPI_Win_fence,0,,noprecede,,,,,barrier\n"
                                        "0,30,rma_coll_end,MPI_Win_fence,0,,nosucceed|nostore|"
                                        "noput|noprecede,,,,,barrier\n"
                                        "0,40,group_sync,MPI_Win_start,0,0,nocheck,,,,,start\n"
                                        "0,50,group_sync,MPI_Win_complete,0,0,,,,,,complete\n"
                                        "1,40,group_sync,MPI_Win_post,0,1,noput|nocheck,,,,,post\n"
                                        "1,50,group_sync,MPI_Win_wait,0,1,,,,,,wait\n");
    static const int32_t want[7] = {0,
                                    RT_ASSERT_NOPRECEDE,
                                    RT_ASSERT_FENCE,
                                    RT_ASSERT_NOCHECK,
                                    0,
                                    RT_ASSERT_NOCHECK | RT_ASSERT_NOPUT,
                                    0};
    const char *csv = rt_test_tmp_path("assert-back.csv"), *otf2 = rt_test_tmp_path("assert-otf2"),
               *csv2 = rt_test_tmp_path("assert-otf2.csv");
    unlink(csv);
    unlink(csv2);
    remove_any(otf2);
    convert(in, csv, RT_FMT_CSV);
    convert(in, otf2, RT_FMT_OTF2);
    convert(otf2, csv2, RT_FMT_CSV);
    const char *paths[] = {in, csv, otf2, csv2};
    loaded l[4];
    rt_err err;
    for (int i = 0; i < 4; i++) {
        if (load(paths[i], &l[i], &err))
            fail_msg("%s", err.msg);
        assert_int_equal(l[i].n, 7);
        for (size_t j = 0; j < 7; j++)
            if (l[i].ev[j].tag != want[j])
                fail_msg("%s: event %zu has assert %d, expected %d", paths[i], j,
                         (int)l[i].ev[j].tag, (int)want[j]);
        if (i)
            assert_same_events(&l[0], &l[i]);
    }
    for (int i = 0; i < 4; i++)
        unload(&l[i]);
    char text[4096];
    read_text(csv, text, sizeof text);
    assert_non_null(strstr(text, "\n0,10,rma_coll_end,MPI_Win_fence,0,,,,,,,barrier\n"));
    assert_non_null(strstr(text, "\n0,30,rma_coll_end,MPI_Win_fence,0,,nostore|noput|noprecede|"
                                 "nosucceed,,,,,barrier\n"));
    assert_non_null(strstr(text, "\n1,40,group_sync,MPI_Win_post,0,1,nocheck|noput,,,,,post\n"));
    /* what a call does not take, a name twice, an unknown name */
    static const char *const bad[][2] = {
        {"0,10,rma_coll_end,MPI_Win_fence,0,,nocheck,,,,,barrier\n",
         "rma_coll_end: assert 1 has bits a fence does not take"},
        {"0,10,group_sync,MPI_Win_start,0,0,noput,,,,,start\n",
         "group_sync: assert 4 has bits a start does not take"},
        {"0,10,group_sync,MPI_Win_wait,0,0,nocheck,,,,,wait\n",
         "group_sync: assert 1 has bits a wait does not take"},
        {"0,10,rma_coll_end,MPI_Win_fence,0,,noput|noput,,,,,barrier\n",
         "unknown assert 'noput|noput'"},
        {"0,10,rma_coll_end,MPI_Win_fence,0,,noput|,,,,,barrier\n", "unknown assert 'noput|'"},
        {"0,10,rma_coll_end,MPI_Win_fence,0,,8,,,,,barrier\n", "unknown assert '8'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text2[512];
        snprintf(text2, sizeof text2, "ranks,2\ngroup,0,1\nwin,0,0\n%s", bad[i][0]);
        loaded b;
        const char *p = rt_test_write_file("assert-bad.csv", text2);
        assert_int_not_equal(load(p, &b, &err), 0);
        if (!strstr(err.msg, bad[i][1]))
            fail_msg("%s: got '%s', expected '%s'", bad[i][0], err.msg, bad[i][1]);
        unload(&b); /* what a failed load holds (expect_open_error does the same) */
    }
}

/* OTF2 numbers definitions densely: sparse ids are renumbered in order, and every peer
 * still resolves to the same world rank. */
static void test_otf2_renumbers_sparse_ids(void **state)
{
    const char *in = rt_test_write_file("sparse.csv", "ranks,3\n"
                                                      "comm,20,0,c,2 0\n"
                                                      "comm,7,,b,1 2\n"
                                                      "group,40,2 1\n"
                                                      "win,30,20\n"
                                                      "0,1,send,,20,0,1,8,,,,\n"
                                                      "1,1,send,,7,1,1,8,,,,\n"
                                                      "2,1,put,,30,1,,4,,,1,\n"
                                                      "2,2,group_sync,,30,40,,,,,,post\n");
    const char *otf2 = rt_test_tmp_path("sparse-otf2");
    remove_any(otf2);
    convert(in, otf2, RT_FMT_OTF2);
    loaded a, b;
    rt_err err;
    assert_int_equal(load(in, &a, &err), 0);
    assert_int_equal(load(otf2, &b, &err), 0);
    assert_int_equal(b.defs.ncomms, 4);
    assert_int_equal(b.defs.comms[2].id, 2); /* was 7 */
    assert_int_equal(b.defs.comms[3].id, 3); /* was 20 */
    assert_int_equal(b.defs.comms[3].parent, 0);
    assert_int_equal(b.defs.comms[2].parent, RT_ID_NONE);
    assert_int_equal(b.defs.wins[0].id, 0);
    assert_int_equal(b.defs.wins[0].comm, 3);
    assert_int_equal(b.defs.groups[0].id, 0);
    assert_int_equal(b.n, a.n);
    for (size_t i = 0; i < a.n; i++)
        if (a.ev[i].kind != RT_EV_RMA_GROUP_SYNC)
            assert_int_equal(rt_defs_peer_world(&a.defs, &a.ev[i]),
                             rt_defs_peer_world(&b.defs, &b.ev[i]));
    assert_int_equal(b.ev[3].peer, 0);
    assert_int_equal(rt_defs_peer_world(&b.defs, &b.ev[0]), 2);
    unload(&a);
    unload(&b);
}

static const char *fresh_archive(const char *name)
{
    const char *dir = rt_test_tmp_path(name);
    remove_any(dir);
    convert(ALL_KINDS, dir, RT_FMT_OTF2);
    return dir;
}

static void test_otf2_damaged(void **state)
{
    char f[1200];
    const char *a = fresh_archive("dmg-anchor");
    snprintf(f, sizeof f, "%s/traces.otf2", a);
    rt_test_write_file("dmg-anchor/traces.otf2", "this is no anchor\n");
    expect_open_error(a, RT_E_FORMAT,
                      "dmg-anchor/traces.otf2: damaged OTF2 anchor file: not an OTF2 anchor "
                      "file (no chunk header)");
    /* a file taken for OTF2 by its first bytes, not named as an anchor: the archive's file
     * names, derived from NAME.otf2, came out of a size_t wrapped below 0 (the wrap-hunting
     * build, fuzz_ti) */
    expect_open_error(rt_test_write_file("x.ti", "OTF2 is not this\n"), RT_E_FORMAT,
                      "x.ti: not a trace (an OTF2 anchor file is named NAME.otf2)");

    const char *d = fresh_archive("dmg-defs");
    snprintf(f, sizeof f, "%s/traces.def", d);
    struct stat st;
    assert_int_equal(stat(f, &st), 0);
    assert_int_equal(truncate(f, st.st_size / 2), 0);
    expect_open_error(d, RT_E_FORMAT,
                      "dmg-defs: damaged OTF2 archive: traces.def: cut short: the record at "
                      "byte 6350 runs past the end of the file");

    const char *e = fresh_archive("dmg-empty-defs");
    snprintf(f, sizeof f, "%s/traces.def", e);
    assert_int_equal(truncate(f, 0), 0);
    expect_open_error(e, RT_E_FORMAT,
                      "dmg-empty-defs/traces.def: damaged OTF2 archive: cut short (0 bytes "
                      "cannot hold the ");
}

/* OTF2's flush callback for write_nbr_archive: no flush records. */
static OTF2_FlushType no_flush_record(void *data, OTF2_FileType type, OTF2_LocationRef loc,
                                      void *caller, bool final)
{
    return OTF2_FLUSH;
}

/* A 2-rank archive written with OTF2 itself: one communicator (ref 0) of both ranks, and on
 * rank 0 the property retrace::sources::0 (and with dests retrace::destinations::0) naming
 * group ref `group`; group 2 has the one member `member`. */
static void write_nbr_archive(const char *dir, int dests, uint32_t group, uint64_t member)
{
    static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = no_flush_record};
    remove_any(dir);
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    assert_non_null(a);
    assert_int_equal(OTF2_Archive_SetFlushCallbacks(a, &flush, NULL), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(a), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_OpenEvtFiles(a), OTF2_SUCCESS);
    for (uint64_t r = 0; r < 2; r++)
        assert_int_equal(OTF2_Archive_CloseEvtWriter(a, OTF2_Archive_GetEvtWriter(a, r)),
                         OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_CloseEvtFiles(a), OTF2_SUCCESS);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    static const char *const str[] = {
        "", "MPI Rank", "thread", "retrace::sources::0", "retrace::destinations::0", "node"};
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, 1, OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t i = 0; i < 6; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, str[i]);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 5, 5, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < 2; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, 2, OTF2_LOCATION_TYPE_CPU_THREAD, 0, r);
    }
    uint64_t both[] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_UNKNOWN, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 1, &member);
    OTF2_AttributeValue v;
    v.groupRef = group;
    OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, 0, 3, OTF2_TYPE_GROUP, v);
    if (dests)
        OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, 0, 4, OTF2_TYPE_GROUP, v);
    assert_int_equal(OTF2_Archive_Close(a), OTF2_SUCCESS);
}

/* A 2-rank archive from another writer, written with OTF2 itself: each rank enters and
 * leaves MPI_Barrier at time stamps 10 and leave, on a clock of resolution ticks a second.
 * Its string, region and group refs are near 2^32 (OTF2 lets a writer choose any number). */
static void write_other_archive(const char *dir, uint64_t resolution, uint64_t leave)
{
    static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = no_flush_record};
    const uint32_t big = 4000000000u;
    remove_any(dir);
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    assert_non_null(a);
    assert_int_equal(OTF2_Archive_SetFlushCallbacks(a, &flush, NULL), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(a), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_OpenEvtFiles(a), OTF2_SUCCESS);
    for (uint64_t r = 0; r < 2; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, r);
        assert_int_equal(OTF2_EvtWriter_Enter(w, NULL, 10, big + 1), OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_Leave(w, NULL, leave, big + 1), OTF2_SUCCESS);
        assert_int_equal(OTF2_Archive_CloseEvtWriter(a, w), OTF2_SUCCESS);
    }
    assert_int_equal(OTF2_Archive_CloseEvtFiles(a), OTF2_SUCCESS);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, resolution, 0, leave, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(g, 0, "");
    OTF2_GlobalDefWriter_WriteString(g, big, "MPI_Barrier");
    OTF2_GlobalDefWriter_WriteString(g, big + 2, "node");
    OTF2_GlobalDefWriter_WriteRegion(g, big + 1, big, big, 0, OTF2_REGION_ROLE_BARRIER,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, big + 2, big + 2,
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < 2; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, 0, OTF2_LOCATION_TYPE_CPU_THREAD, 2, r);
    }
    uint64_t both[] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteGroup(g, big, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    assert_int_equal(OTF2_Archive_Close(a), OTF2_SUCCESS);
}

/* A new archive at dir, its event files open, for write_pending_archive and write_attr_archive. */
static OTF2_Archive *open_two_ranks(const char *dir)
{
    static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = no_flush_record};
    remove_any(dir);
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    assert_non_null(a);
    assert_int_equal(OTF2_Archive_SetFlushCallbacks(a, &flush, NULL), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(a), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_OpenEvtFiles(a), OTF2_SUCCESS);
    return a;
}

/* Their global definitions, and the archive closed: region 0 MPI_Recv, parameter 0
 * retrace::pending, ranks 0 and 1 (nevents records each) in MPI_COMM_WORLD (comm 0); with
 * attrs, the attributes retrace::contype (ref 0) and another (ref 1), both uint8. */
static void close_two_ranks(OTF2_Archive *a, const uint64_t nevents[2], int attrs)
{
    assert_int_equal(OTF2_Archive_CloseEvtFiles(a), OTF2_SUCCESS);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    static const char *const str[] = {"",         "MPI_Recv",         "retrace::pending", "node",
                                      "MPI Rank", "retrace::contype", "another"};
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, 20, OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t i = 0; i < (attrs ? 7u : 5u); i++)
        OTF2_GlobalDefWriter_WriteString(g, i, str[i]);
    if (attrs) {
        OTF2_GlobalDefWriter_WriteAttribute(g, 0, 5, 0, OTF2_TYPE_UINT8);
        OTF2_GlobalDefWriter_WriteAttribute(g, 1, 6, 0, OTF2_TYPE_UINT8);
    }
    OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteParameter(g, 0, 2, OTF2_PARAMETER_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 3, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < 2; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 4, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, 4, OTF2_LOCATION_TYPE_CPU_THREAD, nevents[r], r);
    }
    uint64_t both[] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    assert_int_equal(OTF2_Archive_Close(a), OTF2_SUCCESS);
}

/* A 2-rank archive from another writer, written with OTF2 itself, with pending calls as
 * rt__otf2.h describes them: rank 1 enters MPI_Recv at 10, marks it pending (the parameter
 * retrace::pending, value 1) and waits for rank 0's message of tag 7. Rank 0 does the same
 * for tag 5 when shape is 0; else its records are another shape: 1 the mark at 10 after an
 * enter at 5, 2 a leave at 20 after the pending call, 3 the mark with value 2 (not a
 * pending call) and a leave at 20. */
static void write_pending_archive(const char *dir, int shape)
{
    OTF2_Archive *a = open_two_ranks(dir);
    uint64_t nevents[2];
    for (uint64_t r = 0; r < 2; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, r);
        int s = r ? 0 : shape;
        assert_int_equal(OTF2_EvtWriter_Enter(w, NULL, s == 1 ? 5 : 10, 0), OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_ParameterUnsignedInt(w, NULL, 10, 0, s == 3 ? 2 : 1),
                         OTF2_SUCCESS);
        if (s != 3)
            assert_int_equal(OTF2_EvtWriter_MpiRecv(w, NULL, 10, 1 - r, 0, r ? 7 : 5, 0),
                             OTF2_SUCCESS);
        if (s >= 2)
            assert_int_equal(OTF2_EvtWriter_Leave(w, NULL, 20, 0), OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_GetNumberOfEvents(w, &nevents[r]), OTF2_SUCCESS);
        assert_int_equal(OTF2_Archive_CloseEvtWriter(a, w), OTF2_SUCCESS);
    }
    close_two_ranks(a, nevents, 0);
}

/* Pending calls in an archive of another writer: read back as PENDING and their operations;
 * each wrong shape one error line naming the rank and the record (the check every reader
 * shares, formats/trace.c); a parameter of another value is no pending call. */
static void test_otf2_pending(void **state)
{
    (void)state;
    const char *dir = rt_test_tmp_path("pending-made");
    write_pending_archive(dir, 0);
    loaded l;
    rt_err err;
    if (load(dir, &l, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(l.n, 6);
    for (uint32_t r = 0; r < 2; r++) {
        const rt_event *e = &l.ev[3 * r];
        assert_int_equal(e[0].kind, RT_EV_ENTER);
        assert_int_equal(e[1].kind, RT_EV_PENDING);
        assert_int_equal(e[1].call, RT_FN_Recv);
        assert_int_equal(e[1].time, 10);
        assert_int_equal(e[2].kind, RT_EV_RECV);
        assert_int_equal(e[2].call, RT_FN_Recv);
        assert_int_equal(e[2].peer, 1 - (int)r);
        assert_int_equal(e[2].tag, r ? 7 : 5);
        assert_int_equal(e[2].bytes, 0);
    }
    assert_null(l.truncated);
    unload(&l);
    write_pending_archive(dir, 1);
    expect_open_error(dir, RT_E_FORMAT,
                      "pending-made: rank 0, record 2: pending MPI_Recv at 10 ns: not right "
                      "after the enter of MPI_Recv at that time");
    write_pending_archive(dir, 2);
    expect_open_error(dir, RT_E_FORMAT,
                      "pending-made: rank 0, record 4: leave of MPI_Recv at 20 ns: the rank's "
                      "call MPI_Recv at 10 ns is pending, it never returned");
    write_pending_archive(dir, 3);
    if (load(dir, &l, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(l.n, 5);
    assert_int_equal(l.ev[0].kind, RT_EV_ENTER);
    assert_int_equal(l.ev[1].kind, RT_EV_LEAVE);
    assert_int_equal(l.ev[1].time, 20);
    unload(&l);
}

/* An archive of another writer whose records carry attribute lists: on each rank an enter of
 * MPI_Recv, the pending-call parameter with our contype attribute (a kind without a connection
 * type: the reader must drop it, as it hands its events normalised, rt__reader_check_block),
 * and the receive with another attribute before ours, contype 3 as uint8 on rank 0 and as
 * uint32 on rank 1 (the wrong type: read as absent, as OTF2's typed getters would). */
static void write_attr_archive(const char *dir)
{
    OTF2_Archive *a = open_two_ranks(dir);
    uint64_t nevents[2];
    for (uint64_t r = 0; r < 2; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, r);
        OTF2_AttributeList *pending = OTF2_AttributeList_New(), *recv = OTF2_AttributeList_New();
        assert_non_null(pending);
        assert_non_null(recv);
        assert_int_equal(OTF2_AttributeList_AddUint8(pending, 0, RT_CT_SHM), OTF2_SUCCESS);
        assert_int_equal(OTF2_AttributeList_AddUint8(recv, 1, 9), OTF2_SUCCESS);
        assert_int_equal(r ? OTF2_AttributeList_AddUint32(recv, 0, RT_CT_NET)
                           : OTF2_AttributeList_AddUint8(recv, 0, RT_CT_NET),
                         OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_Enter(w, NULL, 10, 0), OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_ParameterUnsignedInt(w, pending, 10, 0, 1), OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_MpiRecv(w, recv, 10, 1 - r, 0, 5, 8), OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_GetNumberOfEvents(w, &nevents[r]), OTF2_SUCCESS);
        assert_int_equal(OTF2_Archive_CloseEvtWriter(a, w), OTF2_SUCCESS);
        OTF2_AttributeList_Delete(pending);
        OTF2_AttributeList_Delete(recv);
    }
    close_two_ranks(a, nevents, 1);
}

static void test_otf2_attr_lists(void **state)
{
    (void)state;
    const char *dir = rt_test_tmp_path("attr-lists");
    write_attr_archive(dir);
    loaded l;
    rt_err err;
    if (load(dir, &l, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(l.n, 6);
    for (uint32_t r = 0; r < 2; r++) {
        const rt_event *e = &l.ev[3 * r];
        assert_int_equal(e[1].kind, RT_EV_PENDING);
        assert_int_equal(e[1].contype, RT_CT_NONE);
        assert_int_equal(e[2].kind, RT_EV_RECV);
        assert_int_equal(e[2].bytes, 8);
        assert_int_equal(e[2].contype, r ? RT_CT_NONE : RT_CT_NET);
    }
    unload(&l);
}

/* A 2-rank archive of another writer whose rank 0 sends a valid isend (peer 1, request 1)
 * and then, in the same block, a record that is wrong by one field, by shape: 0 an isend to
 * peer 2 of the 2 ranks, 1 an isend of request id 2^64 - 1 (none), 2 an irecv with contype
 * 9, 3 an isend on communicator 7, which is not defined. */
static void write_bad_p2p_archive(const char *dir, int shape)
{
    OTF2_Archive *a = open_two_ranks(dir);
    uint64_t nevents[2];
    for (uint64_t r = 0; r < 2; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, r);
        OTF2_AttributeList *attrs = OTF2_AttributeList_New();
        assert_non_null(attrs);
        assert_int_equal(OTF2_AttributeList_AddUint8(attrs, 0, 9), OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_MpiIsend(w, NULL, 10, 1 - r, 0, 0, 8, 1), OTF2_SUCCESS);
        OTF2_ErrorCode ec = OTF2_SUCCESS;
        if (r == 0 && shape == 0)
            ec = OTF2_EvtWriter_MpiIsend(w, NULL, 11, 2, 0, 0, 8, 2);
        else if (r == 0 && shape == 1)
            ec = OTF2_EvtWriter_MpiIsend(w, NULL, 11, 1, 0, 0, 8, UINT64_MAX);
        else if (r == 0 && shape == 2)
            ec = OTF2_EvtWriter_MpiIrecv(w, attrs, 11, 1, 0, 0, 8, 2);
        else if (r == 0 && shape == 3)
            ec = OTF2_EvtWriter_MpiIsend(w, NULL, 11, 1, 7, 0, 8, 2);
        assert_int_equal(ec, OTF2_SUCCESS);
        assert_int_equal(OTF2_EvtWriter_GetNumberOfEvents(w, &nevents[r]), OTF2_SUCCESS);
        assert_int_equal(OTF2_Archive_CloseEvtWriter(a, w), OTF2_SUCCESS);
        OTF2_AttributeList_Delete(attrs);
    }
    close_two_ranks(a, nevents, 1);
}

/* The checks of a block's events that name the communicator of the one before (the block
 * check keeps it, formats/trace.c): each wrong field still the error of rt_event_check,
 * naming the rank and the record. */
static void test_otf2_bad_p2p(void **state)
{
    (void)state;
    const char *dir = rt_test_tmp_path("bad-p2p");
    write_bad_p2p_archive(dir, 0);
    expect_open_error(dir, RT_E_INVAL,
                      "bad-p2p: rank 0, record 2: isend: peer 2 is not a rank of communicator 0");
    write_bad_p2p_archive(dir, 1);
    expect_open_error(dir, RT_E_INVAL,
                      "bad-p2p: rank 0, record 2: isend: request id 18446744073709551615 is "
                      "reserved (it stands for none)");
    write_bad_p2p_archive(dir, 2);
    expect_open_error(dir, RT_E_INVAL,
                      "bad-p2p: rank 0, record 2: irecv: unknown connection type 9");
    write_bad_p2p_archive(dir, 3);
    expect_open_error(dir, RT_E_INVAL,
                      "bad-p2p: rank 0, record 2: isend: communicator 7 is not defined");
}

/* The op of a collective end from OTF2's op alone (no op attribute, as in Score-P's archives;
 * a table by OTF2 op): each of ours but the neighbourhood collectives, which OTF2 3.0 lacks,
 * comes back; those come back as the op they are written as; anything else is a barrier. */
static void test_otf2_default_coll_op(void **state)
{
    (void)state;
    const unsigned kinds[] = {RT_EV_COLL_END, RT_EV_NBC_COMPLETE, RT_EV_RMA_COLL_END};
    const unsigned as[][2] = {{RT_COLL_NEIGHBOR_ALLGATHER, RT_COLL_ALLGATHER},
                              {RT_COLL_NEIGHBOR_ALLGATHERV, RT_COLL_ALLGATHERV},
                              {RT_COLL_NEIGHBOR_ALLTOALL, RT_COLL_ALLTOALL},
                              {RT_COLL_NEIGHBOR_ALLTOALLV, RT_COLL_ALLTOALLV},
                              {RT_COLL_NEIGHBOR_ALLTOALLW, RT_COLL_ALLTOALLW}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
            unsigned want = op;
            for (size_t i = 0; i < sizeof as / sizeof *as; i++)
                if (as[i][0] == op)
                    want = as[i][1];
            unsigned v = (unsigned)rt__otf2_coll_op(op);
            assert_int_equal(rt__otf2_default_op(kinds[k], v, RT_FN_NONE), want);
        }
        for (unsigned v = 0; v < 300; v++) { /* values no op of ours is written as */
            unsigned op = 0;
            while (op < RT_COLL_COUNT && (unsigned)rt__otf2_coll_op(op) != v)
                op++;
            if (op == RT_COLL_COUNT)
                assert_int_equal(rt__otf2_default_op(kinds[k], v, RT_FN_NONE), RT_COLL_BARRIER);
        }
    }
}

/* Refs anything but dense: the reader keeps them in maps. It used to grow a table up to each
 * ref (fuzz_otf2_defs: one string of ref 2^27 took 1 GiB; 4000000000 cannot be had). */
static void test_otf2_huge_refs(void **state)
{
    (void)state;
    const char *dir = rt_test_tmp_path("huge-refs");
    write_other_archive(dir, 1000000000u, 20);
    loaded l;
    rt_err err;
    if (load(dir, &l, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(l.defs.nranks, 2);
    assert_int_equal(l.defs.ngroups, 1); /* group ref 4000000000 is our group 0 */
    assert_int_equal(l.defs.groups[0].size, 2);
    assert_int_equal(l.n, 4);
    for (size_t i = 0; i < l.n; i++)
        assert_int_equal(l.ev[i].call, RT_FN_Barrier);
    assert_int_equal(l.ev[1].time, 20);
    unload(&l);
}

/* A clock coarser than 1 ns takes time stamps to nanoseconds past what an event's time
 * holds: an error naming the record, not a time wrapped round to an early one. */
static void test_otf2_time_past(void **state)
{
    (void)state;
    const char *dir = rt_test_tmp_path("time-past");
    write_other_archive(dir, 1, 20); /* 1 tick a second: 20 s */
    loaded l;
    rt_err err;
    if (load(dir, &l, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(l.ev[1].time, UINT64_C(20000000000));
    unload(&l);
    write_other_archive(dir, 1, UINT64_C(1) << 40);
    expect_open_error(dir, RT_E_RANGE,
                      "time-past: rank 0, record 2: time stamp 1099511627776 ticks after the "
                      "clock's offset at 1 ticks a second is past 2^64 ns (584 years)");
}

/* Neighbour-list properties another writer got wrong: one error line each. */
static void test_otf2_bad_nbrs(void **state)
{
    const char *dir = rt_test_tmp_path("nbrs-made");
    write_nbr_archive(dir, 1, 2, 1);
    loaded l;
    rt_err err;
    assert_int_equal(load(dir, &l, &err), 0);
    assert_int_equal(l.defs.nnbrs, 1);
    assert_int_equal(l.defs.nbrs[0].rank, 0);
    assert_int_equal(l.defs.nbrs[0].comm, 0);
    assert_int_equal(l.defs.nbrs[0].in[0], 1);
    assert_int_equal(l.defs.nbrs[0].out[0], 1);
    unload(&l);
    write_nbr_archive(dir, 0, 2, 1);
    expect_open_error(dir, RT_E_FORMAT,
                      "damaged OTF2 archive: location group 0: neighbour lists of communicator "
                      "0 without a process, or not as a pair of sources and destinations");
    write_nbr_archive(dir, 1, 7, 1);
    expect_open_error(dir, RT_E_FORMAT,
                      "damaged OTF2 archive: rank 0: the neighbour list group 7 of "
                      "communicator 0 is missing or not ranks");
    write_nbr_archive(dir, 1, 2, 1ull << 40);
    expect_open_error(dir, RT_E_FORMAT, "rank 0: the neighbour list group 2 of communicator 0");
    write_nbr_archive(dir, 1, 2, 5);
    expect_open_error(dir, RT_E_INVAL,
                      "damaged OTF2 archive: neighbour lists of rank 0 on communicator 0: "
                      "sources 0 is 5, not a rank of the communicator (0 to 1) or none");
}

/* A killed run's event file ends early: read up to its last complete event, with a
 * warning that names the rank. */
static void test_otf2_truncated_events(void **state)
{
    const char *a = fresh_archive("cut-otf2");
    char f[1200];
    snprintf(f, sizeof f, "%s/traces/0.evt", a);
    struct stat st;
    assert_int_equal(stat(f, &st), 0);
    assert_int_equal(truncate(f, st.st_size / 2), 0);
    loaded full, cut;
    rt_err err;
    assert_int_equal(load(ALL_KINDS, &full, &err), 0);
    assert_int_equal(load(a, &cut, &err), 0);
    assert_non_null(cut.truncated);
    assert_non_null(strstr(cut.truncated, "trace cut short: rank 0's events end early, after"));
    size_t rank0 = 0, rank0_cut = 0;
    while (rank0 < full.n && full.ev[rank0].rank == 0)
        rank0++;
    while (rank0_cut < cut.n && cut.ev[rank0_cut].rank == 0)
        rank0_cut++;
    assert_true(rank0_cut > 0 && rank0_cut < rank0);
    /* what was read is exactly the start of rank 0, and all of the other ranks */
    for (size_t i = 0; i < rank0_cut; i++)
        assert_true(rt_event_equal(&full.ev[i], &cut.ev[i]));
    assert_int_equal(cut.n - rank0_cut, full.n - rank0);
    for (size_t i = rank0_cut; i < cut.n; i++)
        assert_true(rt_event_equal(&full.ev[rank0 + i - rank0_cut], &cut.ev[i]));
    unload(&cut);

    /* Wherever the cut falls, what is read is a prefix of rank 0's events. */
    const char *b = fresh_archive("cut-otf2-many");
    snprintf(f, sizeof f, "%s/traces/0.evt", b);
    FILE *in = fopen(f, "rb");
    assert_non_null(in);
    static unsigned char bytes[1 << 16];
    size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    assert_true(size > 64 && size < sizeof bytes);
    size_t last = 0;
    for (size_t at = 40; at < size - 2; at++) {
        FILE *o = fopen(f, "wb");
        assert_non_null(o);
        assert_int_equal(fwrite(bytes, 1, at, o), at);
        fclose(o);
        assert_int_equal(load(b, &cut, &err), 0);
        assert_non_null(cut.truncated);
        size_t k = 0;
        while (k < cut.n && cut.ev[k].rank == 0)
            k++;
        for (size_t i = 0; i < k; i++)
            if (!rt_event_equal(&full.ev[i], &cut.ev[i]))
                fail_msg("cut at byte %zu: event %zu is not the original", at, i);
        if (k > last)
            last = k;
        unload(&cut);
    }
    assert_true(last >= rank0 - 2);
    unload(&full);
}

/* Reading in parts (rt_reader_open_ranks): the parts' events, one part after the other, are
 * the whole reader's; each rank weighs its records; ranges past the ranks and formats read as
 * a whole are refused. */
static void test_otf2_parts(void **state)
{
    const char *otf2 = rt_test_tmp_path("rt-parts");
    remove_any(otf2);
    convert(ALL_KINDS, otf2, RT_FMT_OTF2);
    loaded whole;
    rt_err err;
    assert_int_equal(load(otf2, &whole, &err), 0);
    rt_reader *r;
    assert_int_equal(rt_reader_open(otf2, &r, &err), 0);
    uint32_t n = rt_reader_defs(r)->nranks;
    assert_int_equal(n, 4);
    assert_true(rt_reader_can_split(r));
    uint64_t records = 0;
    for (uint32_t i = 0; i < n; i++)
        records += rt_reader_rank_size(r, i);
    uint64_t targets = 0; /* an RMA_TARGET rides on its transfer's record as attributes */
    for (size_t i = 0; i < whole.n; i++)
        targets += whole.ev[i].kind == RT_EV_RMA_TARGET;
    assert_true(targets > 0);
    assert_int_equal(records + targets, whole.n);
    assert_int_equal(rt_reader_rank_size(r, n), 0);
    rt_reader_close(r);
    /* parts {0}, {1, 2}, {3} */
    static const uint32_t cut[] = {0, 1, 3, 4};
    size_t k = 0;
    for (int p = 0; p < 3; p++) {
        assert_int_equal(rt_reader_open_ranks(otf2, cut[p], cut[p + 1], &r, &err), 0);
        rt_event ev;
        int rc;
        while ((rc = rt_reader_next(r, &ev, &err)) > 0) {
            assert_true(k < whole.n);
            assert_true(ev.rank >= cut[p] && ev.rank < cut[p + 1]);
            assert_true(rt_event_equal(&ev, &whole.ev[k++]));
        }
        assert_int_equal(rc, 0);
        assert_int_equal(rt_reader_end_check(r, &err), 0);
        rt_reader_close(r);
    }
    assert_int_equal(k, whole.n);
    unload(&whole);
    assert_int_equal(rt_reader_open_ranks(otf2, 2, 5, &r, &err), -RT_E_RANGE);
    assert_non_null(strstr(err.msg, "ranks 2 to 4: the trace has 4"));
    assert_int_equal(rt_reader_open_ranks(otf2, 2, 2, &r, &err), -RT_E_RANGE);
    assert_int_equal(rt_reader_open_ranks(ALL_KINDS, 0, 1, &r, &err), -RT_E_INVAL);
    assert_non_null(strstr(err.msg, "a csv trace is read as a whole"));
    assert_int_equal(rt_reader_open(ALL_KINDS, &r, &err), 0);
    assert_false(rt_reader_can_split(r));
    rt_reader_close(r);
    (void)state;
}
/*
 * Threads: the CSV thread column, one OTF2 location per thread (thread t of rank r at ref
 * t << 32 | r, as Score-P numbers them) and a rank's threads read back merged by time, the
 * lower thread first on a tie, each event with its thread; a thread past RT_THREAD_MAX is refused.
 */
static void test_thread_roundtrip(void **state)
{
    (void)state;
    const char *in = rt_test_write_file("threads.csv", "ranks,2\n"
                                                       "0,10,send,MPI_Send,0,1,5,8,,shm,,\n"
                                                       "0,15,send,MPI_Send,0,1,6,16,,shm,,,,1\n"
                                                       "0,15,send,MPI_Send,0,1,7,24,,shm,,,,2\n"
                                                       "0,20,send,MPI_Send,0,1,5,8,,shm,,,,2\n"
                                                       "0,30,send,MPI_Send,0,1,5,8,,shm,,\n"
                                                       "1,10,recv,MPI_Recv,0,0,5,8,,shm,,\n"
                                                       "1,40,recv,MPI_Recv,0,0,6,16,,shm,,\n");
    static const unsigned want[7] = {0, 1, 2, 2, 0, 0, 0};
    static const unsigned tags[7] = {5, 6, 7, 5, 5, 5, 6};
    const char *otf2 = rt_test_tmp_path("threads-otf2"),
               *csv = rt_test_tmp_path("threads-back.csv");
    unlink(csv);
    remove_any(otf2);
    convert(in, otf2, RT_FMT_OTF2);
    convert(otf2, csv, RT_FMT_CSV);
    const char *paths[] = {in, otf2, csv};
    loaded l[3];
    rt_err err;
    for (int i = 0; i < 3; i++) {
        if (load(paths[i], &l[i], &err))
            fail_msg("%s", err.msg);
        assert_int_equal(l[i].n, 7);
        for (size_t j = 0; j < 7; j++)
            if (l[i].ev[j].thread != want[j] || (unsigned)l[i].ev[j].tag != tags[j])
                fail_msg("%s: event %zu is of thread %u with tag %d, expected %u and %u", paths[i],
                         j, l[i].ev[j].thread, l[i].ev[j].tag, want[j], tags[j]);
        if (i)
            assert_same_events(&l[0], &l[i]);
    }
    for (int i = 0; i < 3; i++)
        unload(&l[i]);
    /* the locations: rank 0's threads 1 and 2 have event files of their own, rank 1 has one */
    char path[4096];
    static const char *const files[] = {"0.evt", "1.evt", "4294967296.evt", "8589934592.evt"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/traces/%s", otf2, files[i]);
        if (access(path, F_OK))
            fail_msg("%s: missing", path);
    }
    snprintf(path, sizeof path, "%s/traces/4294967297.evt", otf2);
    assert_int_not_equal(access(path, F_OK), 0);
    /* a thread the event model cannot hold */
    const char *bad =
        rt_test_write_file("threads-bad.csv", "ranks,1\n0,10,send,MPI_Send,0,0,5,8,,shm,,,,256\n");
    loaded b;
    assert_int_equal(load(bad, &b, &err), -RT_E_INVAL);
    assert_non_null(strstr(err.msg, "bad number '256' in THREAD"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_otf2_roundtrip),
        cmocka_unit_test(test_library_roundtrip),
        cmocka_unit_test(test_recv_flags_roundtrip),
        cmocka_unit_test(test_otf2_renumbers_sparse_ids),
        cmocka_unit_test(test_rma_assert_roundtrip),
        cmocka_unit_test(test_otf2_damaged),
        cmocka_unit_test(test_otf2_truncated_events),
        cmocka_unit_test(test_otf2_bad_nbrs),
        cmocka_unit_test(test_otf2_huge_refs),
        cmocka_unit_test(test_otf2_pending),
        cmocka_unit_test(test_otf2_time_past),
        cmocka_unit_test(test_otf2_parts),
        cmocka_unit_test(test_esize_roundtrip),
        cmocka_unit_test(test_thread_roundtrip),
        cmocka_unit_test(test_otf2_attr_lists),
        cmocka_unit_test(test_otf2_default_coll_op),
        cmocka_unit_test(test_otf2_bad_p2p),
    };
    return rt_test_main("formats_otf2", tests, argc, argv);
}
