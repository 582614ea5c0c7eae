! part_f08: part.c through `use mpi_f08`, whose MPI_Pready, MPI_Pready_range, MPI_Pready_list
! and MPI_Parrived call PMPI directly (the tracer's f08 wrappers, tracer/f08.def). The same
! calls in the same order as part.c: the same output and the same trace (expected/part.dump).
! Keep the two in step. MPICH only: Open MPI 4.1 has no partitioned communication.
program part_f08
    use mpi_f08
    implicit none
    integer, parameter :: parts = 4, count = 8, n = parts * count
    ! asynchronous: MPI reads and writes them after the calls that name them return; gfortran
    ! still drops a store to buf that no call it sees reads (the second round's, overwritten by
    ! the third's): MPI_F_sync_reg (not recorded) after each fill keeps it (MPI 4.0 19.1.17)
    integer, asynchronous :: buf(n), small
    integer :: other, rank, nranks, i
    integer :: first(2), third(1)
    integer(kind=8) :: checks = 0, failures = 0, mine(2), total(2)
    logical :: flag
    double precision :: t
    type(MPI_Request) :: rq(1), ro

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    if (nranks /= 2) then
        if (rank == 0) write (0, '(a)') 'part: run with 2 ranks'
        call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    other = 0
    if (rank == 0) then
        call MPI_Psend_init(buf, parts, int(count, MPI_COUNT_KIND), MPI_INTEGER, 1, 7, &
                            MPI_COMM_WORLD, MPI_INFO_NULL, rq(1))
        buf = [(1000 + i, i = 0, n - 1)]
        call MPI_F_sync_reg(buf)
        call MPI_Start(rq(1))
        call MPI_Pready_range(2, 3, rq(1))
        first = [1, 0]
        call MPI_Pready_list(2, first, rq(1))
        call MPI_Wait(rq(1), MPI_STATUS_IGNORE)
        call MPI_Recv(other, 1, MPI_INTEGER, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call check(other == 42)
        call MPI_Barrier(MPI_COMM_WORLD)
        buf = [(2000 + i, i = 0, n - 1)]
        call MPI_F_sync_reg(buf)
        call MPI_Startall(1, rq)
        call MPI_Pready(3, rq(1))
        call MPI_Pready(0, rq(1))
        third = [2]
        call MPI_Pready_list(1, third, rq(1))
        call MPI_Pready(1, rq(1))
        call MPI_Wait(rq(1), MPI_STATUS_IGNORE)
        small = 7
        buf = [(3000 + i, i = 0, n - 1)]
        call MPI_F_sync_reg(buf)
        call MPI_Start(rq(1))
        call MPI_Isend(small, 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ro)
        call MPI_Pready_range(0, parts - 1, rq(1))
        call MPI_Wait(ro, MPI_STATUS_IGNORE)
        call MPI_Wait(rq(1), MPI_STATUS_IGNORE)
    else
        call MPI_Precv_init(buf, parts / 2, int(2 * count, MPI_COUNT_KIND), MPI_INTEGER, 0, 7, &
                            MPI_COMM_WORLD, MPI_INFO_NULL, rq(1))
        call MPI_Start(rq(1))
        call MPI_Parrived(rq(1), 1, flag)
        do while (.not. flag)
            t = MPI_Wtime() ! a poll a millisecond: the trace stays small
            do while (MPI_Wtime() - t < 1d-3)
            end do
            call MPI_Parrived(rq(1), 1, flag)
        end do
        call MPI_Wait(rq(1), MPI_STATUS_IGNORE)
        call check(all_of(1000))
        other = 42
        call MPI_Send(other, 1, MPI_INTEGER, 0, 8, MPI_COMM_WORLD)
        call MPI_Barrier(MPI_COMM_WORLD)
        call MPI_Startall(1, rq)
        call MPI_Wait(rq(1), MPI_STATUS_IGNORE)
        call check(all_of(2000))
        call MPI_Start(rq(1))
        call MPI_Recv(other, 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call check(other == 7)
        call MPI_Wait(rq(1), MPI_STATUS_IGNORE)
        call check(all_of(3000))
    end if
    call MPI_Request_free(rq(1))
    mine = [checks, failures]
    total = 0
    call MPI_Reduce(mine, total, 2, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD)
    if (rank == 0) then
        write (*, '(a,i0,a,i0,a)') 'part: ', nranks, ' ranks, ', total(1), ' checks'
        if (total(2) == 0) then
            write (*, '(a)') 'part: ok'
        else
            write (*, '(a)') 'part: FAILED'
        end if
    end if
    call MPI_Finalize()

contains

    subroutine check(cond)
        logical, intent(in) :: cond
        checks = checks + 1
        if (.not. cond) then
            write (0, '(a,i0,a)') 'rank ', rank, ': check failed'
            failures = failures + 1
        end if
    end subroutine check

    logical function all_of(base)
        integer, intent(in) :: base
        all_of = all(buf == [(base + i, i = 0, n - 1)])
    end function all_of
end program part_f08
