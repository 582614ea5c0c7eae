/* rt_hmap (rt_hash.h): the two-key map on the shared probing. */
#include <stdlib.h>

#include "rt_hash.h"

static const rt_htab_ops ops = {.size = sizeof(rt_hmap_slot),
                                .empty = rt_htab_pair_empty,
                                .clear = rt_htab_pair_clear,
                                .hash = rt_htab_pair_hash};

void rt_hmap_free(rt_hmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}

void rt_hmap_clear(rt_hmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        m->slots[i].k1 = RT_HASH_EMPTY;
    m->n = 0;
}

uint64_t *rt_hmap_get(const rt_hmap *m, uint64_t k1, uint64_t k2)
{
    if (!m->n)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)rt_hash_pair(k1, k2) & mask;; i = (i + 1) & mask) {
        rt_hmap_slot *s = &m->slots[i];
        if (s->k1 == RT_HASH_EMPTY)
            return NULL;
        if (s->k1 == k1 && s->k2 == k2)
            return &s->v;
    }
}

uint64_t *rt_hmap_put(rt_hmap *m, uint64_t k1, uint64_t k2, int *created)
{
    if (rt_htab_full(m->n, m->cap, 3, 4) && rt_htab_grow(&m->slots, &m->cap, 64, &ops) < 0)
        return NULL;
    size_t mask = m->cap - 1, i = (size_t)rt_hash_pair(k1, k2) & mask;
    for (;; i = (i + 1) & mask) {
        rt_hmap_slot *s = &m->slots[i];
        if (s->k1 == k1 && s->k2 == k2) {
            if (created)
                *created = 0;
            return &s->v;
        }
        if (s->k1 == RT_HASH_EMPTY)
            break;
    }
    m->slots[i] = (rt_hmap_slot){k1, k2, 0};
    m->n++;
    if (created)
        *created = 1;
    return &m->slots[i].v;
}

void rt_hmap_del(rt_hmap *m, uint64_t k1, uint64_t k2)
{
    uint64_t *v = rt_hmap_get(m, k1, k2);
    if (!v)
        return;
    size_t i = (size_t)((rt_hmap_slot *)((char *)v - offsetof(rt_hmap_slot, v)) - m->slots);
    rt_htab_erase(m->slots, m->cap, i, &ops);
    m->n--;
}
