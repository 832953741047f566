!mod$ v1 sum:dbfc8c51879a749c
module or_split_kernels
contains
subroutine kern(a,b,c,out,n)
integer(4),intent(in)::n
real(8),intent(in)::a(1_8:int(n,kind=8))
real(8),intent(in)::b(1_8:int(n,kind=8))
real(8),intent(in)::c(1_8:int(n,kind=8))
real(8),intent(out)::out(1_8:int(n,kind=8))
end
end
