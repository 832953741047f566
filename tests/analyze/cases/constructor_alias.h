// A grid whose constructor is defined in another unit
// (constructor_alias_grid.cpp): clang emits its complete-object constructor
// and destructor (C1, D1) there as aliases of the base-object ones (C2, D2),
// so the calling unit (constructor_alias.cpp) calls an alias.
#pragma once

struct Grid {
  explicit Grid(long n);
  ~Grid();
  double *x;
  long n;
  double total = 0;
};
