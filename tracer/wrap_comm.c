/* Communicators and topologies: the COMM rows of wrappers.def. */
#include <string.h>

#include "rt__tracer.h"

#define RT__CLASS_COMM RT__WRAP
#include "rt__wrap.h"

/* A COMM_HANDLE event (rt_event.h): the communicator cm made (op create) or freed on the rank. */
static void comm_handle(rt__call *c, const rt__comm *cm, unsigned op)
{
    if (!cm)
        return;
    rt_event ev = {.kind = RT_EV_COMM_HANDLE, .comm = cm->id, .op = (uint8_t)op};
    rt__rec_event(c, 1, &ev);
}

/*
 * A communicator from a call that is collective over its parent. The parent's creation
 * counter advances on every member, also where the result is MPI_COMM_NULL, so that all
 * members agree on the position of each new communicator (formats/rt_raw.h).
 */
static void comm_made(rt__call *c, MPI_Comm parent, const MPI_Comm *newcomm, int dup, int tag)
{
    rt__comm *p = rt__comm_get(parent);
    if (!p)
        return;
    uint32_t seq = atomic_fetch_add(&p->seq, 1);
    if (c->rc != MPI_SUCCESS || *newcomm == MPI_COMM_NULL)
        return;
    comm_handle(c,
                dup ? rt__comm_new_like(*newcomm, p, c->fn, seq)
                    : rt__comm_new(*newcomm, p, c->fn, seq, tag),
                RT_COMMH_CREATE);
}

/* Comm_create_group is collective over the group only: no place in the parent's order. */
static void comm_made_by_group(rt__call *c, MPI_Comm parent, const MPI_Comm *newcomm, int tag)
{
    rt__comm *p = rt__comm_get(parent);
    if (p && c->rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL)
        comm_handle(c, rt__comm_new(*newcomm, p, c->fn, 0, tag), RT_COMMH_CREATE);
}

/*
 * Comm_create_from_group and Intercomm_create_from_groups (MPI-4; Open MPI 4.1 has neither):
 * collective over their groups only, with no parent communicator. MPI_COMM_WORLD stands in as
 * the parent, as every member is a world rank (a group of a session included: the tracer runs
 * in the world model, and rt__comm_new gives the members as world ranks), and the string tag,
 * which tells concurrent calls on the same groups apart, is recorded as a 32-bit FNV-1a hash of
 * its first RT__STRINGTAG_MAX bytes where Comm_create_group and Intercomm_create keep their tag
 * (formats/rt_raw.h says how the reader matches them).
 */
#define RT__STRINGTAG_MAX 4096

__attribute__((unused)) static int32_t comm_tag_hash(const char *s, size_t len)
{
    uint32_t h = UINT32_C(2166136261);
    for (size_t i = 0; s && i < len && i < RT__STRINGTAG_MAX && s[i]; i++) {
        h ^= (unsigned char)s[i];
        h *= UINT32_C(16777619);
    }
    int32_t tag;
    memcpy(&tag, &h, sizeof tag); /* the bits as they are: rt_raw_def_comm.tag is signed */
    return tag;
}

__attribute__((unused)) static void comm_made_tagged(rt__call *c, int32_t tag,
                                                     const MPI_Comm *newcomm)
{
    if (c->rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL)
        comm_handle(c, rt__comm_new(*newcomm, rt__comm_get(MPI_COMM_WORLD), c->fn, 0, tag),
                    RT_COMMH_CREATE);
}

__attribute__((unused)) static void comm_made_from_group(rt__call *c, const char *stringtag,
                                                         const MPI_Comm *newcomm)
{
    comm_made_tagged(c, comm_tag_hash(stringtag, RT__STRINGTAG_MAX), newcomm);
}

static void comm_made_inter(rt__call *c, MPI_Comm local, const MPI_Comm *newcomm, int tag)
{
    rt__comm *p = rt__comm_get(local);
    if (!p)
        return;
    uint32_t seq = atomic_fetch_add(&p->seq, 1);
    if (c->rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL)
        comm_handle(c, rt__comm_new(*newcomm, p, c->fn, seq, tag), RT_COMMH_CREATE);
}

/* A handle a free call sets to null, kept in c->aux from before the call for after it. */
#define KEEP_HANDLE(c, h) (c->aux = 0, memcpy(&c->aux, &h, RT__MIN(sizeof h, sizeof c->aux)))
#define KEPT_HANDLE(c, h) memcpy(&h, &c->aux, RT__MIN(sizeof h, sizeof c->aux))
#define RT__MIN(a, b) ((a) < (b) ? (a) : (b))

static void comm_free_pre(rt__call *c, MPI_Comm comm)
{
    KEEP_HANDLE(c, comm);
}

static void comm_freed(rt__call *c)
{
    MPI_Comm comm;
    KEPT_HANDLE(c, comm);
    if (c->rc != MPI_SUCCESS)
        return;
    comm_handle(c, rt__comm_get(comm), RT_COMMH_FREE);
    rt__comm_forget(comm);
}

/* A HANDLE event (rt_event.h) of op for the group handle of id (none when 0: not followed). */
static void group_handle(rt__call *c, unsigned op, uint64_t id)
{
    if (!id)
        return;
    rt_event ev = {.kind = RT_EV_HANDLE, .req = id, .op = (uint8_t)op};
    rt__rec_event(c, 1, &ev);
}

