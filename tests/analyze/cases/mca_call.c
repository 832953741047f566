/* A loop whose only work is a call: the callee is priced where the call
 * composes (its own model), so the loop's cycles are its own instructions
 * (argument moves, the pushes of the stack-passed arguments, the counter).
 * Left to MCA, a call is an instruction of an assumed 100 cycles' latency
 * (LLVM warns that calls are not modelled): this loop took 6.2 cycles per
 * iteration instead of 3.3, the apps' loops around MPI calls two to three
 * times their own code's cycles. */
__attribute__((noinline)) double step(double s, long a, long b, long c, long d, long e, long f, long g, long h) {
  return 0.5 * s + (double)(a + b + c + d + e + f + g + h);
}

__attribute__((noinline)) double chain_through_call(int n, double s) {
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (int i = 0; i < n; i++) s = step(s, i, 1, 2, 3, 4, 5, 6, 7);
  return s;
}

int main(void) { return 0; }
