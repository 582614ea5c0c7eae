/* Unit tests of how the SimGrid time-independent (TI) reader takes its input and hands out
 * its events (formats/ti_lines.c, ti_reader.c): blocks of one rank's events, action files
 * read in large pieces, lines split at blanks and tabs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ti.h"

static int same_fields(const rt_event *a, const rt_event *b)
{
    return a->time == b->time && a->rank == b->rank && a->kind == b->kind && a->call == b->call &&
           a->comm == b->comm && a->peer == b->peer && a->tag == b->tag && a->bytes == b->bytes &&
           a->rbytes == b->rbytes && a->contype == b->contype && a->req == b->req && a->op == b->op;
}

/* Reads path with rt_reader_next_block and returns the number of blocks, their sizes in
 * sizes (max at most). Every block must hold events of one rank, in time order, each valid
 * (rt_event_check) and normalised, since the generic layer checks none of them again; and
 * the blocks together must be the events rt_reader_next hands out. */
static size_t blocks_of(const char *path, size_t *sizes, size_t max)
{
    rt_test_trace l;
    load_ok(path, &l);
    rt_reader *r;
    rt_err err;
    assert_int_equal(rt_reader_open(path, &r, &err), 0);
    uint64_t *last = calloc(l.defs.nranks, sizeof *last);
    assert_non_null(last);
    size_t nb = 0, at = 0, n;
    const rt_event *ev;
    int rc;
    while ((rc = rt_reader_next_block(r, &ev, &n, &err)) > 0) {
        assert_true(n >= 1);
        if (nb < max)
            sizes[nb] = n;
        nb++;
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(ev[i].rank, ev[0].rank);
            assert_true(ev[i].time >= last[ev[i].rank]);
            last[ev[i].rank] = ev[i].time;
            rt_err e;
            if (rt_event_check(&l.defs, &ev[i], &e) < 0)
                fail_msg("block %zu, event %zu: %s", nb, i, e.msg);
            rt_event c = ev[i];
            rt_event_normalize(&c);
            assert_true(same_fields(&c, &ev[i]));
            assert_true(at < l.n);
            assert_true(same_fields(&ev[i], &l.ev[at]));
            at++;
        }
    }
    assert_int_equal(rc, 0);
    assert_int_equal(at, l.n);
    free(last);
    rt_reader_close(r);
    rt_test_unload(&l);
    return nb;
}

/* The TI reader hands out events in blocks of one rank's: up to the first action that
 * takes a block to 4096 events (RT__TI_BLOCK), and never across ranks. */
static void test_blocks(void **state)
{
    (void)state;
    /* 3000 sends (3 events each) after MPI_Init (2): 2 + 3 * 1365 = 4097 events, then
     * 3 * 1366 = 4098, then the 807 left of 9002. */
    size_t len = 8 + 3000 * 16;
    char *t0 = malloc(len), *t1 = malloc(len);
    assert_non_null(t0);
    assert_non_null(t1);
    size_t n0 = (size_t)snprintf(t0, len, "0 init\n"), n1 = (size_t)snprintf(t1, len, "1 init\n");
    for (int i = 0; i < 3000; i++) {
        n0 += (size_t)snprintf(t0 + n0, len - n0, "0 send 1 %d 8\n", i % 10);
        n1 += (size_t)snprintf(t1 + n1, len - n1, "1 recv 0 %d 8\n", i % 10);
    }
    size_t sizes[16];
    assert_int_equal(blocks_of(ti_trace("blocks.ti", t0, t1, NULL), sizes, 16), 6);
    static const size_t want[] = {4097, 4098, 807, 4097, 4098, 807};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(sizes[i], want[i]);
    free(t0);
    free(t1);

    /* A shared file: a block ends where the next line is another rank's; the ends of the
     * ranks (rank 0's Waitall) come last, each in a block of its own. */
    char *index = rt_test_tmp_path("shared_blocks.ti");
    rt_test_write_text(index, "shared_blocks.txt\n");
    rt_test_write_text(rt_test_tmp_path("shared_blocks.txt"),
                       "0 init\n2 init\n0 isend 2 1 4\n2 recv 0 1 4\n2 compute 5\n"
                       "2 finalize\n");
    assert_int_equal(blocks_of(index, sizes, 16), 5);
    static const size_t shared[] = {2, 2, 3, 5, 3};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(sizes[i], shared[i]);

    /* rt_reader_next and rt_reader_next_block mixed: the block goes on where next left it. */
    rt_reader *r;
    rt_err err;
    rt_event one;
    const rt_event *ev;
    size_t n;
    assert_int_equal(rt_reader_open(index, &r, &err), 0);
    assert_int_equal(rt_reader_next(r, &one, &err), 1);
    assert_int_equal(one.kind, RT_EV_ENTER);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].kind, RT_EV_LEAVE);
    assert_int_equal(ev[0].rank, 0);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].rank, 2);
    rt_reader_close(r);

    /* The SimGrid recording: every datatype and action SimGrid writes. */
    assert_true(blocks_of(SMPI_TRACE, sizes, 16) > 0);
}

