/*
 * rma_targets: what the trace says about the targets of RMA transfers and about windows, on 2
 * ranks (issue 18). A window of bytes (disp_unit 1) created with ParaStation's psnam_* info
 * keys and named with MPI_Win_set_name, and a window of doubles (disp_unit 8) with more info
 * keys than a trace keeps, one of them too long: Put, Get, Accumulate with MPI_SUM and with
 * MPI_REPLACE, Get_accumulate and Fetch_and_op with MPI_NO_OP at different displacements, so
 * that each rma_target's displacement (units times the target's disp_unit) and op is known.
 * Rank 1's disp_unit on the byte window is 4 (MPI_Win_create's unit is per rank): rank 0's
 * transfers to it scale by 4. The expected trace, derived by hand, is
 * expected/rma_targets.dump, and the OTF2 attributes expected/rma_targets.otf2attrs.
 */
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

static int rank;

/* Bytes on rank 0 (unit 1), ints on rank 1 (unit 4), named, with psnam_ keys. */
static void byte_window(void)
{
    static unsigned char base[64];
    int v = 0x01020304, got = 0, one = 1;
    MPI_Info info;
    MPI_Win win;
    MPI_Info_create(&info);
    MPI_Info_set(info, "psnam_structure", "managed");
    MPI_Info_set(info, "psnam_manual_size", "1048576");
    MPI_Win_create(base, sizeof base, rank == 0 ? 1 : 4, info, W, &win);
    MPI_Info_free(&info);
    MPI_Win_set_name(win, "nam window");
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(&v, 4, MPI_BYTE, 1, 3, 4, MPI_BYTE, win);                 /* 12 bytes in */
        MPI_Accumulate(&one, 1, MPI_INT, 1, 5, 1, MPI_INT, MPI_SUM, win); /* 20 */
    } else {
        MPI_Get(&got, 4, MPI_BYTE, 0, 17, 4, MPI_BYTE, win); /* 17: rank 0's unit is 1 */
    }
    MPI_Win_fence(0, win);
    if (rank == 1) {
        int at12, at20;
        memcpy(&at12, base + 12, sizeof at12);
        memcpy(&at20, base + 20, sizeof at20);
        MT_CHECK(at12 == v && at20 == 1 && got == 0);
    }
    MPI_Win_free(&win);
}

/* Doubles on both ranks (unit 8), created with 18 info keys (a trace keeps 15 and says how many
 * it left out) of which one has a value of 300 bytes (cut). */
static void double_window(void)
{
    double *base, x = 2.5, old = 0, res = 0;
    char key[32], value[301];
    MPI_Info info;
    MPI_Win win;
    MPI_Info_create(&info);
    memset(value, 'v', 300);
    value[300] = '\0';
    MPI_Info_set(info, "psnam_long", value);
    for (int k = 1; k < 18; k++) {
        snprintf(key, sizeof key, "key%02d", k);
        MPI_Info_set(info, key, "x");
    }
    MPI_Win_allocate(16 * sizeof(double), sizeof(double), info, W, &base, &win);
    MPI_Info_free(&info);
    for (int i = 0; i < 16; i++)
        base[i] = rank * 100 + i;
    MPI_Barrier(W);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Accumulate(&x, 1, MPI_DOUBLE, 1, 7, 1, MPI_DOUBLE, MPI_REPLACE, win); /* 56 */
        MPI_Win_flush(1, win);
        MPI_Fetch_and_op(NULL, &old, MPI_DOUBLE, 1, 7, MPI_NO_OP, win);
        MPI_Win_flush(1, win);
        MPI_Get_accumulate(&x, 1, MPI_DOUBLE, &res, 1, MPI_DOUBLE, 1, 9, 1, MPI_DOUBLE, MPI_SUM,
                           win); /* 72 */
        MPI_Win_flush(1, win);
        MT_CHECK(old == 2.5 && res == 109.0);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(W);
    if (rank == 1)
        MT_CHECK(base[7] == 2.5 && base[9] == 111.5);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "rma_targets", 2, MT_NO_THREADS);
    byte_window();
    double_window();
    mt_finish("rma_targets");
    MPI_Finalize();
    return 0;
}
