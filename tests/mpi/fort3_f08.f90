! fort3_f08: fort3_c.c through `use mpi_f08` (the MPI-4 entry points that call PMPI directly:
! mpi_barrier_init_f08_, mpi_comm_idup_with_info_f08_, mpi_comm_create_from_group_f08_ and
! mpi_intercomm_create_from_groups_f08_), one for one and in the same order: the same output
! and the same trace (expected/fort3.dump). The string tags are CHARACTER variables longer
! than their text: MPICH passes them on without the trailing blanks. Keep the two in step.
program fort3_f08
    use mpi_f08
    implicit none
    integer :: rank, nranks, provided, k, got
    integer(kind=8) :: checks = 0, failures = 0, mine(2), all(2)
    type(MPI_Request) :: req
    type(MPI_Comm) :: dup, c3, inter
    type(MPI_Group) :: world, g3, ge, go
    integer, parameter :: three(3) = [3, 1, 0], even(2) = [0, 2], odd(2) = [3, 1]
    character(len=32) :: tag3 = 'retrace/fort3', tagi = 'retrace/inter'

    call MPI_Init_thread(MPI_THREAD_SINGLE, provided)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    if (nranks /= 4) then
        if (rank == 0) write (0, '(a)') 'fort3: run with 4 ranks'
        call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, req)
    call MPI_Start(req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_Start(req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_Request_free(req)

    call MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, dup, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call ring(dup, 21, mod(rank + 3, 4))

    call MPI_Comm_group(MPI_COMM_WORLD, world)
    call MPI_Group_incl(world, 3, three, g3)
    c3 = MPI_COMM_NULL
    if (rank /= 2) then
        call MPI_Comm_create_from_group(g3, tag3, MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, c3)
        if (rank == 3) then
            call ring(c3, 22, 0)
        else if (rank == 1) then
            call ring(c3, 22, 3)
        else
            call ring(c3, 22, 1)
        end if
    end if
    call MPI_Group_incl(world, 2, even, ge)
    call MPI_Group_incl(world, 2, odd, go)
    if (mod(rank, 2) == 1) then
        call MPI_Intercomm_create_from_groups(go, 0, ge, 0, tagi, MPI_INFO_NULL, &
                                              MPI_ERRORS_ARE_FATAL, inter)
    else
        call MPI_Intercomm_create_from_groups(ge, 0, go, 0, tagi, MPI_INFO_NULL, &
                                              MPI_ERRORS_ARE_FATAL, inter)
    end if
    call MPI_Comm_rank(inter, k)
    got = -1
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, k, 23, got, 1, MPI_INTEGER, k, 23, inter, &
                      MPI_STATUS_IGNORE)
    if (mod(rank, 2) == 1) then
        call check(got == even(k + 1))
    else
        call check(got == odd(k + 1))
    end if

    call MPI_Comm_free(inter)
    call MPI_Group_free(go)
    call MPI_Group_free(ge)
    if (c3 /= MPI_COMM_NULL) call MPI_Comm_free(c3)
    call MPI_Group_free(g3)
    call MPI_Group_free(world)
    call MPI_Comm_free(dup)
    mine = [checks, failures]
    all = 0
    call MPI_Reduce(mine, all, 2, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD)
    if (rank == 0) then
        write (*, '(a,i0,a,i0,a)') 'fort3: ', nranks, ' ranks, ', all(1), ' checks'
        if (all(2) == 0) then
            write (*, '(a)') 'fort3: ok'
        else
            write (*, '(a)') 'fort3: FAILED'
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

    ! One integer to the next rank of comm, one from the previous: the sender's world rank.
    subroutine ring(comm, tag, from)
        type(MPI_Comm), intent(in) :: comm
        integer, intent(in) :: tag, from
        integer :: me, n, r
        call MPI_Comm_rank(comm, me)
        call MPI_Comm_size(comm, n)
        r = -1
        call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(me + 1, n), tag, r, 1, MPI_INTEGER, &
                          mod(me + n - 1, n), tag, comm, MPI_STATUS_IGNORE)
        call check(r == from)
    end subroutine ring
end program fort3_f08
