/* Unit tests for report/: the progress line of work in steps (rt_steps). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_report.h"

/* What the steps wrote to a scratch stream. */
static void read_back(FILE *f, char *buf, size_t len)
{
    fflush(f);
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
}

static void test_steps_terminal(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    rt_steps s;
    rt_steps_begin(&s, "replay on MPI", 3);
    s.tty = 1; /* as on a terminal */
    s.out = f;
    rt_steps_next(&s, "%s, run %u of %u", "recorded", 1u, 1u);
    rt_steps_next(&s, "%s", "coll:all=msa"); /* shorter: the rest of the line is blanked */
    rt_steps_next(&s, "%s", "map:x\ry");     /* a label as typed: escaped */
    rt_steps_end(&s);
    char got[1024];
    read_back(f, got, sizeof got);
    const char *l1 = "replay on MPI: 1 of 3: recorded, run 1 of 1 (0 s)";
    const char *l2 = "replay on MPI: 2 of 3: coll:all=msa (0 s)";
    const char *l3 = "replay on MPI: 3 of 3: map:x\\ry (0 s)";
    char want[1024];
    int w1 = (int)strlen(l1), w2 = (int)strlen(l2), w3 = (int)strlen(l3);
    snprintf(want, sizeof want, "\r%s\r%s%*s\r%s%*s\r%*s\r", l1, l2, w1 - w2, "", l3,
             w3 < w2 ? w2 - w3 : 0, "", w3, "");
    assert_string_equal(got, want);
    fclose(f);
}

static void test_steps_not_terminal(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    rt_steps s;
    rt_steps_begin(&s, "calibrate", 2);
    s.tty = 0;
    s.out = f;
    rt_steps_next(&s, "loop");
    rt_steps_next(&s, "shm");
    rt_steps_end(&s);
    char got[64];
    read_back(f, got, sizeof got);
    assert_string_equal(got, ""); /* not a terminal: nothing at all */
    assert_int_equal(s.k, 2);
    fclose(f);
}

static void test_steps_long_line(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    rt_steps s;
    rt_steps_begin(&s, "replay on MPI", 1);
    s.tty = 1;
    s.out = f;
    char label[200];
    memset(label, 'a', sizeof label - 1);
    label[sizeof label - 1] = '\0';
    rt_steps_next(&s, "%s", label);
    char got[1024];
    read_back(f, got, sizeof got);
    assert_int_equal(strlen(got), 1 + 79); /* "\r" and 79 columns */
    fclose(f);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_terminal),
        cmocka_unit_test(test_steps_not_terminal),
        cmocka_unit_test(test_steps_long_line),
    };
    return rt_test_main("report", tests, argc, argv);
}
