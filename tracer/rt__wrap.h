/*
 * Expands a row of wrappers.def into a complete MPI function. Each wrap_<class>.c file
 * defines the RT__CLASS_<CLASS> macro of its class to RT__WRAP and includes this header,
 * which turns the rows of the other classes into nothing.
 */
#ifndef RT__WRAP_H
#define RT__WRAP_H

#include "rt__tracer.h"

#define RT__EXPORT __attribute__((visibility("default")))

#define RT__WRAP(name, params, args, pre, post) \
    RT__EXPORT int MPI_##name params            \
    {                                           \
        rt__call c_;                            \
        rt__call *const c = &c_;                \
        if (rt__begin(c, RT_FN_##name)) {       \
            pre;                                \
        }                                       \
        c->rc = PMPI_##name args;               \
        if (c->on) {                            \
            post;                               \
            rt__end(c);                         \
        }                                       \
        return c->rc;                           \
    }

#define RT__SKIP(name, params, args, pre, post)

#ifndef RT__CLASS_P2P
#define RT__CLASS_P2P RT__SKIP
#endif
#ifndef RT__CLASS_REQ
#define RT__CLASS_REQ RT__SKIP
#endif
#ifndef RT__CLASS_COLL
#define RT__CLASS_COLL RT__SKIP
#endif
#ifndef RT__CLASS_RMA
#define RT__CLASS_RMA RT__SKIP
#endif
#ifndef RT__CLASS_COMM
#define RT__CLASS_COMM RT__SKIP
#endif

#define W(cls, name, params, args, pre, post) RT__CLASS_##cls(name, params, args, pre, post)

#endif /* RT__WRAP_H */
