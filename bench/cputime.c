/*
 * cputime: runs a command and prints what it cost, from the kernel's accounting (wait4's
 * rusage, microseconds) rather than GNU time's 10 ms steps:
 *
 *   WALL_S USER_S SYS_S MAXRSS_KIB
 *
 * on one line to the file given with -o (default: standard error), then exits with the
 * command's exit status (128 + N when signal N ended it). The benchmark scripts use it for
 * runs of a few tens of milliseconds.
 *
 * usage: cputime [-o FILE] COMMAND [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "-o")) {
        out = argv[2];
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: cputime [-o FILE] COMMAND [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cputime: fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        execvp(argv[first], argv + first);
        fprintf(stderr, "cputime: %s: %s\n", argv[first], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "cputime: wait4: %s\n", strerror(errno));
            return 2;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    FILE *f = out ? fopen(out, "w") : stderr;
    if (!f) {
        fprintf(stderr, "cputime: %s: %s\n", out, strerror(errno));
        return 2;
    }
    fprintf(f, "%.6f %.6f %.6f %ld\n", wall, seconds(ru.ru_utime), seconds(ru.ru_stime),
            ru.ru_maxrss);
    if (out)
        fclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
