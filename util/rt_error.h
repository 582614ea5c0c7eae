/*
 * Error codes and messages shared by every part of retrace. Functions return 0 on success
 * and a negative RT_E_* code on failure; when they take an rt_err they also leave one line
 * there that names the input and the problem. Only main() decides to exit.
 *
 * What a code says is all a caller may act on, so each says one thing: NOMEM only that an
 * allocation failed (never a value too large or a case not handled: those are INVAL or
 * RANGE); NOTFOUND a file, or a name or id that a lookup does not know (lookups return the
 * index or -RT_E_NOTFOUND; docs/design.md has the rules).
 */
#ifndef RT_ERROR_H
#define RT_ERROR_H

#include <stddef.h>

#define RT_ERRORS(X)                            \
    X(NOMEM, "out of memory")                   \
    X(IO, "input/output error")                 \
    X(NOTFOUND, "not found")                    \
    X(FORMAT, "not a retrace trace or damaged") \
    X(INVAL, "invalid value")                   \
    X(ORDER, "events out of time order")        \
    X(OTF2, "OTF2 library error")               \
    X(USAGE, "bad command line")                \
    X(MPI, "MPI error")                         \
    X(RANGE, "value out of range")

// clang-format off
typedef enum rt_errcode {
    RT_OK = 0,
#define X(id, text) RT_E_##id,
    RT_ERRORS(X)
#undef X
    RT_E_COUNT
} rt_errcode;
// clang-format on

/* Codes are returned negated: if (rc < 0) ... ; rt_strerror(rc). */
const char *rt_strerror(int code);

#define RT_ERR_LEN 1024

typedef struct rt_err {
    int code;
    char msg[RT_ERR_LEN];
} rt_err;

/* Fills err (if not NULL) and returns -code; use as: return rt_err_set(err, RT_E_INVAL, ...). */
int rt_err_set(rt_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Text from an input (a file name, a field of a trace, a setting) as it may appear in a line
 * of output: control characters written as \r, \n, \t or \xNN (other bytes as they are), so
 * that a message stays on one line and shows what the input holds. Writes at most len bytes
 * with the terminating NUL (cutting the text short if need be) and returns dst. Escaping
 * escaped text changes nothing, so a line may go through it whole. */
char *rt_escape(char *dst, size_t len, const char *src);

#endif /* RT_ERROR_H */
