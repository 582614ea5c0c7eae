/*
 * A hash map from a pair of 64-bit keys to a 64-bit value: open addressing with linear
 * probing and backward-shift deletion (no tombstones, so long runs that insert and delete
 * millions of channels keep short probe sequences).
 */
#include <stdlib.h>

#include "rt__sim.h"

static size_t slot_of(const sim_map *m, uint64_t k1, uint64_t k2)
{
    return (size_t)sim_hash2(k1, k2) & (m->cap - 1);
}

void sim_map_free(sim_map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}

uint64_t *sim_map_get(const sim_map *m, uint64_t k1, uint64_t k2)
{
    if (!m->n)
        return NULL;
    for (size_t i = slot_of(m, k1, k2);; i = (i + 1) & (m->cap - 1)) {
        sim_map_slot *s = &m->slots[i];
        if (s->k1 == SIM_MAP_EMPTY)
            return NULL;
        if (s->k1 == k1 && s->k2 == k2)
            return &s->v;
    }
}

static int grow(sim_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    sim_map_slot *slots = malloc(cap * sizeof *slots);
    if (!slots)
        return -RT_E_NOMEM;
    for (size_t i = 0; i < cap; i++)
        slots[i].k1 = SIM_MAP_EMPTY;
    sim_map old = *m;
    m->slots = slots;
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        sim_map_slot *s = &old.slots[i];
        if (s->k1 == SIM_MAP_EMPTY)
            continue;
        size_t j = slot_of(m, s->k1, s->k2);
        while (slots[j].k1 != SIM_MAP_EMPTY)
            j = (j + 1) & (cap - 1);
        slots[j] = *s;
    }
    free(old.slots);
    return 0;
}

uint64_t *sim_map_put(sim_map *m, uint64_t k1, uint64_t k2, int *created)
{
    if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return NULL;
    size_t i = slot_of(m, k1, k2);
    for (;; i = (i + 1) & (m->cap - 1)) {
        sim_map_slot *s = &m->slots[i];
        if (s->k1 == k1 && s->k2 == k2) {
            if (created)
                *created = 0;
            return &s->v;
        }
        if (s->k1 == SIM_MAP_EMPTY)
            break;
    }
    m->slots[i] = (sim_map_slot){k1, k2, 0};
    m->n++;
    if (created)
        *created = 1;
    return &m->slots[i].v;
}

void sim_map_del(sim_map *m, uint64_t k1, uint64_t k2)
{
    uint64_t *v = sim_map_get(m, k1, k2);
    if (!v)
        return;
    size_t mask = m->cap - 1;
    size_t i = (size_t)((sim_map_slot *)((char *)v - offsetof(sim_map_slot, v)) - m->slots);
    /* Backward shift: move later members of the probe run into the hole when their home
     * slot does not lie cyclically in (hole, their position]. */
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        sim_map_slot *s = &m->slots[j];
        if (s->k1 == SIM_MAP_EMPTY)
            break;
        size_t home = slot_of(m, s->k1, s->k2);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slots[i] = *s;
            i = j;
        }
    }
    m->slots[i].k1 = SIM_MAP_EMPTY;
    m->n--;
}
