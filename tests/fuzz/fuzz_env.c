/*
 * The tracer's environment values: the input's lines are PSP_HISTOGRAM_MIN, _MAX, _SHIFT,
 * _CONTYPE, RETRACE_EMULATE and RETRACE_NODE_ID, given to the parsers the tracer calls at
 * MPI_Init (tracer/state.c), and what they accept is then used as the tracer uses it: a
 * histogram built, filled and printed, an emulated placement of every rank checked and made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz.h"
#include "rt_hist.h"
#include "rt_place.h"

static void histogram(char **v)
{
    rt_hist_config c;
    char warnings[2048];
    rt_hist_config_from_env(&c, NULL, v[0], v[1], v[2], v[3], warnings, sizeof warnings);
    if (!memchr(warnings, 0, sizeof warnings))
        abort(); /* the warnings must always be terminated */
    rt_hist h;
    if (rt_hist_init(&h, &c) < 0)
        abort(); /* the result is always a valid configuration */
    static const uint64_t sizes[] = {0, 1, 63, 64, 65, 4096, 1u << 20, UINT64_MAX / 2, UINT64_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        rt_hist_count(&h, sizes[i], (int)(i % 4));
    rt_hist_write_text(&h, stdout);
}

static void placement(const char *emulate, const char *id)
{
    uint32_t nodes, modules, node, module, v;
    rt_place_parse_id(id, &v);
    if (rt_place_parse_emulate(emulate, &nodes, &modules) < 0)
        return;
    for (uint32_t nranks = 1; nranks <= 64; nranks *= 2) {
        rt_err err;
        if (rt_place_check_emulated(nranks, nodes, modules, &err) < 0)
            continue;
        for (uint32_t r = 0; r < nranks; r++) {
            rt_place_emulated(r, nranks, nodes, modules, &node, &module);
            if (node >= nodes || module >= modules)
                abort(); /* a placement outside the shape asked for */
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    char *text = malloc(size + 1), *v[6] = {NULL};
    memcpy(text, data, size);
    text[size] = 0;
    char *p = text;
    for (int i = 0; i < 6 && p; i++) {
        v[i] = p;
        p = strchr(p, '\n');
        if (p)
            *p++ = 0;
    }
    histogram(v);
    placement(v[4] ? v[4] : "", v[5] ? v[5] : "");
    free(text);
    return 0;
}
