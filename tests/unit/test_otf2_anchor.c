#define _GNU_SOURCE /* memmem */
/*
 * Damaged OTF2 anchor files (formats/otf2_anchor.c): each is one clear error naming the file
 * and the damage, found before the OTF2 library, which crashes, loops or asks for gigabytes
 * on some of them, is given the file. The archive is one retrace writes; each case changes
 * its anchor file the way a damaged copy would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"
#include "rt_trace.h"

static char archive[4096], anchor[4200];
static unsigned char good[1024];
static size_t ngood;

/* An archive of 2 ranks and one message; its anchor file's bytes in good. */
static int make_archive(void **state)
{
    snprintf(archive, sizeof archive, "%s", rt_test_tmp_path("anchor"));
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", archive);
    rt_err err;
    rt_trace_remove(archive, &err);
    rt_defs d;
    rt_writer *w;
    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    assert_int_equal(rt_writer_open(archive, RT_FMT_OTF2, &d, &w, &err), 0);
    rt_event ev = {.kind = RT_EV_SEND, .rank = 0, .time = 10, .peer = 1, .bytes = 8};
    assert_int_equal(rt_writer_write(w, &ev, &err), 0);
    assert_int_equal(rt_writer_close(w, &err), 0);
    rt_defs_free(&d);
    FILE *f = fopen(anchor, "rb");
    assert_non_null(f);
    ngood = fread(good, 1, sizeof good, f);
    fclose(f);
    assert_true(ngood > 60 && ngood < sizeof good);
    return 0;
}

static void put(const unsigned char *bytes, size_t n)
{
    FILE *f = fopen(anchor, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/* Opening the archive fails with RT_E_FORMAT and "ANCHOR: damaged OTF2 anchor file: WHY". */
static void expect_damage(const char *why)
{
    rt_reader *r;
    rt_err err;
    int rc = rt_reader_open(archive, &r, &err);
    if (rc == 0)
        rt_reader_close(r);
    assert_int_equal(rc, -RT_E_FORMAT);
    char want[8192];
    snprintf(want, sizeof want, "%s: damaged OTF2 anchor file: %s", anchor, why);
    assert_string_equal(err.msg, want);
}

/* good with the little-endian u64 at offset replaced by v. */
static void put_u64(size_t offset, uint64_t v)
{
    unsigned char b[sizeof good];
    memcpy(b, good, ngood);
    for (int i = 0; i < 8; i++)
        b[offset + i] = (unsigned char)(v >> (8 * i));
    put(b, ngood);
}

static void put_byte(size_t offset, unsigned char v)
{
    unsigned char b[sizeof good];
    memcpy(b, good, ngood);
    b[offset] = v;
    put(b, ngood);
}

/* Where the description ("MPI trace written by retrace") ends: the properties count. */
static size_t after_description(void)
{
    const char *tag = "written by retrace";
    unsigned char *at = memmem(good, ngood, tag, strlen(tag) + 1);
    assert_non_null(at);
    return (size_t)(at - good) + strlen(tag) + 1;
}

static void test_intact_archive_opens(void **state)
{
    put(good, ngood);
    rt_reader *r;
    rt_err err;
    assert_int_equal(rt_reader_open(archive, &r, &err), 0);
    assert_int_equal(rt_reader_defs(r)->nranks, 2);
    rt_reader_close(r);
}

static void test_header_damage(void **state)
{
    put(good, 0);
    expect_damage("empty or cut short");
    put_byte(0, 'x');
    expect_damage("not an OTF2 anchor file (no chunk header)");
    put_byte(1, 0);
    expect_damage("not an OTF2 anchor file (bad byte-order mark)");
    put_byte(3, 'X');
    expect_damage("not an OTF2 anchor file (no OTF2 magic)");
    put_byte(7, 0);
    expect_damage("anchor format 0");
    put(good, 30);
    expect_damage("cut short");
    put_byte(28, 9);
    expect_damage("unknown file substrate");
    put_byte(29, 7);
    expect_damage("unknown compression");
}

/* Sizes the library would allocate by, and counts it would allocate for. */
static void test_sizes_and_counts(void **state)
{
    put_u64(12, 24ull << 30);
    expect_damage("event chunk size 25769803776 outside OTF2's 256 KiB to 16 MiB");
    put_u64(20, 0);
    expect_damage("definition chunk size 0 outside OTF2's 256 KiB to 16 MiB");
    put_u64(30, 0);
    expect_damage("no locations");
    put_u64(38, 1ull << 40);
    rt_reader *r;
    rt_err err;
    assert_int_equal(rt_reader_open(archive, &r, &err), -RT_E_FORMAT);
    assert_non_null(strstr(err.msg, "/traces.def: damaged OTF2 archive: cut short ("));
    assert_non_null(strstr(err.msg, " bytes cannot hold the 1099511627776 global definitions "
                                    "the anchor file counts)"));
    put_u64(30, 1ull << 33); /* more locations than global definitions */
    assert_int_equal(rt_reader_open(archive, &r, &err), -RT_E_FORMAT);
    assert_non_null(strstr(err.msg, ": damaged OTF2 anchor file: 8589934592 locations but "));
    unsigned char b[sizeof good];
    memcpy(b, good, ngood);
    size_t props = after_description();
    memset(b + props, 0xff, 4);
    put(b, ngood);
    expect_damage("more properties than the file holds");
}

static void test_cut_short(void **state)
{
    size_t props = after_description();
    put(good, props - 5);
    expect_damage("description not terminated");
    put(good, props + 2);
    expect_damage("cut short in the properties");
    put(good, props + 4 + 8 + 4 + 4); /* up to the end-of-file mark */
    expect_damage("no end-of-file mark");
    put_byte(props + 4 + 8 + 4 + 4, 0);
    expect_damage("no end-of-file mark");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_intact_archive_opens, make_archive),
        cmocka_unit_test_setup(test_header_damage, make_archive),
        cmocka_unit_test_setup(test_sizes_and_counts, make_archive),
        cmocka_unit_test_setup(test_cut_short, make_archive),
    };
    return rt_test_main("otf2_anchor", tests, argc, argv);
}
