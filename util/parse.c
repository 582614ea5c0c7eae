/* The integer and size grammars (rt_parse.h). */
#include "rt_parse.h"

typedef unsigned __int128 u128;

#define MAX_FRAC 38 /* significant fraction digits: 10^38 < 2^127 */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int refuse(rt_parse_why *why, rt_parse_why w)
{
    if (why)
        *why = w;
    return -RT_E_INVAL;
}

int rt_parse_digits(const char *s, const char **end, uint64_t *out)
{
    uint64_t v = 0;
    int overflow = 0;
    const char *p = s;
    for (; is_digit(*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = 1; /* read on: the caller is told where the digits end */
        else
            v = v * 10 + d;
    }
    *end = p;
    if (p == s || overflow)
        return -RT_E_INVAL;
    *out = v;
    return 0;
}

int rt_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out, rt_parse_why *why)
{
    int neg = text[0] == '-';
    const char *end;
    uint64_t v = 0;
    int rc = rt_parse_digits(text + neg, &end, &v);
    if (end == text + neg || *end)
        return refuse(why, RT_PARSE_BAD);
    if (neg)
        return refuse(why, RT_PARSE_NEGATIVE);
    if (rc < 0 || v > max)
        return refuse(why, RT_PARSE_LARGE);
    if (v < min)
        return refuse(why, RT_PARSE_SMALL);
    *out = v;
    if (why)
        *why = RT_PARSE_OK;
    return 0;
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The shift of a unit ("" or B: 0; K: 10, M: 20, ... E: 60, each also with iB; any case),
 * -RT_E_INVAL for anything else. */
static int unit_shift(const char *u)
{
    static const char letters[] = "kmgtpe";
    if (!u[0] || (lower(u[0]) == 'b' && !u[1]))
        return 0;
    int i = 0;
    while (letters[i] && letters[i] != lower(u[0]))
        i++;
    if (!letters[i])
        return -RT_E_INVAL;
    if (u[1] && !(lower(u[1]) == 'i' && lower(u[2]) == 'b' && !u[3]))
        return -RT_E_INVAL;
    return 10 * (i + 1);
}

int rt_parse_size(const char *text, uint64_t *bytes, rt_parse_why *why)
{
    const char *p = text;
    /* the whole part, and whether it passes 2^64-1 */
    uint64_t whole = 0;
    int large = 0, digits = 0;
    for (; is_digit(*p); p++, digits++) {
        unsigned d = (unsigned)(*p - '0');
        if (whole > (UINT64_MAX - d) / 10)
            large = 1;
        else
            whole = whole * 10 + d;
    }
    /* the fraction: its significant digits (trailing zeros dropped) as frac / 10^fd */
    u128 frac = 0;
    unsigned fd = 0, zeros = 0;
    int long_frac = 0;
    if (*p == '.') {
        for (p++; is_digit(*p); p++, digits++) {
            if (*p == '0') {
                zeros++;
                continue;
            }
            if (long_frac || fd + zeros + 1 > MAX_FRAC) {
                long_frac = 1; /* refused below; read on to the end of the number */
                continue;
            }
            for (; zeros; zeros--, fd++)
                frac *= 10;
            frac = frac * 10 + (unsigned)(*p - '0');
            fd++;
        }
    }
    if (!digits)
        return refuse(why, RT_PARSE_BAD);
    const char *num_end = p;
    while (*p == ' ' || *p == '\t')
        p++;
    if ((p > num_end && !*p) || long_frac) /* blanks only between a number and a unit */
        return refuse(why, RT_PARSE_BAD);
    int shift = unit_shift(p);
    if (shift < 0)
        return refuse(why, RT_PARSE_BAD);

    /* frac / 10^fd * 2^shift is whole when 5^fd divides frac and, with g = frac / 5^fd,
     * 2^fd divides g * 2^shift; it is then below 2^shift. */
    uint64_t part = 0;
    if (frac) {
        u128 p5 = 1;
        for (unsigned i = 0; i < fd; i++)
            p5 *= 5;
        if (frac % p5)
            return refuse(why, RT_PARSE_FRACTION);
        u128 g = frac / p5;
        if (fd > (unsigned)shift) {
            unsigned k = fd - (unsigned)shift;
            if (g & (((u128)1 << k) - 1))
                return refuse(why, RT_PARSE_FRACTION);
            part = (uint64_t)(g >> k);
        } else {
            part = (uint64_t)(g << ((unsigned)shift - fd));
        }
    }
    if (large || (shift && whole > UINT64_MAX >> shift) || (whole << shift) > UINT64_MAX - part)
        return refuse(why, RT_PARSE_LARGE);
    *bytes = (whole << shift) + part;
    if (why)
        *why = RT_PARSE_OK;
    return 0;
}

int rt_parse_size_opt(const char *what, const char *text, uint64_t *bytes, rt_err *err)
{
    rt_parse_why why;
    if (!rt_parse_size(text, bytes, &why))
        return 0;
    if (why == RT_PARSE_LARGE)
        return rt_err_set(err, RT_E_INVAL, "%s: size '%s' is too large", what, text);
    if (why == RT_PARSE_FRACTION)
        return rt_err_set(err, RT_E_INVAL, "%s: size '%s' is not a whole number of bytes", what,
                          text);
    return rt_err_set(err, RT_E_INVAL,
                      "%s: bad size '%s' (expected a number of bytes such as 4096, 4K, 64M)", what,
                      text);
}
