/* rt_hmap (rt_hash.h): the two-key map on the shared probing. */
#include <stdlib.h>

#include "rt_hash.h"

static int slot_empty(const void *s)
{
    return ((const rt_hmap_slot *)s)->k1 == RT_HASH_EMPTY;
}

static void slot_clear(void *s)
{
    ((rt_hmap_slot *)s)->k1 = RT_HASH_EMPTY;
}

static uint64_t slot_hash(const void *s)
{
    const rt_hmap_slot *e = s;
    return rt_hash_pair(e->k1, e->k2);
}

static const rt_htab_ops ops = {sizeof(rt_hmap_slot), slot_empty, slot_clear, slot_hash};

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

static int grow(rt_hmap *m)
{
    size_t cap = rt_htab_next_cap(m->cap, 64, sizeof *m->slots);
    rt_hmap_slot *slots = cap ? malloc(cap * sizeof *slots) : NULL;
    if (!slots)
        return -1;
    rt_htab_rehash(slots, cap, m->slots, m->cap, &ops);
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

uint64_t *rt_hmap_put(rt_hmap *m, uint64_t k1, uint64_t k2, int *created)
{
    if (rt_htab_full(m->n, m->cap, 3, 4) && grow(m) < 0)
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
