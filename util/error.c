/* Error codes and messages (rt_error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_error.h"

static const char *const errtext[RT_E_COUNT] = {[RT_OK] = "success",
#define X(id, text) [RT_E_##id] = text,
                                                RT_ERRORS(X)
#undef X
};

const char *rt_strerror(int code)
{
    if (code < 0)
        code = -code;
    return code < RT_E_COUNT ? errtext[code] : "unknown error";
}

int rt_err_set(rt_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return -code;
}

char *rt_escape(char *dst, size_t len, const char *src)
{
    if (!len)
        return dst;
    size_t n = 0;
    for (const unsigned char *s = (const unsigned char *)src; *s; s++) {
        char e[5];
        size_t k = 1;
        e[0] = (char)*s;
        if (*s < 0x20 || *s == 0x7f) {
            const char *named = *s == '\r' ? "\\r" : *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : NULL;
            if (named)
                k = (size_t)snprintf(e, sizeof e, "%s", named);
            else
                k = (size_t)snprintf(e, sizeof e, "\\x%02X", (unsigned)*s);
        }
        if (n + k >= len)
            break; /* an escape is never cut in half */
        memcpy(dst + n, e, k);
        n += k;
    }
    dst[n] = 0;
    return dst;
}
