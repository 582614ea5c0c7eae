/*
 * threads: MPI_THREAD_MULTIPLE on 4 ranks, 3 threads per rank, each thread exchanging
 * messages around the ring of ranks on its own duplicate of MPI_COMM_WORLD: ROUNDS times a
 * Sendrecv (tag t) and an Irecv + Isend + Waitall (tag 10 + t), 8 * (t + 1) bytes each.
 * The threads' events interleave differently in every run, so the expectation
 * (expected/threads.counts, derived by hand) counts each distinct event line per rank.
 *
 * "threads own": 4 threads per rank, the main thread (which called MPI_Init) the first of them,
 * each sending as above; worker t makes its first MPI call before worker t + 1 starts, so
 * that the tracer numbers it thread t and the archive has one location per thread, each with
 * its own thread's calls (expected/threads_own.locations).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

#define P 4
#define THREADS 4 /* at most */
#define ROUNDS 4

static int rank;
static MPI_Comm comms[THREADS];
static long thread_failures[THREADS];

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static int started; /* workers past their first MPI call (own mode) */

static void *worker(void *arg)
{
    int t = (int)(long)arg, n = 2 * (t + 1), next = (rank + 1) % P, prev = (rank + P - 1) % P;
    int s[2 * THREADS], r[2 * THREADS];
    MPI_Request q[2];
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < n; i++)
            s[i] = rank * 1000 + t * 100 + round * 10 + i;
        MPI_Sendrecv(s, n, MPI_INT, next, t, r, n, MPI_INT, prev, t, comms[t], MPI_STATUS_IGNORE);
        if (round == 0) { /* the next worker may start */
            pthread_mutex_lock(&start_lock);
            started++;
            pthread_cond_broadcast(&start_cond);
            pthread_mutex_unlock(&start_lock);
        }
        thread_failures[t] += r[n - 1] != prev * 1000 + t * 100 + round * 10 + n - 1;
        MPI_Irecv(r, n, MPI_INT, prev, 10 + t, comms[t], &q[0]);
        MPI_Isend(s, n, MPI_INT, next, 10 + t, comms[t], &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        thread_failures[t] += r[0] != prev * 1000 + t * 100 + round * 10;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t tid[THREADS];
    rank = mt_init(&argc, &argv, "threads", P, MPI_THREAD_MULTIPLE);
    int own = argc > 1 && !strcmp(argv[1], "own"), nthreads = own ? THREADS : 3;
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = own; t < nthreads; t++) {
        if (pthread_create(&tid[t], NULL, worker, (void *)(long)t) != 0) {
            fprintf(stderr, "threads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        pthread_mutex_lock(&start_lock);
        while (own && started < t)
            pthread_cond_wait(&start_cond, &start_lock);
        pthread_mutex_unlock(&start_lock);
    }
    if (own)
        worker((void *)0L);
    for (int t = 0; t < nthreads; t++) {
        if (t >= own)
            pthread_join(tid[t], NULL);
        MT_CHECK(thread_failures[t] == 0);
    }
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&comms[t]);
    mt_finish("threads");
    MPI_Finalize();
    return 0;
}
