/*
 * util/: what every other part of retrace builds on, and nothing of retrace below it but the
 * error codes. One of each: a hash table (rt_hash.h), a free-list pool (rt_pool.h), a
 * growable array (rt_vec.h), the integer and size grammars (rt_parse.h), and checked
 * arithmetic on times and byte counts (rt_checked.h).
 */
#ifndef RT_UTIL_H
#define RT_UTIL_H

#include "rt_checked.h"
#include "rt_error.h"
#include "rt_hash.h"
#include "rt_parse.h"
#include "rt_pool.h"
#include "rt_vec.h"

#endif /* RT_UTIL_H */
