/* Window names and info keys (rt_win_def in rt_event.h): set, checked against their limits,
 * copied and freed with the rest of the definitions (defs.c). */
#include <stdlib.h>
#include <string.h>

#include "rt__trace.h"

static rt_win_def *win_of(rt_defs *defs, uint32_t id, rt_err *err)
{
    rt_win_def *w = (rt_win_def *)rt_defs_win(defs, id);
    if (!w)
        rt_err_set(err, RT_E_INVAL, "window %u is not defined", (unsigned)id);
    return w;
}

static int too_long(const char *s, size_t most)
{
    return strnlen(s, most + 1) > most;
}

int rt_defs_set_win_name(rt_defs *defs, uint32_t id, const char *name, rt_err *err)
{
    rt_win_def *w = win_of(defs, id, err);
    if (!w)
        return -RT_E_INVAL;
    if (too_long(name, RT_WIN_NAME_LEN))
        return rt_err_set(err, RT_E_RANGE, "window %u: a name longer than %u bytes", (unsigned)id,
                          RT_WIN_NAME_LEN);
    char *copy = strdup(name);
    if (!copy)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for the name of window %u", (unsigned)id);
    free(w->name);
    w->name = copy;
    return 0;
}

int rt_defs_add_win_info(rt_defs *defs, uint32_t id, const char *key, const char *value,
                         rt_err *err)
{
    rt_win_def *w = win_of(defs, id, err);
    if (!w)
        return -RT_E_INVAL;
    const char *bad = NULL;
    if (!*key || too_long(key, RT_WIN_INFO_KEY_LEN))
        bad = *key ? "a key longer than 64 bytes" : "an empty key";
    else if (strchr(key, '=')) /* OTF2 keeps a key as KEY=VALUE (otf2_wins.c) */
        bad = "a key with '='";
    else if (too_long(value, RT_WIN_INFO_VALUE_LEN))
        bad = "a value longer than 256 bytes";
    else if (w->ninfo == RT_WIN_INFO_MAX)
        bad = "more than 16 keys";
    for (uint32_t i = 0; i < w->ninfo && !bad; i++)
        if (!strcmp(w->info[i].key, key))
            bad = "a key given twice";
    if (bad)
        return rt_err_set(err, RT_E_RANGE, "window %u: info key '%.64s': %s", (unsigned)id, key,
                          bad);
    rt_win_info *grown = realloc(w->info, (w->ninfo + 1) * sizeof *grown);
    if (grown)
        w->info = grown;
    char *k = grown ? strdup(key) : NULL, *v = k ? strdup(value) : NULL;
    if (!v) {
        free(k);
        return rt_err_set(err, RT_E_NOMEM, "out of memory for the info of window %u", (unsigned)id);
    }
    w->info[w->ninfo++] = (rt_win_info){.key = k, .value = v};
    return 0;
}

void rt__defs_free_win(rt_win_def *w)
{
    for (uint32_t i = 0; i < w->ninfo; i++) {
        free(w->info[i].key);
        free(w->info[i].value);
    }
    free(w->info);
    free(w->name);
    w->info = NULL;
    w->name = NULL;
    w->ninfo = 0;
}

int rt__defs_copy_win(rt_defs *dst, const rt_win_def *w, rt_err *err)
{
    int rc = rt_defs_add_win(dst, w->id, w->comm, err);
    if (!rc && w->name)
        rc = rt_defs_set_win_name(dst, w->id, w->name, err);
    for (uint32_t i = 0; i < w->ninfo && !rc; i++)
        rc = rt_defs_add_win_info(dst, w->id, w->info[i].key, w->info[i].value, err);
    return rc;
}
