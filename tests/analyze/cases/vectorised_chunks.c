// A loop over a range read from memory (each chunk's first and last element,
// as a mesh's chunk tables give them), which the vectoriser splits into a
// vector body and a scalar loop for the iterations that fill no vector: 2
// flops an element.
void axpy_chunks(const int* first, const int* last, int chunks, double a, const double* restrict x,
                 double* restrict y) {
  for (int c = 0; c < chunks; ++c) {
    int lo = first[c], hi = last[c];
    for (int i = lo; i < hi; ++i) y[i] += a * x[i];
  }
}
