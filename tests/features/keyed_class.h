// A class with a virtual method defined in keyed_class_atoms.cpp, its key
// function: clang describes the class in full only in that unit by default,
// elsewhere as a declaration without its fields (keyed_class_main.cpp).
#pragma once

class Atoms {
 public:
  int nlocal = 0;
  double *x = nullptr, *v = nullptr;
  virtual ~Atoms();
  virtual double mass() const;
};
