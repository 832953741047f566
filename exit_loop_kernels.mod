!mod$ v1 sum:4a105ca715a5db15
module exit_loop_kernels
contains
subroutine cells(ncell,nang,start,w,e,pc,out)
integer(4),intent(in)::ncell
integer(4),intent(in)::nang
real(8),intent(in)::start(1_8:int(ncell,kind=8))
real(8),intent(in)::w
real(8),intent(in)::e(1_8:int(nang,kind=8))
real(8),intent(inout)::pc(1_8:int(nang,kind=8))
real(8),intent(inout)::out(1_8:int(nang,kind=8))
end
end
