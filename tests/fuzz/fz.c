/* What the libFuzzer harnesses share: scratch folder, input splitting, running subcommands. */
#define _GNU_SOURCE /* memmem */
#include "fz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* calibrate runs here only as calibrate --from TRACE, which starts no MPI */
static const cli_command *const commands[] = {
    &cli_cmd_info,    &cli_cmd_convert, &cli_cmd_hist,  &cli_cmd_gateways,  &cli_cmd_pipeline,
    &cli_cmd_profile, &cli_cmd_replay,  &cli_cmd_check, &cli_cmd_calibrate,
};

static void die(const char *what)
{
    /* fd 2 stays the fuzzer's own even while the commands' stderr is silenced */
    dprintf(2, "fuzz harness: %s: %s\n", what, strerror(errno));
    _exit(70);
}

/* Leaks inside the libraries retrace uses, on damaged input, which retrace cannot free (no
 * handle reaches the memory): LeakSanitizer reads this list in every harness, as
 * tests/sanitize/lsan.supp is read by the sanitizer tests. Each entry with its reason:
 * - OTF2 3.0.2's reading of global definitions: a Group record whose attributes cannot be
 *   decoded ("Could not read groupFlags attribute of Group record. Invalid compression
 *   size.") returns the error without freeing what it allocated for the record
 *   (fuzz_otf2_defs). The library has no frame pointers, so the stack LeakSanitizer keeps
 *   ends in it unnamed: the entry names the library, and so also covers memory retrace
 *   allocates while OTF2 is on the stack (its definition and event callbacks). That memory is
 *   checked by the sanitizer tests, which read and write OTF2 archives without this list. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libopen-trace-format2.so\n";
}

static char dir[64];

/* The scratch folder goes when the fuzzer ends normally; after a finding it stays, with the
 * files of the input that caused it. */
static void cleanup(void)
{
    if (chdir("/") == 0)
        fz_remove(dir);
}

const char *fz_init(void)
{
    if (dir[0])
        return dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/retrace-fuzz-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(dir))
        die("mkdtemp");
    if (chdir(dir) < 0)
        die(dir);
    /* The commands print through stdout and stderr; libFuzzer and the sanitizers write to
     * fd 1 and 2 directly, so their reports still reach the terminal. */
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        die("/dev/null");
    stdout = null;
    stderr = null;
    setenv("RETRACE_PROGRESS", "0", 1);
    /* A trace may declare up to RETRACE_MAX_RANKS ranks (default 2^20), each costing memory
     * and time in every pass however small the input (profile: 400 bytes a rank; convert to
     * OTF2: two files, a cleared chunk of 256 KiB and one of 4 MiB and a linear search of
     * OTF2's location list per rank, 1.7 ms a rank here, 9.4 ms under ASan). A lower limit
     * keeps every run well within -timeout (libFuzzer also reports a run over 10 s as slow);
     * what the limit itself does is tested in unit.formats_trace. Unless the caller set one. */
    setenv("RETRACE_MAX_RANKS", "512", 0);
    atexit(cleanup);
    return dir;
}

size_t fz_split(const uint8_t *data, size_t size, fz_part *parts, size_t max)
{
    const size_t seplen = sizeof FZ_SEP - 1;
    size_t n = 0;
    while (n + 1 < max) {
        const uint8_t *at = memmem(data, size, FZ_SEP, seplen);
        if (!at)
            break;
        parts[n].data = data;
        parts[n++].size = (size_t)(at - data);
        size -= (size_t)(at - data) + seplen;
        data = at + seplen;
    }
    parts[n].data = data;
    parts[n++].size = size;
    return n;
}

void fz_write(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die(path);
    const char *p = data;
    while (size) {
        ssize_t w = write(fd, p, size);
        if (w <= 0)
            die(path);
        p += w;
        size -= (size_t)w;
    }
    close(fd);
}

void fz_remove(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            fz_remove(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

int fz_run_argv(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[0], commands[i]->name)) {
            optind = 0; /* getopt restarts: each command is run once in a process otherwise */
            int rc = commands[i]->run(argc, argv);
            fflush(stdout);
            fflush(stderr);
            return rc;
        }
    return CLI_BAD;
}

int fz_run(const char *cmd, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)cmd;
    va_list ap;
    va_start(ap, cmd);
    const char *a;
    while ((a = va_arg(ap, const char *)) && argc < 31)
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return fz_run_argv(argc, argv);
}

void fz_analyse_all(const char *path)
{
    /* A trace every reader rejects is rejected by info already: one pass is enough. */
    if (fz_run("info", path, NULL) != CLI_OK)
        return;
    fz_run("hist", path, NULL);
    fz_run("hist", path, "--level", "wire", "--coll", "all=msa", NULL);
    fz_run("gateways", path, "--level", "wire", NULL);
    fz_run("profile", path, NULL);
    fz_run("pipeline", path, NULL);
    fz_run("replay", path, "--check-fast", NULL);
    fz_run("replay", path, "--nodes", "2", "--modules", "2", "--contention", "on", NULL);
    fz_run("check", path, NULL);
    fz_run("calibrate", "--from", path, NULL);
    fz_run("convert", path, "fz-out.csv", NULL);
    fz_remove("fz-out.csv");
    fz_run("convert", path, "--to", "otf2", "fz-otf2", NULL);
    fz_remove("fz-otf2");
    fz_run("convert", path, "--to", "ti", "fz-ti", NULL);
    fz_remove("fz-ti");
    fz_remove("fz-ti_files");
}
