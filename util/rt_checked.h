/*
 * Checked arithmetic on times and byte counts. Traces, model files and options are untrusted:
 * a byte count may be 2^64 - 1, a gap between two calls 584 years, a model's latency 200
 * days. Every sum and product of such values goes through these helpers, so that a result
 * that does not fit is seen: the caller refuses it with one clear error naming the input, or,
 * for a total that may honestly pass 2^64 (the bytes moved over a whole run), carries it in
 * 128 bits (rt_u128) and prints it with rt_u128_str. Never a wrapped number.
 *
 * Deliberate wraps (hash functions, ring indices masked afterwards) are marked RT_WRAPS, so
 * that the wrap-hunting build (-DRETRACE_WRAPS=ON, docs/fuzzing.md) reports every other one.
 */
#ifndef RT_CHECKED_H
#define RT_CHECKED_H

#include <stddef.h>
#include <stdint.h>

/* A total that may pass 2^64 (sums of byte counts or of times over ranks and events). */
typedef unsigned __int128 rt_u128;

/* a + b and a * b in *r: 1 when the result does not fit in 64 bits (*r is then unusable). */
static inline int rt_add_overflow(uint64_t a, uint64_t b, uint64_t *r)
{
    return __builtin_add_overflow(a, b, r);
}

static inline int rt_mul_overflow(uint64_t a, uint64_t b, uint64_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}

/* Saturating forms, for costs whose callers see UINT64_MAX as "too long to represent". */
static inline uint64_t rt_add_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return rt_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t rt_mul_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return rt_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t rt_u128_sat(rt_u128 v)
{
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* A measured or fitted double as a whole number: rounded to the nearest, 0 for anything not
 * above 0 (NaN included), UINT64_MAX from 2^64 on (a cast would be undefined there). */
static inline uint64_t rt_u64_of_double(double v)
{
    if (!(v > 0))
        return 0;
    if (v + 0.5 >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)(v + 0.5);
}

/* The decimal digits of v in buf (RT_U128_LEN bytes hold any value; a shorter buffer gets
 * the text cut short, terminated). Returns buf. */
#define RT_U128_LEN 40
char *rt_u128_str(rt_u128 v, char *buf, size_t len);

/* On a function whose unsigned arithmetic is meant modulo 2^n (a hash, an index masked
 * afterwards): the wrap-hunting build does not instrument it. Nothing in other builds. */
#if defined(__clang__)
#define RT_WRAPS __attribute__((no_sanitize("unsigned-integer-overflow")))
#else
#define RT_WRAPS
#endif

#endif /* RT_CHECKED_H */
