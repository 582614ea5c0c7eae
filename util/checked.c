/* Checked arithmetic (rt_checked.h): the one helper that is not inline. */
#include <string.h>

#include "rt_checked.h"

char *rt_u128_str(rt_u128 v, char *buf, size_t len)
{
    char d[RT_U128_LEN];
    size_t n = 0;
    do {
        d[n++] = (char)('0' + (unsigned)(v % 10));
        v /= 10;
    } while (v);
    if (!len)
        return buf;
    size_t k = n < len - 1 ? n : len - 1;
    for (size_t i = 0; i < k; i++)
        buf[i] = d[n - 1 - i];
    buf[k] = '\0';
    return buf;
}
