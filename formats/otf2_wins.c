/*
 * Window names and info keys in OTF2 (rt_win_def): the name is the RmaWin definition's own
 * (RT__OTF2_WIN_NAME when the window has none), each info key an archive property
 * RT__OTF2_WIN_INFO of value "KEY=VALUE" (OTF2 has no place for them; otf2-print --show-info
 * lists them). Written by the OTF2 writer at close, read back with the definitions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__otf2r.h"

const char *rt__otf2_win_name(const rt_win_def *w, char *buf, size_t len)
{
    if (w->name)
        return w->name;
    snprintf(buf, len, RT__OTF2_WIN_NAME, (unsigned)w->id);
    return buf;
}

OTF2_ErrorCode rt__otf2_write_win_info(OTF2_Archive *archive, const rt_defs *d)
{
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    char prop[64], kv[RT_WIN_INFO_KEY_LEN + RT_WIN_INFO_VALUE_LEN + 2];
    for (uint32_t i = 0; i < d->nwins && ec == OTF2_SUCCESS; i++) /* OTF2's ref is i */
        for (uint32_t k = 0; k < d->wins[i].ninfo && ec == OTF2_SUCCESS; k++) {
            snprintf(prop, sizeof prop, RT__OTF2_WIN_INFO, (unsigned)i, (unsigned)k);
            snprintf(kv, sizeof kv, "%s=%s", d->wins[i].info[k].key, d->wins[i].info[k].value);
            ec = OTF2_Archive_SetProperty(archive, prop, kv, true);
        }
    return ec;
}

int rt__otf2r_build_win(rt_reader *r, otf2r *o, uint32_t ref, uint32_t comm, const char *name,
                        rt_err *err)
{
    int rc = rt_defs_add_win(&r->defs, ref, comm, err);
    char dflt[48];
    snprintf(dflt, sizeof dflt, RT__OTF2_WIN_NAME, (unsigned)ref);
    if (!rc && *name && strcmp(name, dflt))
        rc = rt_defs_set_win_name(&r->defs, ref, name, err);
    /* one past the most keys a window has, so that too many are refused */
    for (unsigned k = 0; k <= RT_WIN_INFO_MAX && !rc; k++) {
        char prop[64], *kv = NULL;
        snprintf(prop, sizeof prop, RT__OTF2_WIN_INFO, (unsigned)ref, k);
        if (OTF2_Reader_GetProperty(o->reader, prop, &kv) != OTF2_SUCCESS || !kv)
            break;
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            rc = rt_defs_add_win_info(&r->defs, ref, kv, eq + 1, err);
        } else {
            rc = rt_err_set(err, RT_E_FORMAT, "property %s is not KEY=VALUE", prop);
        }
        free(kv);
    }
    return rc;
}
