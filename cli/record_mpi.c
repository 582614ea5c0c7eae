/* retrace record: which MPI library the recorded program uses (record_mpi.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_mpi.h"

extern char **environ;

#define LDD_MAX (256 * 1024) /* more of ldd's output than any program's library list */

const char *record_mpi_name(record_mpi mpi)
{
    return mpi == RECORD_MPI_MPICH     ? "MPICH"
           : mpi == RECORD_MPI_OPENMPI ? "Open MPI"
                                       : "an unknown MPI";
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The executable file a command name runs (a path as it is, a bare name through PATH). */
static int resolve(const char *name, char *out, size_t len)
{
    if (!*name)
        return -1;
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return is_executable(out) ? 0 : -1;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        if ((size_t)snprintf(out, len, "%.*s/%s", (int)n, p, name) < len && n && is_executable(out))
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

/* The MPI a launcher belongs to, by its name and by the program that name resolves to. */
static record_mpi launcher_mpi(const char *name, char *told, size_t len)
{
    char path[PATH_MAX], real[PATH_MAX];
    const char *names[2] = {base_name(name), NULL};
    if (resolve(name, path, sizeof path) == 0 && realpath(path, real))
        names[1] = base_name(real);
    for (int i = 0; i < 2 && names[i]; i++) {
        const char *b = names[i];
        size_t n = strlen(b);
        record_mpi mpi = RECORD_MPI_UNKNOWN;
        if (!strcmp(b, "orterun") || !strcmp(b, "prterun") ||
            (n > 8 && !strcmp(b + n - 8, ".openmpi")))
            mpi = RECORD_MPI_OPENMPI;
        else if (strstr(b, "hydra") || (n > 6 && !strcmp(b + n - 6, ".mpich")))
            mpi = RECORD_MPI_MPICH;
        if (mpi != RECORD_MPI_UNKNOWN) {
            snprintf(told, len, "%s", b);
            return mpi;
        }
    }
    return RECORD_MPI_UNKNOWN;
}

static int is_launcher(const char *name)
{
    const char *b = base_name(name);
    return !strncmp(b, "mpiexec", 7) || !strncmp(b, "mpirun", 6) || !strcmp(b, "orterun") ||
           !strcmp(b, "prterun");
}

/* How many values a launcher option takes (MPICH's hydra and Open MPI's orterun): "-n 4",
 * "--mca btl self" ...; an option not listed takes none, and a value it did take is passed
 * over anyway unless it is an executable file. */
static int option_values(const char *opt)
{
    static const char *const one[] = {"n",
                                      "np",
                                      "c",
                                      "N",
                                      "npernode",
                                      "ppn",
                                      "host",
                                      "hosts",
                                      "H",
                                      "hostfile",
                                      "machinefile",
                                      "machine",
                                      "f",
                                      "wdir",
                                      "wd",
                                      "x",
                                      "map-by",
                                      "rank-by",
                                      "bind-to",
                                      "genvlist",
                                      "envlist",
                                      "launcher",
                                      "launcher-exec",
                                      "bootstrap",
                                      "bootstrap-exec",
                                      "iface",
                                      "prefix",
                                      "path",
                                      "output-filename",
                                      "timeout",
                                      "tune",
                                      "am",
                                      "cpus-per-proc",
                                      "cpus-per-rank",
                                      "rf",
                                      "rankfile",
                                      "configfile",
                                      "s",
                                      "stdin",
                                      "app",
                                      "profile",
                                      "demux"};
    static const char *const two[] = {"mca", "gmca", "genv", "env", "tune-mca"};
    while (*opt == '-')
        opt++;
    if (strchr(opt, '='))
        return 0; /* --opt=value */
    for (size_t i = 0; i < sizeof two / sizeof *two; i++)
        if (!strcmp(opt, two[i]))
            return 2;
    for (size_t i = 0; i < sizeof one / sizeof *one; i++)
        if (!strcmp(opt, one[i]))
            return 1;
    return 0;
}

/* The program a launcher's arguments start, or NULL. */
static const char *launched_program(char **args, char *path, size_t len)
{
    for (int i = 0; args[i]; i++) {
        if (args[i][0] == '-') {
            int skip = option_values(args[i]);
            for (; skip > 0 && args[i + 1]; skip--)
                i++;
        } else if (resolve(args[i], path, len) == 0) {
            return args[i];
        }
    }
    return NULL;
}

/* The MPI of one library name (a soname or a path) from ldd's list, or UNKNOWN. */
static record_mpi library_mpi(const char *lib)
{
    const char *b = base_name(lib);
    if (!strncmp(b, "libmpich.so", 11) || !strncmp(b, "libmpi.so.12", 12))
        return RECORD_MPI_MPICH;
    if (!strncmp(b, "libmpi.so.40", 12) || strstr(lib, "/openmpi/"))
        return RECORD_MPI_OPENMPI;
    return RECORD_MPI_UNKNOWN;
}

/* Open MPI's Fortran bindings: mpif.h and `use mpi` (libmpi_mpifh), `use mpi_f08`
 * (libmpi_usempif08), the `use mpi` module (libmpi_usempi_ignore_tkr). Their libmpi.so.40
 * tells; their own names, libmpi-something, must not be taken for another MPI's. */
static int fortran_bindings(const char *soname)
{
    return !strncmp(soname, "libmpi_mpifh.so", 15) || !strncmp(soname, "libmpi_usempif08", 16) ||
           !strncmp(soname, "libmpi_usempi_ignore_tkr", 24);
}

/* ldd PROGRAM's output (the dynamic loader lists the libraries; the program does not run),
 * NUL-terminated in a malloc'd buffer, or NULL when ldd fails or says it is not dynamic. */
static char *ldd_output(const char *program)
{
    int fd[2];
    if (pipe(fd) < 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return NULL;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(fd[1], 1);
        if (null >= 0)
            dup2(null, 2);
        close(fd[0]);
        execlp("ldd", "ldd", "--", program, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char *buf = malloc(LDD_MAX + 1);
    size_t n = 0;
    while (buf && n < LDD_MAX) {
        ssize_t r = read(fd[0], buf + n, LDD_MAX - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd[0]); /* ldd gets SIGPIPE if it had more: the list was too long to be a program's */
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!buf || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

/* The MPI of a program by the libraries ldd lists: g->library names the one that told. */
static void program_mpi(const char *path, record_mpi_guess *g)
{
    char *out = ldd_output(path);
    if (!out) {
        snprintf(g->why, sizeof g->why, "it is not a dynamically linked program");
        return;
    }
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[PATH_MAX] = "", target[PATH_MAX] = "";
        /* "\tlibmpi.so.40 => /usr/lib/x86_64-linux-gnu/libmpi.so.40 (0x...)" */
        if (sscanf(line, " %4095s => %4095s", name, target) < 1)
            continue;
        if (fortran_bindings(base_name(name)))
            continue;
        record_mpi mpi = library_mpi(name);
        if (mpi == RECORD_MPI_UNKNOWN && target[0] == '/')
            mpi = library_mpi(target);
        if (mpi != RECORD_MPI_UNKNOWN) { /* the first tells; Fortran bindings may follow */
            if (g->mpi == RECORD_MPI_UNKNOWN) {
                g->mpi = mpi;
                snprintf(g->library, sizeof g->library, "%s", base_name(name));
            }
            continue;
        }
        if (!strncmp(base_name(name), "libmpi", 6) && !g->why[0])
            snprintf(g->why, sizeof g->why, "it links %.60s, neither MPICH's nor Open MPI's",
                     base_name(name));
    }
    free(out);
    if (g->mpi == RECORD_MPI_UNKNOWN && !g->why[0])
        snprintf(g->why, sizeof g->why, "it links no MPI library");
}

void record_mpi_of(char **command, record_mpi_guess *g)
{
    memset(g, 0, sizeof *g);
    char path[PATH_MAX];
    int launcher = is_launcher(command[0]);
    g->program = launcher ? launched_program(command + 1, path, sizeof path) : command[0];
    if (!g->program)
        snprintf(g->why, sizeof g->why, "no program among the arguments of %.60s",
                 base_name(command[0]));
    else if (launcher || resolve(g->program, path, sizeof path) == 0)
        program_mpi(path, g);
    else
        snprintf(g->why, sizeof g->why, "it is not an executable file");
    if (g->mpi == RECORD_MPI_UNKNOWN && launcher)
        g->mpi = launcher_mpi(command[0], g->launcher, sizeof g->launcher);
}

/* A variable of the tracer's (record_mpi.h), as "NAME=value". */
static int tracer_variable(const char *entry)
{
    return !strncmp(entry, "LD_PRELOAD=", 11) || !strncmp(entry, "RETRACE_", 8) ||
           !strncmp(entry, "PSP_", 4);
}

/* Adds the tracer's variables to a mca_base_env_list the user set: 0, or -1 when too long. */
static int append_env_list(const char *key, const char *old)
{
    char list[16384];
    size_t n = (size_t)snprintf(list, sizeof list, "%s", old);
    for (char **e = environ; *e; e++) {
        if (!tracer_variable(*e))
            continue;
        int w =
            snprintf(list + n, sizeof list - n, "%s%.*s", n ? ";" : "", (int)strcspn(*e, "="), *e);
        if (w < 0 || (size_t)w >= sizeof list - n)
            return -1;
        n += (size_t)w;
    }
    return setenv(key, list, 1);
}

char **record_mpi_forward(char **command)
{
    char told[64];
    if (!is_launcher(command[0]) ||
        launcher_mpi(command[0], told, sizeof told) != RECORD_MPI_OPENMPI)
        return command;
    const char *key = "OMPI_MCA_mca_base_env_list", *old = getenv(key);
    if (old && *old) /* the user's: -x would now make mpirun refuse the run */
        return append_env_list(key, old) == 0 ? command : NULL;
    size_t argc = 0, vars = 0, text = 0;
    while (command[argc])
        argc++;
    for (char **e = environ; *e; e++)
        if (tracer_variable(*e)) {
            vars++;
            text += strcspn(*e, "=") + 1;
        }
    size_t slots = argc + 2 * vars + 1;
    char **cmd = malloc(slots * sizeof *cmd + text + 3);
    if (!cmd)
        return NULL;
    char *store = (char *)(cmd + slots), *x = store;
    memcpy(x, "-x", 3);
    store += 3;
    size_t k = 0;
    cmd[k++] = command[0];
    for (char **e = environ; *e; e++) {
        if (!tracer_variable(*e))
            continue;
        size_t len = strcspn(*e, "=");
        memcpy(store, *e, len);
        store[len] = 0;
        cmd[k++] = x;
        cmd[k++] = store;
        store += len + 1;
    }
    for (size_t i = 1; i <= argc; i++) /* the NULL at the end too */
        cmd[k++] = command[i];
    return cmd;
}
