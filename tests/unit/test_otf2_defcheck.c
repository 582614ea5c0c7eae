/*
 * Damaged OTF2 definition files and event files (formats/otf2_defcheck.c). The OTF2 library
 * sizes an array from its count before it reads one element (a Group claiming 2^32 - 1
 * members: 32 GiB) and reads a file's last, short chunk past the end of the file. Each record
 * type with an array gets a case here: the archive is written with OTF2 itself, then the
 * record's count is changed in place, as a damaged copy would have it; the error names the
 * file, the record, its place and its size.
 */
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

#include "test_formats.h"

static char dir[1024], global[1200], local[1200];
/* Strings of 200 bytes write_archive adds to the global definitions (1500: a second chunk). */
static uint32_t padding_strings;

static OTF2_FlushType flush_always(void *data, OTF2_FileType type, OTF2_LocationRef loc,
                                   void *caller, bool final)
{
    return OTF2_FLUSH;
}

/* The global definitions: 2 ranks on one node, a world communicator, and one record of each
 * type that carries an array: IoParadigm, Group, MetricClass, CartTopology, CartCoordinate. */
static void write_global_defs(OTF2_GlobalDefWriter *g)
{
    static const char *const str[] = {"", "MPI Rank", "thread", "node", "POSIX"};
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, 1, OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t i = 0; i < 5; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, str[i]);
    char pad[201];
    memset(pad, 'x', 200);
    pad[200] = '\0';
    for (uint32_t i = 0; i < padding_strings; i++)
        OTF2_GlobalDefWriter_WriteString(g, 5 + i, pad);
    OTF2_IoParadigmProperty prop = OTF2_IO_PARADIGM_PROPERTY_VERSION;
    OTF2_Type type = OTF2_TYPE_STRING;
    OTF2_AttributeValue version = {.stringRef = 0};
    OTF2_GlobalDefWriter_WriteIoParadigm(g, 0, 0, 0, OTF2_IO_PARADIGM_CLASS_SERIAL,
                                         OTF2_IO_PARADIGM_FLAG_NONE, 1, &prop, &type, &version);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 3, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
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
    OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 0, 0, OTF2_METRIC_TYPE_OTHER,
                                           OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64,
                                           OTF2_BASE_DECIMAL, 0, 0);
    OTF2_MetricMemberRef member = 0;
    OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &member, OTF2_METRIC_SYNCHRONOUS,
                                          OTF2_RECORDER_KIND_ABSTRACT);
    OTF2_GlobalDefWriter_WriteCartDimension(g, 0, 0, 2, OTF2_CART_PERIODIC_FALSE);
    OTF2_CartDimensionRef dim = 0;
    OTF2_GlobalDefWriter_WriteCartTopology(g, 0, 0, 0, 1, &dim);
    uint32_t coordinate = 1;
    OTF2_GlobalDefWriter_WriteCartCoordinate(g, 0, 1, 1, &coordinate);
}

/* A 2-rank archive without events; rank 0 has local definitions: an identity mapping table
 * of its 3 strings. */
static void write_archive(void)
{
    static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = flush_always};
    remove_any(dir);
    OTF2_Archive *a =
        OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                          OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    assert_non_null(a);
    assert_int_equal(OTF2_Archive_SetFlushCallbacks(a, &flush, NULL), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(a), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_OpenEvtFiles(a), OTF2_SUCCESS);
    for (uint64_t r = 0; r < 2; r++)
        assert_int_equal(OTF2_Archive_CloseEvtWriter(a, OTF2_Archive_GetEvtWriter(a, r)),
                         OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_CloseEvtFiles(a), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_OpenDefFiles(a), OTF2_SUCCESS);
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(a, 0);
    uint64_t identity[] = {0, 1, 2};
    OTF2_IdMap *map = OTF2_IdMap_CreateFromUint64Array(3, identity, false);
    assert_int_equal(OTF2_DefWriter_WriteMappingTable(w, OTF2_MAPPING_STRING, map), OTF2_SUCCESS);
    OTF2_IdMap_Free(map);
    assert_int_equal(OTF2_Archive_CloseDefWriter(a, w), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_CloseDefFiles(a), OTF2_SUCCESS);
    write_global_defs(OTF2_Archive_GetGlobalDefWriter(a));
    assert_int_equal(OTF2_Archive_Close(a), OTF2_SUCCESS);
}

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "%s", rt_test_tmp_path("defcheck"));
    snprintf(global, sizeof global, "%s/traces.def", dir);
    snprintf(local, sizeof local, "%s/traces/0.def", dir);
    return 0;
}

