/* SimGrid TI traces: what reader and writer share (flop rate, datatypes, index lines). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__ti.h"

int rt__ti_flop_rate(double *rate, rt_err *err)
{
    const char *s = getenv(RT__TI_FLOPS_ENV);
    *rate = RT__TI_DEFAULT_FLOPS;
    if (!s)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v <= 0)
        return rt_err_set(err, RT_E_INVAL,
                          "%s: bad value '%.40s' (expected a positive number of flop/s, "
                          "e.g. 1e9)",
                          RT__TI_FLOPS_ENV, s);
    *rate = v;
    return 0;
}

/* SimGrid 3.32, src/smpi/mpi/smpi_datatype.cpp: the id of each predefined datatype is its
 * position here; sizes as on x86_64 (checked with MPI_Type_size under smpirun). */
static const unsigned char type_sizes[] = {
    8,  /* 0 MPI_DOUBLE */
    4,  /* 1 MPI_INT */
    1,  /* 2 MPI_CHAR */
    2,  /* 3 MPI_SHORT */
    8,  /* 4 MPI_LONG */
    4,  /* 5 MPI_FLOAT */
    1,  /* 6 MPI_BYTE */
    8,  /* 7 MPI_LONG_LONG */
    1,  /* 8 MPI_SIGNED_CHAR */
    1,  /* 9 MPI_UNSIGNED_CHAR */
    2,  /* 10 MPI_UNSIGNED_SHORT */
    4,  /* 11 MPI_UNSIGNED */
    8,  /* 12 MPI_UNSIGNED_LONG */
    8,  /* 13 MPI_UNSIGNED_LONG_LONG */
    16, /* 14 MPI_LONG_DOUBLE */
    4,  /* 15 MPI_WCHAR */
    1,  /* 16 MPI_C_BOOL */
    1,  /* 17 MPI_INT8_T */
    2,  /* 18 MPI_INT16_T */
    4,  /* 19 MPI_INT32_T */
    8,  /* 20 MPI_INT64_T */
    1,  /* 21 MPI_UINT8_T */
    2,  /* 22 MPI_UINT16_T */
    4,  /* 23 MPI_UINT32_T */
    8,  /* 24 MPI_UINT64_T */
    8,  /* 25 MPI_C_FLOAT_COMPLEX */
    16, /* 26 MPI_C_DOUBLE_COMPLEX */
    32, /* 27 MPI_C_LONG_DOUBLE_COMPLEX */
    8,  /* 28 MPI_AINT */
    8,  /* 29 MPI_OFFSET */
    8,  /* 30 MPI_FLOAT_INT */
    16, /* 31 MPI_LONG_INT */
    16, /* 32 MPI_DOUBLE_INT */
    8,  /* 33 MPI_SHORT_INT */
    8,  /* 34 MPI_2INT */
    8,  /* 35 MPI_2FLOAT */
    16, /* 36 MPI_2DOUBLE */
    16, /* 37 MPI_2LONG */
    4,  /* 38 MPI_REAL */
    4,  /* 39 MPI_REAL4 */
    8,  /* 40 MPI_REAL8 */
    16, /* 41 MPI_REAL16 */
    8,  /* 42 MPI_COMPLEX8 */
    16, /* 43 MPI_COMPLEX16 */
    16, /* 44 MPI_COMPLEX32 (SimGrid gives it two doubles) */
    4,  /* 45 MPI_INTEGER1 (SimGrid gives it an int) */
    2,  /* 46 MPI_INTEGER2 */
    4,  /* 47 MPI_INTEGER4 */
    8,  /* 48 MPI_INTEGER8 */
    16, /* 49 MPI_INTEGER16 */
    32, /* 50 MPI_LONG_DOUBLE_INT */
    1,  /* 51 MPI_CXX_BOOL */
    8,  /* 52 MPI_CXX_FLOAT_COMPLEX */
    16, /* 53 MPI_CXX_DOUBLE_COMPLEX */
    32, /* 54 MPI_CXX_LONG_DOUBLE_COMPLEX */
    0,  /* 55 MPI_UB */
    0,  /* 56 MPI_LB */
    1,  /* 57 MPI_PACKED */
    8,  /* 58 MPI_PTR */
    8,  /* 59 MPI_COUNT */
};

int rt__ti_type_size(const char *id)
{
    /* SimGrid looks the id up as a string: "06" or "+6" name no datatype there. */
    if (!strcmp(id, "-1"))
        return 0;
    uint64_t v;
    if (rt_parse_u64(id, &v) || (id[0] == '0' && id[1]) ||
        v >= sizeof type_sizes / sizeof type_sizes[0])
        return -RT_E_NOTFOUND;
    return type_sizes[v];
}

const char *rt__ti_type_id(uint64_t size)
{
    switch (size) {
    case 1:
        return "2";
    case 2:
        return "3";
    case 4:
        return "1";
    case 8:
        return "0";
    case 16:
        return "14";
    case 32:
        return "27";
    default:
        return NULL;
    }
}

static int readable_file(const char *p)
{
    struct stat st;
    if (stat(p, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode)) {
        errno = EISDIR;
        return 0;
    }
    return access(p, R_OK) == 0;
}

char *rt__ti_resolve(const char *index, const char *line)
{
    if (line[0] != '/') {
        const char *slash = strrchr(index, '/');
        if (slash) {
            size_t dlen = (size_t)(slash - index) + 1;
            char *p = malloc(dlen + strlen(line) + 1);
            if (!p)
                return NULL;
            memcpy(p, index, dlen);
            strcpy(p + dlen, line);
            if (readable_file(p))
                return p;
            free(p);
        }
    }
    if (!readable_file(line))
        return NULL;
    return strdup(line);
}

/* First line of f (at most cap - 1 bytes, without its newline) that is not empty (with
 * skip_comments: not blank and not a # comment either). 0 when there is none or a line is
 * too long (not an index or action file then). */
static int first_line(FILE *f, char *buf, size_t cap, int skip_comments)
{
    while (fgets(buf, (int)cap, f)) {
        size_t n = strlen(buf);
        if (n > 0 && buf[n - 1] == '\n')
            buf[--n] = '\0';
        else if (n + 1 >= cap)
            return 0;
        size_t b = skip_comments ? strspn(buf, " \t\r\v\f") : 0;
        if (buf[b] && !(skip_comments && buf[b] == '#'))
            return 1;
    }
    return 0;
}

int rt__ti_detect(const char *path)
{
    char line[4096];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int ok = first_line(f, line, sizeof line, 0);
    fclose(f);
    if (!ok)
        return 0;
    char *p = rt__ti_resolve(path, line);
    if (!p)
        return 0;
    f = fopen(p, "rb");
    free(p);
    if (!f)
        return 0;
    ok = first_line(f, line, sizeof line, 1);
    fclose(f);
    if (!ok)
        return 0;
    /* "RANK ACTION": digits, blanks, a letter. */
    const char *s = line + strspn(line, " \t\r\v\f");
    size_t digits = strspn(s, "0123456789");
    if (!digits)
        return 0;
    s += digits;
    size_t blanks = strspn(s, " \t");
    return blanks > 0 && isalpha((unsigned char)s[blanks]);
}
