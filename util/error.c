/* Error codes and messages (rt_error.h). */
#include <stdarg.h>
#include <stdio.h>

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