static size_t slurp(const char *path, unsigned char *b, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(b, 1, cap, f);
    fclose(f);
    assert_true(n < cap);
    return n;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

/* The offset of the first record of type in the one-chunk definition file b (records of
 * fewer than 255 bytes, as in these archives); its length in *len. */
static size_t find_record(const unsigned char *b, size_t n, unsigned type, size_t *len)
{
    for (size_t at = 18; at + 1 < n && b[at] != 2; at += 2 + b[at + 1])
        if (b[at] == type) {
            *len = b[at + 1];
            return at;
        }
    fail_msg("no record of type %u", type);
    return 0;
}

/* Sets the byte at offset `field` of the first record of type in the file, then expects
 * "DIR: damaged OTF2 archive: NAME: <Record> definition at byte <its offset><what>". */
static void expect_patched(const char *path, const char *name, unsigned type, size_t field,
                           unsigned char value, const char *record, const char *what)
{
    write_archive();
    static unsigned char b[1 << 16];
    size_t n = slurp(path, b, sizeof b), len;
    size_t at = find_record(b, n, type, &len);
    assert_true(2 + field < 2 + len);
    b[at + 2 + field] = value;
    spit(path, b, n);
    char want[8400];
    snprintf(want, sizeof want, "%s: damaged OTF2 archive: %s: %s definition at byte %zu", dir,
             name, record, at);
    char full[8800];
    snprintf(full, sizeof full, what, len);
    strncat(want, full, sizeof want - strlen(want) - 1);
    loaded l;
    rt_err err;
    assert_int_equal(load(dir, &l, &err), -RT_E_FORMAT);
    assert_string_equal(err.msg, want);
}

/* The archive as written reads: 2 ranks, one communicator of both. */
static void test_intact(void **state)
{
    write_archive();
    loaded l;
    rt_err err;
    assert_int_equal(load(dir, &l, &err), 0);
    assert_int_equal(l.defs.nranks, 2);
    assert_int_equal(l.n, 0);
    unload(&l);
}

/* Group (global): self 0, name 0, the old type byte, then the count "01 02" (2 members).
 * Its size byte set to 0xff makes the count 2^32 - 1, the finding of fuzz_otf2_defs. */
static void test_group(void **state)
{
    expect_patched(global, "traces.def", 18, 3, 0xff, "Group",
                   " claims 4294967295 members in a record of %zu bytes");
    /* 4 members where the record holds 2: within the bytes left (members 00 and 01 01, then
     * the type, paradigm and flags 04 04 00), but the third member, 04 04 00, takes a 4-byte
     * value the record does not hold. */
    expect_patched(global, "traces.def", 18, 4, 4, "Group",
                   ": its members run past the end of their record");
    expect_patched(global, "traces.def", 18, 4, 9, "Group",
                   " claims 9 members in a record of %zu bytes");
    expect_patched(global, "traces.def", 18, 5, 9, "Group",
                   ": its members hold an integer of invalid size");
    expect_patched(global, "traces.def", 18, 0, 9, "Group", ": an integer of invalid size");
}

/* MetricClass: self 0, the count as one byte, the members. */
static void test_metric_class(void **state)
{
    expect_patched(global, "traces.def", 20, 1, 200, "MetricClass",
                   " claims 200 metric members in a record of %zu bytes");
}

/* CartTopology: self, name, communicator, the count as one byte; CartCoordinate: topology,
 * rank (1: 01 01), the count. */
static void test_cart(void **state)
{
    expect_patched(global, "traces.def", 31, 3, 100, "CartTopology",
                   " claims 100 dimensions in a record of %zu bytes");
    expect_patched(global, "traces.def", 32, 3, 50, "CartCoordinate",
                   " claims 50 coordinates in a record of %zu bytes");
}

/* IoParadigm: self, identification, name, class, flags, the count; a property takes at least
 * 3 bytes (property, type, value). */
static void test_io_paradigm(void **state)
{
    expect_patched(global, "traces.def", 8, 5, 3, "IoParadigm",
                   " claims 3 properties in a record of %zu bytes");
}

/* MappingTable (local): the mapping type, the count "01 03", the mode (0 dense), the ids
 * 00 01 01 01 02. */
static void test_mapping_table(void **state)
{
    expect_patched(local, "traces/0.def", 5, 2, 0xfe, "MappingTable",
                   " claims 254 mappings in a record of %zu bytes");
    expect_patched(local, "traces/0.def", 5, 3, 7, "MappingTable", ": unknown id map mode 7");
    /* sparse: a pair for each of the 3 mappings, in 3 bytes */
    expect_patched(local, "traces/0.def", 5, 3, 1, "MappingTable",
                   " claims 3 mappings in a record of %zu bytes");
}

/* Expects "DIR: damaged OTF2 archive: NAME: WHAT". */
static void expect_file_damage(const char *name, const char *what)
{
    char want[8400];
    snprintf(want, sizeof want, "%s: damaged OTF2 archive: %s: %s", dir, name, what);
    loaded l;
    rt_err err;
    assert_int_equal(load(dir, &l, &err), -RT_E_FORMAT);
    assert_string_equal(err.msg, want);
}

/* Chunks and marks: a file without a chunk header, one cut before its end-of-file mark, one
 * whose last record runs past its end, an empty local definitions file. */
static void test_chunks(void **state)
{
    static unsigned char b[1 << 16];
    write_archive();
    size_t n = slurp(global, b, sizeof b);
    assert_int_equal(b[n - 2], 2);
    b[0] = 7;
    spit(global, b, n);
    expect_file_damage("traces.def", "the chunk at byte 0 is no OTF2 chunk (no chunk header)");
    b[0] = 3;
    /* the end-of-file mark 02 01 made an end-of-chunk mark: the file ends with its chunk */
    b[n - 2] = 0;
    spit(global, b, n);
    char want[200];
    snprintf(want, sizeof want, "cut short (no end-of-file mark in its %zu bytes)", n);
    expect_file_damage("traces.def", want);
    /* the last record (CartCoordinate) cut by one byte, and whole but without the marks */
    size_t len, last = find_record(b, n, 32, &len);
    snprintf(want, sizeof want, "cut short: the record at byte %zu runs past the end of the file",
             last);
    spit(global, b, last + 2 + len - 1);
    expect_file_damage("traces.def", want);
    assert_int_equal(last + 2 + len, n - 2);
    spit(global, b, n - 2);
    expect_file_damage("traces.def", want);

    write_archive();
    spit(local, b, 10);
    expect_file_damage("traces/0.def", "cut short in the chunk header at byte 0");
    spit(local, b, 0);
    expect_file_damage("traces/0.def", "empty");
}

/* Global definitions over two chunks (definition chunks of 256 KiB) read whole; then the
 * first chunk's end-of-chunk mark made the start of a record that runs past its chunk, and
 * the second chunk's header damaged. */
static void test_two_chunks(void **state)
{
    padding_strings = 1500;
    write_archive();
    padding_strings = 0;
    loaded l;
    rt_err err;
    assert_int_equal(load(dir, &l, &err), 0);
    assert_int_equal(l.defs.nranks, 2);
    unload(&l);
    static unsigned char b[1 << 20];
    size_t n = slurp(global, b, sizeof b);
    assert_true(n > OTF2_CHUNK_SIZE_MIN && n < 2 * OTF2_CHUNK_SIZE_MIN);
    size_t at = 18;
    while (b[at] != 0) /* records of fewer than 255 bytes, up to the end-of-chunk mark */
        at += 2 + b[at + 1];
    assert_true(at + 2 + 254 >= OTF2_CHUNK_SIZE_MIN);
    b[at] = 10; /* a String of 254 bytes */
    b[at + 1] = 254;
    spit(global, b, n);
    char want[200];
    snprintf(want, sizeof want, "the record at byte %zu runs past the end of its chunk", at);
    expect_file_damage("traces.def", want);
    b[at] = 0;
    b[OTF2_CHUNK_SIZE_MIN] = 7;
    spit(global, b, n);
    expect_file_damage("traces.def", "the chunk at byte 262144 is no OTF2 chunk (no chunk header)");
}

/* The offset of record i (0: the first after the chunk header) of an event file written by
 * retrace, or, for an i past its records, of the last record that has a length. Time stamps
 * (05 and 8 bytes) are not counted; Enter, Leave and the request events are a type and a
 * compressed integer, the others a type, a length and that many bytes. */
static size_t event_record(const unsigned char *b, size_t n, unsigned i)
{
    size_t at = 18, last_long = 0;
    for (unsigned k = 0; at < n && b[at] != 2; k++) {
        while (b[at] == 5)
            at += 9;
        if (k == i)
            return at;
        unsigned t = b[at];
        if (t == 12 || t == 13 || t == 16 || t == 17 || t == 20 || t == 21) {
            at += b[at + 1] == 0xff ? 2 : 2 + b[at + 1];
        } else {
            last_long = at;
            at += 2 + b[at + 1];
        }
    }
    assert_true(last_long > 0);
    return last_long;
}
/* Loads the archive at a, whose rank 0 was damaged: a truncation note for rank 0, and its
 * events the first `kept` of the whole trace's (full), the other ranks all there. */
static void expect_rank0_prefix(const char *a, const loaded *full, size_t kept)
{
    loaded cut;
    rt_err err;
    assert_int_equal(load(a, &cut, &err), 0);
    char note[200];
    snprintf(note, sizeof note,
             "trace cut short: rank 0's events end early, after %zu complete "
             "events",
             kept);
    assert_non_null(cut.truncated);
    assert_non_null(strstr(cut.truncated, note));
    size_t rank0 = 0;
    while (rank0 < full->n && full->ev[rank0].rank == 0)
        rank0++;
    assert_int_equal(cut.n, full->n - rank0 + kept);
    for (size_t i = 0; i < kept; i++)
        assert_true(rt_event_equal(&full->ev[i], &cut.ev[i]));
    for (size_t i = kept; i < cut.n; i++)
        assert_true(rt_event_equal(&full->ev[rank0 + i - kept], &cut.ev[i]));
    unload(&cut);
}

/* An event file that ends with the end-of-file and end-of-buffer marks (02 01) is complete
 * only when its last chunk walks to them: one damaged in the middle, and one cut in the
 * middle of a record with 02 01 after the cut, are read as cut short, never past their end. */
static void test_event_tail(void **state)
{
    char a[1100], evt[1200];
    snprintf(a, sizeof a, "%s", rt_test_tmp_path("defcheck-events"));
    snprintf(evt, sizeof evt, "%s/traces/0.evt", a);
    static unsigned char b[1 << 16], damaged[1 << 16];
    loaded full;
    rt_err err;
    assert_int_equal(load(ALL_KINDS, &full, &err), 0);

    remove_any(a);
    convert(ALL_KINDS, a, RT_FMT_OTF2);
    size_t n = slurp(evt, b, sizeof b);
    assert_true(b[n - 2] == 2 && b[n - 1] == 1);
    /* the last record with a length (rank 0's group_free, its 84th event) claims
     * 254 bytes: it runs past the end of the file, into what OTF2's chunk buffer held before */
    size_t at = event_record(b, n, UINT32_MAX);
    memcpy(damaged, b, n);
    damaged[at + 1] = 0xfe;
    spit(evt, damaged, n);
    expect_rank0_prefix(a, &full, 83);

    /* cut inside record 10 (its type and length, then 02 01 where its data was): the 7
     * events before it are read, and the last of them dropped, as for every cut file (a
     * last record completed from the padding cannot be told from a whole one) */
    at = event_record(b, n, 10);
    memcpy(damaged, b, at + 2);
    damaged[at + 2] = 2;
    damaged[at + 3] = 1;
    spit(evt, damaged, at + 4);
    expect_rank0_prefix(a, &full, 6);
    unload(&full);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_intact, setup),
        cmocka_unit_test_setup(test_group, setup),
        cmocka_unit_test_setup(test_metric_class, setup),
        cmocka_unit_test_setup(test_cart, setup),
        cmocka_unit_test_setup(test_io_paradigm, setup),
        cmocka_unit_test_setup(test_mapping_table, setup),
        cmocka_unit_test_setup(test_chunks, setup),
        cmocka_unit_test_setup(test_two_chunks, setup),
        cmocka_unit_test(test_event_tail),
    };
    return rt_test_main("otf2_defcheck", tests, argc, argv);
}
