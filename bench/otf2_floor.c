/*
 * otf2_floor: the cost of reading an OTF2 archive's events with OTF2's own API and nothing
 * else, the floor of retrace's readers (bench/analyzer_throughput.sh). It opens the archive as
 * retrace does (global definitions, every location selected, local definitions read), then
 * reads each location's events in one call with callbacks that only count, for the record
 * types retrace reads, and prints the events read.
 *
 * usage: otf2_floor ARCHIVE (the directory or its .otf2 anchor file)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

typedef struct floor_state {
    uint64_t events;
    OTF2_LocationRef *locs;
    uint64_t nlocs, cap;
} floor_state;

#define COUNT ((floor_state *)user)->events++
#define CB_ARGS \
    OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *user, OTF2_AttributeList *attrs
#define UNUSED_ARGS (void)loc, (void)t, (void)pos, (void)attrs

static OTF2_CallbackCode on_region(CB_ARGS, OTF2_RegionRef region)
{
    UNUSED_ARGS, (void)region;
    COUNT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_p2p(CB_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                uint64_t len)
{
    UNUSED_ARGS, (void)peer, (void)comm, (void)tag, (void)len;
    COUNT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_p2p_req(CB_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                    uint64_t len, uint64_t req)
{
    UNUSED_ARGS, (void)peer, (void)comm, (void)tag, (void)len, (void)req;
    COUNT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_req(CB_ARGS, uint64_t req)
{
    UNUSED_ARGS, (void)req;
    COUNT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_coll_begin(CB_ARGS)
{
    UNUSED_ARGS;
    COUNT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_coll_end(CB_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                     uint32_t root, uint64_t sent, uint64_t received)
{
    UNUSED_ARGS, (void)op, (void)comm, (void)root, (void)sent, (void)received;
    COUNT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t nevents,
                                     OTF2_LocationGroupRef group)
{
    (void)name, (void)type, (void)nevents, (void)group;
    floor_state *s = user;
    if (s->nlocs == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        OTF2_LocationRef *p = realloc(s->locs, s->cap * sizeof *p);
        if (!p)
            return OTF2_CALLBACK_INTERRUPT;
        s->locs = p;
    }
    s->locs[s->nlocs++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_region);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_region);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_p2p);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_p2p);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_p2p_req);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_p2p_req);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_req);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_req);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_req);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, on_req);
    return cb;
}

/* Global definitions: the locations. */
static int read_globals(OTF2_Reader *rd, floor_state *s)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !gcb)
        return -1;
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
    uint64_t n;
    int ok = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, s) == OTF2_SUCCESS &&
             OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n) == OTF2_SUCCESS;
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    return ok ? 0 : -1;
}

static int read_events(OTF2_Reader *rd, floor_state *s)
{
    for (uint64_t i = 0; i < s->nlocs; i++)
        if (OTF2_Reader_SelectLocation(rd, s->locs[i]) != OTF2_SUCCESS)
            return -1;
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS)
        return -1;
    if (OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS) {
        for (uint64_t i = 0; i < s->nlocs; i++) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, s->locs[i]);
            if (dr) {
                uint64_t n;
                OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
        }
        OTF2_Reader_CloseDefFiles(rd);
    }
    OTF2_EvtReaderCallbacks *cb = event_callbacks();
    int rc = cb ? 0 : -1;
    for (uint64_t i = 0; i < s->nlocs && !rc; i++) {
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, s->locs[i]);
        uint64_t got;
        if (!er || OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, s) != OTF2_SUCCESS ||
            OTF2_Reader_ReadLocalEvents(rd, er, UINT64_MAX, &got) != OTF2_SUCCESS)
            rc = -1;
        if (er)
            OTF2_Reader_CloseEvtReader(rd, er);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtFiles(rd);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: otf2_floor ARCHIVE\n");
        return 2;
    }
    char anchor[4096];
    struct stat st;
    if (stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", argv[1]);
    else
        snprintf(anchor, sizeof anchor, "%s", argv[1]);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        fprintf(stderr, "otf2_floor: %s: cannot open\n", anchor);
        return 2;
    }
    floor_state s = {0};
    int rc = OTF2_Reader_SetSerialCollectiveCallbacks(rd) == OTF2_SUCCESS ? 0 : -1;
    if (!rc)
        rc = read_globals(rd, &s);
    if (!rc)
        rc = read_events(rd, &s);
    OTF2_Reader_Close(rd);
    free(s.locs);
    if (rc) {
        fprintf(stderr, "otf2_floor: %s: unreadable\n", anchor);
        return 2;
    }
    printf("%" PRIu64 " events, %" PRIu64 " locations\n", s.events, s.nlocs);
    return 0;
}
