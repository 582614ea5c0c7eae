/* The main() of every unit-test executable: runs all its cases, or those named on the
 * command line. ctest registers each case on its own as unit.PART.CASE (tests/CMakeLists.txt
 * finds the cases in the sources); include it after cmocka.h.
 *
 *   test_PART                  every case, in the table's order
 *   test_PART CASE|PATTERN...  the cases named, or matching a shell pattern ('test_fit_*')
 *   test_PART --list           the names of the cases, one a line
 *
 * A name or pattern that matches no case is an error, so that a case renamed or removed
 * cannot pass as "0 tests run". cmocka's own cmocka_set_test_filter() would run nothing
 * and succeed. When ctest runs a case it also passes RT_TEST_CASES, the number of cases
 * CMake found; a table that holds another number fails (a case CMake did not see would
 * never run). */
#ifndef RT_TEST_MAIN_H
#define RT_TEST_MAIN_H

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define rt_test_main(part, tests, argc, argv) \
    rt_test_run(part, tests, sizeof(tests) / sizeof *(tests), argc, argv)

static inline int rt_test_run(const char *part, const struct CMUnitTest *tests, size_t n, int argc,
                              char **argv)
{
    const char *expect = getenv("RT_TEST_CASES");
    if (expect && strtoul(expect, NULL, 10) != n) {
        fprintf(stderr, "%s: %zu cases, but CMake registered %s: re-run cmake\n", argv[0], n,
                expect);
        return 1;
    }
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    if (argc < 2)
        return _cmocka_run_group_tests(part, tests, n, NULL, NULL);
    struct CMUnitTest *sel = malloc(n * sizeof *sel);
    size_t k = 0;
    if (!sel)
        return 1;
    for (size_t i = 0; i < n; i++)
        for (int a = 1; a < argc; a++)
            if (!fnmatch(argv[a], tests[i].name, 0)) {
                sel[k++] = tests[i];
                break;
            }
    for (int a = 1; a < argc; a++) {
        size_t i = 0;
        while (i < n && fnmatch(argv[a], tests[i].name, 0))
            i++;
        if (i == n) {
            fprintf(stderr, "%s: no case '%s' (--list shows them)\n", argv[0], argv[a]);
            free(sel);
            return 2;
        }
    }
    int rc = _cmocka_run_group_tests(part, sel, k, NULL, NULL);
    free(sel);
    return rc;
}

#endif /* RT_TEST_MAIN_H */
