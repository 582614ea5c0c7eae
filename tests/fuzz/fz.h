/*
 * What the libFuzzer harnesses share (tests/fuzz/README.md says how to run them).
 *
 * A harness turns the fuzzer's bytes into the files a command reads (a CSV trace, the files
 * of an OTF2 archive, a raw trace, a model file ...) in a scratch folder of its own, then runs
 * the retrace subcommands on them through rt_cli: the same code, options and error paths as
 * the command line, with the commands' output thrown away. A crash, a sanitizer finding, a
 * leak, a hang (-timeout) or an allocation out of proportion (-malloc_limit_mb) is a finding.
 *
 * Inputs made of several files are the files one after the other, each followed by the
 * separator line FZ_SEP (fz_split); the seeds in corpus/ are built that way.
 */
#ifndef RT_FZ_H
#define RT_FZ_H

#include <stddef.h>
#include <stdint.h>

#define FZ_SEP "\n@@@@\n"
#define FZ_MAX_PARTS 16

typedef struct fz_part {
    const uint8_t *data;
    size_t size;
} fz_part;

/* Once per process: output silenced, progress lines off, a scratch folder made and entered
 * (the returned path, also the current directory). Exits the fuzzer when it cannot. */
const char *fz_init(void);

/* The input cut at each FZ_SEP, at most max parts (the last one takes the rest). */
size_t fz_split(const uint8_t *data, size_t size, fz_part *parts, size_t max);

/* Writes size bytes to path (relative to the scratch folder), replacing it; exits the fuzzer
 * on an I/O error, which is the machine's fault, not the input's. */
void fz_write(const char *path, const void *data, size_t size);

/* Runs one subcommand ("info", "hist", ...) with the NULL-terminated arguments after it;
 * returns its exit status. */
int fz_run(const char *cmd, ...) __attribute__((sentinel));

/* Runs a subcommand on argc arguments (argv[0] is the subcommand's name). */
int fz_run_argv(int argc, char **argv);

/* Every analysis, a replay and a conversion of the trace at path: what a user does with a
 * trace from elsewhere. Outputs the commands write are removed afterwards. */
void fz_analyse_all(const char *path);

/* Removes path and, for a folder, what it holds (nothing when it does not exist). */
void fz_remove(const char *path);

#endif /* RT_FZ_H */
