// A loop over a range read from memory (a mesh's chunk tables), split by the
// vectoriser into a vector body and a scalar loop, which the unroller then
// unrolls by 2 at run time with its odd iteration peeled before the pairs
// (the index starts at a value read from memory): 4 flops an element
// (a subtract, a multiply-add, a divide).
void work_rate(const int* first, const int* last, int chunks, const double* vol0, const double* vol,
               const double* work, const double* pressure, double dt, double* rate) {
  for (int c = 0; c < chunks; ++c) {
    int lo = first[c], hi = last[c];
    for (int z = lo; z < hi; ++z) {
      double dvol = vol[z] - vol0[z];
      rate[z] = (work[z] + pressure[z] * dvol) / dt;
    }
  }
}
