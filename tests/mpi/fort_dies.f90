! fort_dies: two runs that do not finish, through `use mpi_f08`, as their C programs make
! them, with the same output and the same trace (the f08 wrappers publish their pending call
! and MPI_Abort's as the C wrappers do):
!   wait_irecv  hang.c's mode wait_irecv on 2 ranks: rank 0 waits (MPI_Wait) for an Irecv of
!               tag 9 from any source that nobody sends; rank 1 waits in MPI_Recv for tag 8
!   abort       abort.c on 4 ranks: rank 0 calls MPI_Abort(3) while the others wait in
!               MPI_Recv for a message never sent
program fort_dies
    use mpi_f08
    use, intrinsic :: iso_c_binding, only: c_int
    implicit none
    interface
        integer(c_int) function usleep(us) bind(C, name='usleep')
            import :: c_int
            integer(c_int), value :: us
        end function usleep
    end interface
    character(len=16) :: mode
    integer :: rank, nranks, v, none, i
    type(MPI_Request) :: req

    call get_command_argument(1, mode)
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    v = 0
    none = 0
    if (mode == 'wait_irecv') then
        if (rank == 0) then
            write (*, '(a,i0,a)') 'hang: ', nranks, ' ranks started'
            flush (6)
        end if
        call MPI_Barrier(MPI_COMM_WORLD)
        if (rank == 0) then
            call MPI_Irecv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, req)
            call MPI_Wait(req, MPI_STATUS_IGNORE)
        else
            call MPI_Recv(v, 1, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        end if
    else if (mode == 'abort') then
        v = 42
        if (rank == 0) then
            call MPI_Send(v, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD)
        else if (rank == 1) then
            call MPI_Recv(v, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        end if
        call MPI_Barrier(MPI_COMM_WORLD)
        if (rank == 0) then
            do i = 1, 3
                call MPI_Recv(none, 0, MPI_INTEGER, i, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
            end do
            write (*, '(a,i0)') 'abort: 4 ranks ready, value ', v
            flush (6)
            i = usleep(600000_c_int)
            call MPI_Abort(MPI_COMM_WORLD, 3)
        else
            call MPI_Send(none, 0, MPI_INTEGER, 0, 2, MPI_COMM_WORLD)
            i = usleep(200000_c_int)
            call MPI_Recv(none, 0, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        end if
    else
        if (rank == 0) write (0, '(a)') 'fort_dies: mode wait_irecv or abort'
        call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
    call MPI_Finalize()
end program fort_dies
