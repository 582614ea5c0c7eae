! fort2_f08: the other `use mpi_f08` entry points that call PMPI directly (tracer/f08.def), on
! 4 ranks: probes, persistent requests and every test, a cancel, windows of every kind with
! every synchronisation, and every communicator constructor. fort2_c.c makes the same calls
! in C, one for one and in the same order: the same output and the same trace
! (expected/fort2.dump). Keep the two in step.
module fort2_checks
    use mpi_f08
    implicit none
    integer(kind=8) :: checks = 0, failures = 0
    integer :: rank
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
end module fort2_checks

program fort2_f08
    use mpi_f08
    use fort2_checks
    implicit none
    integer :: nranks, provided
    integer(kind=8) :: mine(2), all(2)

    call MPI_Init_thread(MPI_THREAD_SINGLE, provided)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    if (nranks /= 4) then
        if (rank == 0) write (0, '(a)') 'fort2: run with 4 ranks'
        call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    call probes()
    call MPI_Barrier(MPI_COMM_WORLD)
    call persistent()
    call MPI_Barrier(MPI_COMM_WORLD)
    call windows()
    call MPI_Barrier(MPI_COMM_WORLD)
    call communicators()
    mine = [checks, failures]
    all = 0
    call MPI_Reduce(mine, all, 2, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD)
    if (rank == 0) then
        write (*, '(a,i0,a,i0,a)') 'fort2: ', nranks, ' ranks, ', all(1), ' checks'
        if (all(2) == 0) then
            write (*, '(a)') 'fort2: ok'
        else
            write (*, '(a)') 'fort2: FAILED'
        end if
    end if
    call MPI_Finalize()