/* Lines that take the 16-bytes-at-a-time path (fields apart by blanks and tabs) and lines
 * that take the general one (leading blanks, \r before the newline, a comment, more than 16
 * fields, numbers with leading zeros or an exponent) give the same events as the plain form,
 * wherever a line falls against the 16-byte steps. */
static void test_blank_forms(void **state)
{
    (void)state;
    static const char *const plain =
        "0 init\n0 irecv 1 5 64\n0 compute 100\n0 isend 1 6 128\n0 waitall\n"
        "0 allreduce 8 0\n0 comm_split 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n0 "
        "finalize\n";
    static const char *const odd =
        "0\tinit\n  0 irecv\t1 \t 5    64 \n0 compute 00000000000000100\r\n# note\n"
        "0 isend 1 6 1.28e2\t\n\t0 waitall\n0  allreduce  8  0\n"
        "0 comm_split 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\t16 17 18 19 20 \n0 finalize\n";
    /* The same per padding: each line shifted by 0 to 16 bytes against the buffer. */
    char *texts[2][17];
    for (int p = 0; p < 17; p++)
        for (int v = 0; v < 2; v++) {
            const char *src = v ? odd : plain;
            size_t len = strlen(src) + 64;
            texts[v][p] = malloc(len);
            assert_non_null(texts[v][p]);
            snprintf(texts[v][p], len, "0 comm_size%.*s\n%s", p, "                 ", src);
        }
    rt_test_trace a, b;
    for (int p = 0; p < 17; p++) {
        load_ok(ti_trace("plain.ti", texts[0][p],
                         "1 init\n1 irecv 0 6 128\n1 isend 0 5 64\n"
                         "1 waitall\n1 allreduce 8 0\n"
                         "1 finalize\n",
                         NULL),
                &a);
        load_ok(ti_trace("odd.ti", texts[1][p],
                         "1 init\n1 irecv 0 6 128\n1 isend 0 5 64\n"
                         "1 waitall\n1 allreduce 8 0\n"
                         "1 finalize\n",
                         NULL),
                &b);
        assert_true(a.n > 10);
        assert_int_equal(a.n, b.n);
        for (size_t i = 0; i < a.n; i++) {
            char x[256], y[256];
            row(&a.ev[i], x, sizeof x);
            row(&b.ev[i], y, sizeof y);
            assert_string_equal(x, y);
        }
        rt_test_unload(&a);
        rt_test_unload(&b);
        free(texts[0][p]);
        free(texts[1][p]);
    }
}

/* Action files are read in 1 MiB pieces: lines across their boundaries, a line longer than
 * one, a NUL byte far in. */
static void test_long_lines(void **state)
{
    (void)state;
    /* 100000 lines of 12 and 13 bytes: 1.25 MB, lines across the first 1 MiB boundary. */
    static const char *const lines[] = {"0 compute 7\n", "0 send 0 0 9\n"};
    size_t len = 8 + 100000 * 13 + 1;
    char *text = malloc(len);
    assert_non_null(text);
    size_t n = (size_t)snprintf(text, len, "0 init\n");
    for (int i = 0; i < 100000; i++)
        n += (size_t)snprintf(text + n, len - n, "%s", lines[i % 2]);
    rt_test_trace l;
    load_ok(ti_trace("long.ti", text, NULL), &l);
    size_t sends = 0;
    for (size_t i = 0; i < l.n; i++)
        if (l.ev[i].kind == RT_EV_SEND) {
            assert_int_equal(l.ev[i].time, 7 * (sends + 1)); /* a compute before each */
            assert_int_equal(l.ev[i].bytes, 9);
            sends++;
        }
    assert_int_equal(sends, 50000);
    assert_int_equal(l.n, 2 + 3 * 50000);
    rt_test_unload(&l);

    /* One line of 3 MB (a location with a long file name): the buffer grows to it. */
    len = 3 << 20;
    char *big = malloc(len + 64);
    assert_non_null(big);
    n = (size_t)snprintf(big, 64, "0 init\n0 location ");
    memset(big + n, 'x', len);
    snprintf(big + n + len, 64, " 12\n0 compute 5\n0 finalize\n");
    load_ok(ti_trace("longline.ti", big, NULL), &l);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.ev[2].time, 5); /* MPI_Finalize after the compute */
    rt_test_unload(&l);

    /* A NUL byte in line 3 of 100002, past the first 1 MiB. */
    n = (size_t)snprintf(big, len, "0 init\n");
    for (int i = 0; i < 100000; i++)
        n += (size_t)snprintf(big + n, len - n, "0 compute %d\n", i);
    snprintf(big + n, len - n, "0 compute 1x\n");
    big[n + 11] = '\0';
    const char *index = ti_trace("nul.ti", "0 init\n", NULL);
    char file[1100];
    snprintf(file, sizeof file, "%s_r0.txt", index);
    FILE *f = fopen(file, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(big, 1, n + 13, f), n + 13);
    assert_int_equal(fclose(f), 0);
    char msg[1300];
    snprintf(msg, sizeof msg, "%s:100002: NUL byte in line", file);
    load_fails(index, msg);
    free(big);
    free(text);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_blank_forms),
    };
    return rt_test_main("ti_lines", tests, argc, argv);
}
