// A two-component vector whose assignment is written out (PENNANT's Vec2.hh):
// `std::fill` of it calls this operator= until the optimiser inlines it.
#pragma once

struct double2 {
  double x, y;
  inline double2() : x(0.), y(0.) {}
  inline double2(const double& x_, const double& y_) : x(x_), y(y_) {}
  inline double2& operator=(const double2& v2) {
    x = v2.x;  // marker: assign
    y = v2.y;
    return *this;
  }
};