contains

    ! Rank 0 sends three messages to rank 1, which finds them with Iprobe, Mprobe and
    ! Improbe; rank 2 cancels a receive that nothing matches.
    subroutine probes()
        integer :: a(2), b(3), one
        logical :: flag
        type(MPI_Status) :: st
        type(MPI_Message) :: message
        type(MPI_Request) :: req
        a = 0
        b = 0
        one = 0
        flag = .false.
        if (rank == 0) then
            a = [1, 2]
            b = [3, 4, 5]
            one = 6
            call MPI_Send(a, 2, MPI_INTEGER, 1, 11, MPI_COMM_WORLD)
            call MPI_Send(b, 3, MPI_INTEGER, 1, 12, MPI_COMM_WORLD)
            call MPI_Send(one, 1, MPI_INTEGER, 1, 13, MPI_COMM_WORLD)
        else if (rank == 1) then
            do while (.not. flag)
                call MPI_Iprobe(0, 11, MPI_COMM_WORLD, flag, st)
            end do
            call MPI_Recv(a, 2, MPI_INTEGER, 0, 11, MPI_COMM_WORLD, st)
            call check(a(2) == 2, 'iprobe')
            call MPI_Mprobe(0, 12, MPI_COMM_WORLD, message, st)
            call MPI_Mrecv(b, 3, MPI_INTEGER, message, st)
            call check(b(3) == 5 .and. st%MPI_TAG == 12, 'mprobe')
            flag = .false.
            do while (.not. flag)
                call MPI_Improbe(0, 13, MPI_COMM_WORLD, flag, message, st)
            end do
            call MPI_Imrecv(one, 1, MPI_INTEGER, message, req)
            call MPI_Wait(req, st)
            call check(one == 6, 'improbe')
        else if (rank == 2) then
            call MPI_Irecv(one, 1, MPI_INTEGER, 3, 99, MPI_COMM_WORLD, req)
            call MPI_Cancel(req)
            call MPI_Wait(req, st)
            call MPI_Test_cancelled(st, flag)
            call check(flag, 'cancel')
        end if
    end subroutine probes

    ! Rank 2 sends to rank 3 through persistent requests, completed by Wait, Testall, Testany
    ! and Testsome in turn.
    subroutine persistent()
        integer :: buf(4), i, idx, outcount, indices(1)
        logical :: flag
        type(MPI_Request) :: reqs(1)
        type(MPI_Status) :: sts(1)
        if (rank < 2) return
        buf = 0
        if (rank == 2) then
            buf = [(i, i = 1, 4)]
            call MPI_Send_init(buf, 4, MPI_INTEGER, 3, 14, MPI_COMM_WORLD, reqs(1))
        else
            call MPI_Recv_init(buf, 4, MPI_INTEGER, 2, 14, MPI_COMM_WORLD, reqs(1))
        end if
        call MPI_Start(reqs(1))
        call MPI_Wait(reqs(1), sts(1))
        call MPI_Startall(1, reqs)
        flag = .false.
        do while (.not. flag)
            call MPI_Testall(1, reqs, flag, sts)
        end do
        call MPI_Start(reqs(1))
        flag = .false.
        do while (.not. flag)
            call MPI_Testany(1, reqs, idx, flag, sts(1))
        end do
        call MPI_Start(reqs(1))
        outcount = 0
        do while (outcount == 0)
            call MPI_Testsome(1, reqs, outcount, indices, sts)
        end do
        call check(buf(4) == 4, 'persistent')
        call MPI_Request_free(reqs(1))
    end subroutine persistent

    ! A dynamic window, a shared one, and an allocated one (with an MPI_Aint displacement
    ! unit: the large-count form, where the MPI has it: MPI-4; an MPI-3 library, Open MPI
    ! 4.1, has only the INTEGER one) under post/start/complete/wait and Win_test, and under
    ! lock, flush and sync.
    subroutine windows()
        use, intrinsic :: iso_c_binding, only: c_ptr
        integer, parameter :: unit_kind = merge(MPI_ADDRESS_KIND, kind(0), MPI_VERSION >= 4)
        integer :: value, right, seen
        integer(kind=MPI_ADDRESS_KIND) :: size
        integer(kind=unit_kind) :: unit
        integer(kind=MPI_ADDRESS_KIND), parameter :: disp0 = 0
        logical :: flag
        type(c_ptr) :: base
        type(MPI_Win) :: win
        type(MPI_Comm) :: node
        type(MPI_Group) :: world_group, peer
        right = mod(rank + 1, 4)
        value = rank
        seen = -1
        call MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win)
        call MPI_Win_free(win)
        call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node)
        size = 4
        call MPI_Win_allocate_shared(size, 4, MPI_INFO_NULL, node, base, win)
        call MPI_Win_free(win)
        call MPI_Comm_free(node)

        unit = 4
        size = 16
        call MPI_Win_allocate(size, unit, MPI_INFO_NULL, MPI_COMM_WORLD, base, win)
        call MPI_Comm_group(MPI_COMM_WORLD, world_group)
        if (mod(rank, 2) == 0) then
            call MPI_Group_incl(world_group, 1, [rank + 1], peer)
            call MPI_Win_start(peer, 0, win)
            call MPI_Put(value, 1, MPI_INTEGER, rank + 1, disp0, 1, MPI_INTEGER, win)
            call MPI_Win_complete(win)
        else
            call MPI_Group_incl(world_group, 1, [rank - 1], peer)
            call MPI_Win_post(peer, 0, win)
            if (rank == 1) then
                call MPI_Win_wait(win)
            else
                flag = .false.
                do while (.not. flag)
                    call MPI_Win_test(win, flag)
                end do
            end if
        end if
        call MPI_Group_free(peer)
        call MPI_Group_free(world_group)
        call MPI_Barrier(MPI_COMM_WORLD)

        call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win)
        call MPI_Put(value, 1, MPI_INTEGER, right, disp0, 1, MPI_INTEGER, win)
        call MPI_Win_flush(right, win)
        call MPI_Win_flush_local(right, win)
        call MPI_Win_unlock(right, win)
        call MPI_Barrier(MPI_COMM_WORLD)
        call MPI_Win_lock_all(0, win)
        call MPI_Get(seen, 1, MPI_INTEGER, right, disp0, 1, MPI_INTEGER, win)
        call MPI_Win_flush_all(win)
        call MPI_Win_flush_local_all(win)
        call MPI_Win_sync(win)
        call MPI_Win_unlock_all(win)
        call check(seen == rank, 'lock, put and get')
        call MPI_Win_free(win)
    end subroutine windows

    ! Every constructor, each new communicator shown by a barrier on it, then freed.
    subroutine communicators()
        integer :: sub_rank
        integer :: nodes(4), edges(8), sources(1), destinations(1), degrees(1), weights(1)
        logical :: periods(2), remain(2)
        type(MPI_Comm) :: dup, dupi, idup, half, cre, grp, inter, merged, cart, sub, graph
        type(MPI_Comm) :: dist, adj
        type(MPI_Group) :: world_group, evens
        type(MPI_Request) :: req
        call MPI_Comm_dup(MPI_COMM_WORLD, dup)
        call MPI_Barrier(dup)
        call MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, dupi)
        call MPI_Barrier(dupi)
        call MPI_Comm_idup(MPI_COMM_WORLD, idup, req)
        call MPI_Wait(req, MPI_STATUS_IGNORE)
        call MPI_Barrier(idup)
        call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
        call MPI_Comm_group(MPI_COMM_WORLD, world_group)
        call MPI_Group_incl(world_group, 2, [0, 2], evens)
        call MPI_Comm_create(MPI_COMM_WORLD, evens, cre)
        if (mod(rank, 2) == 0) then
            call MPI_Barrier(cre)
            call MPI_Comm_create_group(MPI_COMM_WORLD, evens, 21, grp)
            call MPI_Barrier(grp)
            call MPI_Comm_free(grp)
            call MPI_Comm_free(cre)
        end if
        call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - mod(rank, 2), 22, inter)
        call MPI_Barrier(inter)
        call MPI_Intercomm_merge(inter, mod(rank, 2) == 1, merged)
        call MPI_Comm_rank(merged, sub_rank)
        call check(sub_rank == rank / 2 + 2 * mod(rank, 2), 'merge')
        call MPI_Barrier(merged)
        periods = .true.
        call MPI_Cart_create(MPI_COMM_WORLD, 2, [2, 2], periods, .false., cart)
        call MPI_Barrier(cart)
        remain = [.true., .false.]
        call MPI_Cart_sub(cart, remain, sub)
        call MPI_Barrier(sub)
        nodes = [2, 4, 6, 8]
        edges = [1, 3, 0, 2, 1, 3, 2, 0]
        call MPI_Graph_create(MPI_COMM_WORLD, 4, nodes, edges, .false., graph)
        call MPI_Barrier(graph)
        sources = rank
        degrees = 1
        destinations = mod(rank + 1, 4)
        call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, sources, degrees, destinations, &
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, .false., dist)
        call MPI_Barrier(dist)
        sources = mod(rank + 3, 4)
        weights = 1
        call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, weights, 1, &
                                            destinations, weights, MPI_INFO_NULL, .false., adj)
        call MPI_Barrier(adj)
        call MPI_Comm_free(adj)
        call MPI_Comm_free(dist)
        call MPI_Comm_free(graph)
        call MPI_Comm_free(sub)
        call MPI_Comm_free(cart)
        call MPI_Comm_free(merged)
        call MPI_Comm_free(inter)
        call MPI_Group_free(evens)
        call MPI_Group_free(world_group)
        call MPI_Comm_free(half)
        call MPI_Comm_free(idup)
        call MPI_Comm_free(dupi)
        call MPI_Comm_free(dup)
    end subroutine communicators
end program fort2_f08
