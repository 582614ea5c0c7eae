/*
 * Command lines: the input's lines are the arguments of one subcommand (the first line names
 * it), run in a folder holding t.csv (FZ_TEMPLATE), m.conf (FZ_MODEL) and p.map. Left out,
 * because they start other programs: record, calibrate, demo, replay --engine mpi, --plot
 * (gnuplot). Arguments with a '/' are left out too, so that nothing is written outside the
 * scratch folder; what the commands write there is removed after each run.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fz.h"

static const char *const kept[] = {".", "..", "t.csv", "m.conf", "p.map"};

static void copy(const char *from, const char *to)
{
    FILE *f = fopen(from, "rb");
    char buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (!f || ferror(f) || !feof(f)) {
        dprintf(2, "fuzz harness: cannot read %s\n", from);
        _exit(70);
    }
    fclose(f);
    fz_write(to, buf, n);
}

static void clean(void)
{
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t i = 0;
        while (i < sizeof kept / sizeof *kept && strcmp(e->d_name, kept[i]))
            i++;
        if (i == sizeof kept / sizeof *kept)
            fz_remove(e->d_name);
    }
    if (d)
        closedir(d);
}

static int allowed(int argc, char **argv)
{
    static const char *const commands[] = {"info",    "hist",   "gateways", "pipeline",
                                           "profile", "replay", "convert",  "check"};
    size_t i = 0;
    while (i < sizeof commands / sizeof *commands && strcmp(argv[0], commands[i]))
        i++;
    if (i == sizeof commands / sizeof *commands)
        return 0;
    for (int a = 0; a < argc; a++)
        if (strchr(argv[a], '/') || strstr(argv[a], "--plot") || strstr(argv[a], "--engine") ||
            (a > 0 && !strcmp(argv[a - 1], "--engine")))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    static int made;
    if (!made) {
        copy(FZ_TEMPLATE, "t.csv");
        copy(FZ_MODEL, "m.conf");
        fz_write("p.map", "0 0\n1 0\n2 1\n3 1\n", 16);
        made = 1;
    }
    char *text = malloc(size + 1), *argv[33];
    memcpy(text, data, size);
    text[size] = 0;
    int argc = 0;
    for (char *p = text, *nl; argc < 32; p = nl + 1) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        argv[argc++] = p;
        if (!nl)
            break;
    }
    argv[argc] = NULL;
    if (allowed(argc, argv))
        fz_run_argv(argc, argv);
    free(text);
    clean();
    return 0;
}
