#pragma once
#define NOINLINE __attribute__((noinline))
void daxpy(int n, double a, const double *restrict x, double *restrict y);
void saxpy(int n, float a, const float *restrict x, float *restrict y);
double dot_fma(int n, const double *x, const double *y);
void triangle(int n, double s, const double *restrict x, double *restrict y);
void daxpy_scalar(int n, double a, const double *x, double *y);
void sines(int n, const double *x, double *y);
