!mod$ v1 sum:4e1f92c881c71947
module same_line_kernels
contains
subroutine update(a,b,c)
real(8),intent(out)::a(:,:,:)
real(8),intent(in)::b(:,:,:)
real(8),intent(in)::c(:,:,:)
end
function either(x,y,n)
integer(4),intent(in)::n
real(8),intent(in)::x(1_8:int(n,kind=8))
real(8),intent(in)::y(1_8:int(n,kind=8))
real(8)::either
end
end
