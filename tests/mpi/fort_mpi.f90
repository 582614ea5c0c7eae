! fort_mpi: fort_c.c's calls through `use mpi`, one for one and in the same order, on 4 ranks:
! the same output and the same trace (expected/fort.dump). Keep fort_c.c, fort_f08.f90 and
! this file in step.
module fort_checks
    use mpi
    implicit none
    integer(kind=8) :: checks = 0, failures = 0
    integer :: rank, ierr
contains
    subroutine check(cond, what)
        logical, intent(in) :: cond
        character(len=*), intent(in) :: what
        checks = checks + 1
        if (.not. cond) then
            write (0, '(a,i0,a,a)') 'rank ', rank, ': check failed: ', what
            failures = failures + 1
        end if
    end subroutine check
end module fort_checks

program fort_mpi
    use mpi
    use fort_checks
    implicit none
    integer :: nranks
    integer(kind=8) :: mine(2), all(2)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    if (nranks /= 4) then
        if (rank == 0) write (0, '(a)') 'fort: run with 4 ranks'
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call blocking()
    call nonblocking()
    call collectives()
    call wcollectives()
    call rma()
    mine = [checks, failures]
    all = 0
    call MPI_Reduce(mine, all, 2, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        write (*, '(a,i0,a,i0,a)') 'fort: ', nranks, ' ranks, ', all(1), ' checks'
        if (all(2) == 0) then
            write (*, '(a)') 'fort: ok'
        else
            write (*, '(a)') 'fort: FAILED'
        end if
    end if
    call MPI_Finalize(ierr)

contains

    subroutine blocking()
        integer :: ints(10), five(5), i
        double precision :: three(3)
        integer :: st(MPI_STATUS_SIZE)
        ints = 0
        five = 0
        three = 0
        if (rank == 0) then
            ints = [(i, i = 1, 10)]
            call MPI_Send(ints, 10, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierr)
        else if (rank == 1) then
            call MPI_Recv(ints, 10, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, st, ierr)
            call check(st(MPI_SOURCE) == 0 .and. st(MPI_TAG) == 1 .and. ints(10) == 10, 'recv')
        else if (rank == 2) then
            three(3) = 2.5d0
            call MPI_Send(three, 3, MPI_DOUBLE_PRECISION, 3, 2, MPI_COMM_WORLD, ierr)
            call MPI_Probe(3, 3, MPI_COMM_WORLD, st, ierr)
            call check(st(MPI_SOURCE) == 3 .and. st(MPI_TAG) == 3, 'probe')
            call MPI_Recv(five, 5, MPI_INTEGER, 3, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            call check(five(5) == 7, 'recv after probe')
        else
            call MPI_Recv(three, 3, MPI_DOUBLE_PRECISION, 2, 2, MPI_COMM_WORLD, &
                          MPI_STATUS_IGNORE, ierr)
            call check(three(3) == 2.5d0, 'recv ignoring the status')
            five(5) = 7
            call MPI_Send(five, 5, MPI_INTEGER, 2, 3, MPI_COMM_WORLD, ierr)
        end if
    end subroutine blocking

    subroutine nonblocking()
        integer :: right, left, partner, i, idx, outcount
        integer :: out(4), in(4), two(2), got(2), one, back, indices(2)
        logical :: flag
        integer :: reqs(2), many(20)
        integer :: sts(MPI_STATUS_SIZE, 2)
        right = mod(rank + 1, 4)
        left = mod(rank + 3, 4)
        partner = ieor(rank, 1)
        in = 0
        got = 0
        two = rank
        one = rank
        back = -1
        out = [(rank * 10 + i, i = 0, 3)]
        call MPI_Irecv(in, 4, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Isend(out, 4, MPI_INTEGER, right, 4, MPI_COMM_WORLD, reqs(2), ierr)
        call MPI_Waitall(2, reqs, sts, ierr)
        call check(sts(MPI_SOURCE, 1) == left .and. in(4) == left * 10 + 3, 'waitall')
        ! the ring once more, its requests the last of 20 (fort_c.c says why)
        many = MPI_REQUEST_NULL
        in(4) = 0
        call MPI_Irecv(in, 4, MPI_INTEGER, left, 10, MPI_COMM_WORLD, many(19), ierr)
        call MPI_Isend(out, 4, MPI_INTEGER, right, 10, MPI_COMM_WORLD, many(20), ierr)
        call MPI_Waitall(20, many, MPI_STATUSES_IGNORE, ierr)
        call check(in(4) == left * 10 + 3, 'waitall of 20')

        call MPI_Irecv(got, 2, MPI_INTEGER, partner, 5, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Isend(two, 2, MPI_INTEGER, partner, 5, MPI_COMM_WORLD, reqs(2), ierr)
        call MPI_Wait(reqs(2), sts(:, 2), ierr)
        call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
        call check(got(1) == partner .and. got(2) == partner, 'wait')

        ! The index Waitany and Waitsome give differs between MPICH versions (from 0 in
        ! 4.0, MPICH issue 6270): not checked.
        flag = .false.
        reqs(1) = MPI_REQUEST_NULL
        call MPI_Irecv(back, 1, MPI_INTEGER, partner, 6, MPI_COMM_WORLD, reqs(2), ierr)
        call MPI_Send(one, 1, MPI_INTEGER, partner, 6, MPI_COMM_WORLD, ierr)
        call MPI_Waitany(2, reqs, idx, sts(:, 1), ierr)
        call check(back == partner .and. sts(MPI_TAG, 1) == 6, 'waitany')
        call MPI_Irecv(back, 1, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, reqs(2), ierr)
        call MPI_Send(one, 1, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, ierr)
        call MPI_Waitsome(2, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
        call check(outcount == 1, 'waitsome')
        call MPI_Irecv(back, 1, MPI_INTEGER, partner, 8, MPI_COMM_WORLD, reqs(2), ierr)
        call MPI_Send(one, 1, MPI_INTEGER, partner, 8, MPI_COMM_WORLD, ierr)
        do while (.not. flag)
            call MPI_Test(reqs(2), flag, sts(:, 1), ierr)
        end do
        call check(sts(MPI_SOURCE, 1) == partner, 'test')
    end subroutine nonblocking

    subroutine collectives()
        integer :: four(4), sub_rank, total_ranks, val, i
        double precision :: x, total
        integer :: req
        integer :: half
        four = 0
        val = -1
        x = rank + 0.5d0
        if (rank == 0) four = [(100 + i, i = 0, 3)]
        call MPI_Bcast(four, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
        call check(four(4) == 103, 'bcast')
        call MPI_Allreduce(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
        call check(total == 8.0d0, 'allreduce')
        call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        ! MPI_IN_PLACE at the root, with a send count it ignores (fort_c.c says why)
        if (rank == 0) then
            call MPI_Gather(MPI_IN_PLACE, 0, MPI_INTEGER, four, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, &
                            ierr)
        else
            call MPI_Gather(rank, 1, MPI_INTEGER, four, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
        end if
        call check(rank /= 0 .or. (four(1) == 100 .and. four(2) == 1 .and. four(3) == 2 .and. &
                                  four(4) == 3), 'gather in place')

        call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
        call MPI_Comm_rank(half, sub_rank, ierr)
        if (sub_rank == 0) then
            call MPI_Send(rank, 1, MPI_INTEGER, 1, 9, half, ierr)
        else
            call MPI_Recv(val, 1, MPI_INTEGER, 0, 9, half, MPI_STATUS_IGNORE, ierr)
        end if
        call check(sub_rank == 0 .or. val == rank - 2, 'message on the split')
        call MPI_Allreduce(rank, total_ranks, 1, MPI_INTEGER, MPI_SUM, half, ierr)
        call check(total_ranks == merge(4, 2, mod(rank, 2) == 1), 'allreduce on the split')
        call MPI_Comm_free(half, ierr)
    end subroutine collectives

    ! The w collectives (fort_c.c says what they show, and why the nonblocking ones send
    ! doubles and the ring is a distributed graph); indices from 0 as there.
    subroutine wcollectives()
        integer, parameter :: e = 4
        integer :: s(0:24), r(0:24), sc(0:e - 1), rc(0:e - 1), sd(0:3), rd(0:3)
        integer :: srcs(0:e - 1), dsts(0:e - 1), left, right, i, j, off
        integer(kind=MPI_ADDRESS_KIND) :: nsd(0:e - 1), nrd(0:e - 1)
        integer :: pair, st(0:e - 1), rt(0:e - 1)
        integer :: graph, ring
        integer :: req
        left = mod(rank + 3, 4)
        right = mod(rank + 1, 4)
        call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
        call MPI_Type_commit(pair, ierr)
        s = [(rank * 100 + i, i = 0, 24)]

        off = 0
        do j = 0, 3
            st(j) = merge(pair, MPI_INTEGER, mod(j, 2) == 1)
            rt(j) = merge(pair, MPI_INTEGER, mod(rank, 2) == 1)
            sc(j) = 1
            rc(j) = 1
            sd(j) = off
            off = off + merge(8, 4, mod(j, 2) == 1)
            rd(j) = j * merge(8, 4, mod(rank, 2) == 1)
        end do
        call MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, ierr)
        call check(r(rd(3) / 4) == 300 + sd(rank) / 4, 'alltoallw')
        r(rd(3) / 4) = -1
        do j = 0, 3
            st(j) = merge(MPI_DOUBLE_PRECISION, MPI_INTEGER, mod(j, 2) == 1)
            rt(j) = merge(MPI_DOUBLE_PRECISION, MPI_INTEGER, mod(rank, 2) == 1)
        end do
        call MPI_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, req, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call check(r(rd(3) / 4) == 300 + sd(rank) / 4, 'ialltoallw')
        off = 0
        do j = 0, 3
            rt(j) = merge(pair, MPI_INTEGER, mod(rank + j, 2) == 1)
            rd(j) = off
            off = off + merge(8, 4, mod(rank + j, 2) == 1)
        end do
        r = [(rank * 100 + i, i = 0, 24)]
        call MPI_Alltoallw(MPI_IN_PLACE, rc, rd, rt, r, rc, rd, rt, MPI_COMM_WORLD, ierr)
        call check(r(0) == sd(rank) / 4, 'alltoallw in place')

        off = 0
        do i = 0, e - 1
            srcs(i) = left
            dsts(i) = right
            st(i) = merge(pair, MPI_INTEGER, mod(i, 2) == 1)
            rt(i) = st(i)
            sc(i) = 1
            rc(i) = 1
            nsd(i) = off
            nrd(i) = off
            off = off + merge(8, 4, mod(i, 2) == 1)
        end do
        call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, e, srcs, MPI_UNWEIGHTED, e, dsts, &
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph, ierr)
        call MPI_Neighbor_alltoallw(s, sc, nsd, st, r, rc, nrd, rt, graph, ierr)
        call check(r(4) == left * 100 + 4 .and. r(0) == left * 100, 'neighbor_alltoallw')
        call MPI_Comm_free(graph, ierr)

        srcs(0:1) = [left, right]
        dsts(0:1) = [left, right]
        call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts, &
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, .false., ring, ierr)
        st(0:1) = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
        rt(0:1) = [MPI_DOUBLE_PRECISION, MPI_INTEGER]
        nsd(0:1) = [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND]
        nrd(0:1) = [0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND]
        call MPI_Ineighbor_alltoallw(s, sc, nsd, st, r, rc, nrd, rt, ring, req, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call check(r(0) == left * 100 + 1 .and. r(1) == left * 100 + 2 .and. r(2) == right * 100, &
                   'ineighbor_alltoallw')
        call MPI_Comm_free(ring, ierr)
        call MPI_Type_free(pair, ierr)
    end subroutine wcollectives

    subroutine rma()
        integer :: value, seen
        integer(kind=MPI_ADDRESS_KIND) :: size
        integer(kind=MPI_ADDRESS_KIND), parameter :: disp0 = 0
        integer(kind=MPI_ADDRESS_KIND) :: base
        integer :: win
        value = (rank + 1) * 10
        seen = -1
        size = 16
        call MPI_Win_allocate(size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
        call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierr)
        call MPI_Put(value, 1, MPI_INTEGER, mod(rank + 1, 4), disp0, 1, MPI_INTEGER, win, ierr)
        call MPI_Win_fence(0, win, ierr)
        call MPI_Get(seen, 1, MPI_INTEGER, rank, disp0, 1, MPI_INTEGER, win, ierr)
        call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)
        call check(seen == (mod(rank + 3, 4) + 1) * 10, 'put and get')
        call MPI_Win_free(win, ierr)
    end subroutine rma
end program fort_mpi