/* A call that gave the program the group handle *group. */
static void group_made(rt__call *c, const MPI_Group *group)
{
    if (c->rc == MPI_SUCCESS)
        group_handle(c, RT_HANDLE_GROUP_MADE, rt__group_made(*group));
}

/* MPI_Group_free: the handle before the call (the call sets it to MPI_GROUP_NULL). */
static void group_free_pre(rt__call *c, MPI_Group group)
{
    KEEP_HANDLE(c, group);
}

static void group_freed(rt__call *c)
{
    MPI_Group group;
    KEPT_HANDLE(c, group);
    if (c->rc == MPI_SUCCESS)
        group_handle(c, RT_HANDLE_GROUP_FREE, rt__group_freed(group));
}

#include "wrappers.def"
#include "rt__f08.h"    /* the mpi_f08 wrappers of these rows (rt__f08.h says why) */
#include "rt__ompi_f.h" /* Open MPI's Fortran wrappers of these rows (rt__ompi_f.h says why) */

#if RT__F08
/*
 * mpi_f08's MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups call PMPI directly
 * (rt__f08.h), and their CHARACTER stringtag has a hidden length that gfortran passes after
 * ierror, which f08.def's rows cannot say: so they are written out here. MPICH hands the C
 * function the tag without its trailing blanks; the hash is taken of the same bytes.
 */
_Static_assert(MPI_Errhandler_f2c(7) == (MPI_Errhandler)7 &&
                   sizeof(MPI_Errhandler) == sizeof(MPI_Fint),
               "MPI_Errhandler is its Fortran handle");

static int32_t comm_f08_tag(const char *stringtag, size_t len)
{
    while (len && stringtag[len - 1] == ' ')
        len--;
    return comm_tag_hash(stringtag, len);
}

void pmpir_comm_create_from_group_f08_(const MPI_Group *group, const char *stringtag,
                                       const MPI_Info *info, const MPI_Errhandler *errhandler,
                                       MPI_Comm *newcomm, MPI_Fint *ierror, size_t len)
    __attribute__((weak));
RT__EXPORT void mpi_comm_create_from_group_f08_(const MPI_Group *group, const char *stringtag,
                                                const MPI_Info *info,
                                                const MPI_Errhandler *errhandler, MPI_Comm *newcomm,
                                                MPI_Fint *ierror, size_t len);
RT__EXPORT void mpi_comm_create_from_group_f08_(const MPI_Group *group, const char *stringtag,
                                                const MPI_Info *info,
                                                const MPI_Errhandler *errhandler, MPI_Comm *newcomm,
                                                MPI_Fint *ierror, size_t len)
{
    rt__call c_;
    rt__call *const c = &c_;
    MPI_Fint rc = MPI_SUCCESS;
    if (rt__begin(c, RT_FN_Comm_create_from_group))
        rt__pending_open(c);
    pmpir_comm_create_from_group_f08_(group, stringtag, info, errhandler, newcomm, &rc, len);
    c->rc = rc;
    if (c->on) {
        rt__pending_close(c->t);
        comm_made_tagged(c, comm_f08_tag(stringtag, len), newcomm);
        rt__end(c);
    }
    if (ierror)
        *ierror = rc;
}

void pmpir_intercomm_create_from_groups_f08_(const MPI_Group *local_group,
                                             const MPI_Fint *local_leader,
                                             const MPI_Group *remote_group,
                                             const MPI_Fint *remote_leader, const char *stringtag,
                                             const MPI_Info *info, const MPI_Errhandler *errhandler,
                                             MPI_Comm *newintercomm, MPI_Fint *ierror, size_t len)
    __attribute__((weak));
RT__EXPORT void mpi_intercomm_create_from_groups_f08_(
    const MPI_Group *local_group, const MPI_Fint *local_leader, const MPI_Group *remote_group,
    const MPI_Fint *remote_leader, const char *stringtag, const MPI_Info *info,
    const MPI_Errhandler *errhandler, MPI_Comm *newintercomm, MPI_Fint *ierror, size_t len);
RT__EXPORT void mpi_intercomm_create_from_groups_f08_(
    const MPI_Group *local_group, const MPI_Fint *local_leader, const MPI_Group *remote_group,
    const MPI_Fint *remote_leader, const char *stringtag, const MPI_Info *info,
    const MPI_Errhandler *errhandler, MPI_Comm *newintercomm, MPI_Fint *ierror, size_t len)
{
    rt__call c_;
    rt__call *const c = &c_;
    MPI_Fint rc = MPI_SUCCESS;
    if (rt__begin(c, RT_FN_Intercomm_create_from_groups))
        rt__pending_open(c);
    pmpir_intercomm_create_from_groups_f08_(local_group, local_leader, remote_group, remote_leader,
                                            stringtag, info, errhandler, newintercomm, &rc, len);
    c->rc = rc;
    if (c->on) {
        rt__pending_close(c->t);
        comm_made_tagged(c, comm_f08_tag(stringtag, len), newintercomm);
        rt__end(c);
    }
    if (ierror)
        *ierror = rc;
}
#endif
