/*
 * tracer/wrappers.def and formats/rt_funcs.def cannot disagree: this file compiles only when
 *  - every row of wrappers.def names a function of rt_funcs.def whose wrapper column is ROW
 *    and whose class is the row's class;
 *  - every ROW function of rt_funcs.def has a row in wrappers.def, and only one.
 * It holds declarations only: nothing of it ends up in the library. What the compiler says
 * when they disagree:
 *   'rt__fn_class_Foo' undeclared      wrappers.def has a row for Foo, rt_funcs.def no id
 *   "MPI_Foo: class ..." (assertion)   the row's class is not the id's class
 *   "MPI_Foo: wrapper ..." (assertion) rt_funcs.def says OWN or NO for a function with a row
 *   'rt__row_Foo' undeclared           rt_funcs.def says ROW, wrappers.def has no row
 *   redeclaration of 'rt__row_Foo'     wrappers.def has two rows for Foo
 */
#include "rt_event.h"

/* The class and wrapper column of every function id, as constants. */
enum { RT__ROW, RT__OWN, RT__NO };
enum {
#define RT_FUNC(name, cls, wrapper) \
    rt__fn_class_##name = RT_CLASS_##cls, rt__fn_wrapper_##name = RT__##wrapper,
#include "rt_funcs.def"
#undef RT_FUNC
};

/* A constant per row of wrappers.def, and its checks against the row's id. */
#define W(cls, name, params, args, pre, post)                                             \
    enum { rt__row_##name = 1 };                                                          \
    _Static_assert((int)rt__fn_class_##name == (int)RT_CLASS_##cls,                       \
                   "MPI_" #name ": class differs between wrappers.def and rt_funcs.def"); \
    _Static_assert((int)rt__fn_wrapper_##name == (int)RT__ROW,                            \
                   "MPI_" #name                                                           \
                   ": wrapper is not ROW in rt_funcs.def, yet wrappers.def has a row");
#include "wrappers.def"
#undef W

/* Every ROW function has its row (the others need none). */
#define RT__HAS_ROW(name) rt__row_##name
#define RT__HAS_OWN(name) 1
#define RT__HAS_NO(name) 1
#define RT_FUNC(name, cls, wrapper) \
    _Static_assert(RT__HAS_##wrapper(name), "MPI_" #name ": no row in wrappers.def");
#include "rt_funcs.def"
#undef RT_FUNC
