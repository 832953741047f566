/* Each side's corner mass over chunks of sides whose first and last are read
 * from memory (a mesh's chunk tables), the side's zone and next side gathered
 * through the mesh's maps. clang -O2 does not vectorise the gathers; it
 * unrolls the side loop by 2 at run time and, since the index starts at a
 * value read from memory rather than a constant, runs the odd side first
 * (a prologue behind a test of T's lowest bit), then T div 2 pairs.
 * Per side: 4 flops (3 multiplies, 1 add), 40 bytes loaded (two ints, four
 * doubles), 8 stored; per chunk, its first and last (8 bytes). */
#include <stdlib.h>

__attribute__((noinline)) void corner_mass(const int *first, const int *last, int chunks, const int *side_zone,
                                           const int *next_side, const double *zone_density,
                                           const double *zone_area, const double *side_fraction, double *corner) {
  for (int c = 0; c < chunks; ++c) {
    int lo = first[c], hi = last[c];
    for (int s = lo; s < hi; ++s) {
      int z = side_zone[s], s3 = next_side[s];
      corner[s] = zone_density[z] * zone_area[z] * 0.5 * (side_fraction[s] + side_fraction[s3]);
    }
  }
}

int main(int argc, char **argv) {
  int chunks = argc > 1 ? atoi(argv[1]) : 3, per_chunk = argc > 2 ? atoi(argv[2]) : 7;
  int sides = chunks * per_chunk;
  int *first = malloc(sizeof(int) * (size_t)chunks), *last = malloc(sizeof(int) * (size_t)chunks);
  int *side_zone = calloc((size_t)sides + 1, sizeof(int)), *next_side = calloc((size_t)sides + 1, sizeof(int));
  double *density = calloc((size_t)sides + 1, sizeof(double)), *area = calloc((size_t)sides + 1, sizeof(double));
  double *fraction = calloc((size_t)sides + 1, sizeof(double)), *corner = calloc((size_t)sides + 1, sizeof(double));
  for (int c = 0; c < chunks; ++c) first[c] = c * per_chunk, last[c] = (c + 1) * per_chunk;
  for (int s = 0; s < sides; ++s) side_zone[s] = s / 4, next_side[s] = (s + 1) % sides;
  corner_mass(first, last, chunks, side_zone, next_side, density, area, fraction, corner);
  return (int)corner[0];
}
