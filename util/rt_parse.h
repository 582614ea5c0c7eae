/*
 * Numbers from text: the one integer grammar and the one size grammar of retrace, for every
 * command-line option, environment variable and file field that takes them.
 *
 * Integers: decimal digits and nothing else. No sign, no blanks, no base prefix, no empty
 * string; a value past the type or the allowed range is refused, never wrapped or clamped
 * (strtoul takes " -1" as 2^64-1). Leading zeros are allowed.
 *
 * Sizes, in bytes: a number, an optional unit, blanks allowed only between the two:
 *   number  digits with an optional fraction ("64", "1.5", ".5"; at most 38 significant
 *           digits after the point); the size must come out a
 *           whole number of bytes ("1.5K" is 1536, "1.3K" is refused)
 *   unit    none or B (bytes); K, M, G, T, P, E (2^10, 2^20, ... 2^60), alone or followed by
 *           iB ("64K" = "64KiB" = 65536). Letters in any case ("4k", "4kib", "1t"); "KB",
 *           "MB" and so on are refused as ambiguous (powers of 1000 or 1024?)
 * Anything from 0 to 2^64-1 bytes ("16E" is one byte too many).
 */
#ifndef RT_PARSE_H
#define RT_PARSE_H

#include <stdint.h>

#include "rt_error.h"

/* Why a text was refused, for callers whose messages say more than "bad value". */
typedef enum rt_parse_why {
    RT_PARSE_OK,
    RT_PARSE_BAD,      /* not a number in the grammar */
    RT_PARSE_NEGATIVE, /* '-' and then a number */
    RT_PARSE_SMALL,    /* below the minimum */
    RT_PARSE_LARGE,    /* above the maximum, or past 2^64-1 */
    RT_PARSE_FRACTION, /* a size that is not a whole number of bytes */
} rt_parse_why;

/* A whole decimal number (the whole string) in *out: 0, or -RT_E_INVAL with *out unchanged.
 * Inline for the text trace readers, which parse every field with it: up to 19 digits cannot
 * overflow, so only longer numbers are checked. */
static inline int rt_parse_u64(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -RT_E_INVAL;
    uint64_t v = 0;
    for (int i = 0; i < 19 && *s >= '0' && *s <= '9'; i++, s++)
        v = v * 10 + (unsigned)(*s - '0');
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -RT_E_INVAL;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -RT_E_INVAL;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* The same with an optional leading '-', from INT64_MIN to INT64_MAX. */
static inline int rt_parse_i64(const char *s, int64_t *out)
{
    int neg = *s == '-';
    uint64_t v;
    if (rt_parse_u64(s + neg, &v) < 0 || v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return -RT_E_INVAL;
    *out = neg && v ? -(int64_t)(v - 1) - 1 : (int64_t)v; /* -2^63 too, with no wrap */
    return 0;
}

/* A whole decimal number from min to max in *out: 0, or -RT_E_INVAL with *out unchanged and
 * the reason in *why (why may be NULL). */
int rt_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out, rt_parse_why *why);

/* The decimal digits at the start of s (at least one): *end after them. 0, or -RT_E_INVAL
 * when there is none (*end = s) or the number passes 2^64-1 (*end still after the digits, so
 * that the caller can tell what follows). */
int rt_parse_digits(const char *s, const char **end, uint64_t *out);

/* A size (the grammar above) in bytes: 0, or -RT_E_INVAL with *bytes unchanged and the reason
 * in *why (RT_PARSE_BAD, RT_PARSE_LARGE or RT_PARSE_FRACTION; why may be NULL). A text that
 * is both malformed and too large is RT_PARSE_BAD. */
int rt_parse_size(const char *text, uint64_t *bytes, rt_parse_why *why);

/* The size parser with the message every option shares, naming the option what:
 * "WHAT: bad size 'TEXT' (expected a number of bytes such as 4096, 4K, 64M)",
 * "WHAT: size 'TEXT' is too large" or "WHAT: size 'TEXT' is not a whole number of bytes". */
int rt_parse_size_opt(const char *what, const char *text, uint64_t *bytes, rt_err *err);

#endif /* RT_PARSE_H */
