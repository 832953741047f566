// Build and run: cc -O2 bench/host_probes/clock_after_work.c -o /tmp/caw && taskset -c 2 /tmp/caw 40
// (bench/results/2026-11-27-xeon16-quiet-node/stencil_bandwidth.md: on a lent 16-core Xeon the
// clock sat at 1.4 GHz for 2.3 s, then at 2.6 GHz, and came and went after streaming and after
// sleeping alike, while the stream's own bandwidth stayed at 19-24 GB/s)
// Does the core's slow state follow what the core did? A chain of dependent adds (one a cycle:
// ns per add is ns per cycle, 100 ms a sample at 2.5 GHz), S samples back to back, then S
// samples each after 0.1 s of streaming 24 MiB (a = b + c; its GB/s printed beside), then S
// each after 0.1 s asleep. Times are the thread's CPU time.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double cpu_s(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static double wall_s(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static double ns_per_add(long n){long x=n;double t0=cpu_s();for(long q=0;q<n;q++)__asm__ volatile("add $1,%0":"+r"(x));return 1e9*(cpu_s()-t0)/n+0*x;}
__attribute__((noinline)) static void add3(double*restrict a,const double*restrict b,const double*restrict c,size_t n){for(size_t i=0;i<n;i++)a[i]=b[i]+c[i];}
int main(int argc,char**argv){
  int S=argc>1?atoi(argv[1]):40; const long adds=250000000; size_t n=1<<20;
  double*a=malloc(n*8+64),*b=malloc(n*8+128),*d=malloc(n*8+192);
  for(size_t i=0;i<n;i++)a[i]=b[i]=d[i]=1;
  double t00=wall_s();
  printf("chain back to back, ns/add @ wall s:\n");
  for(int s=0;s<S;s++){double x=ns_per_add(adds);printf("%.2f@%.1f ",x,wall_s()-t00);}
  printf("\nchain after 0.1 s of streaming, ns/add / GB/s of the stream:\n");
  for(int s=0;s<S;s++){double t0=cpu_s();int k=0;while(cpu_s()-t0<0.1){add3(a,b,d,n);k++;}
    double g=24.0*n*k/(cpu_s()-t0)/1e9;printf("%.2f/%.0f ",ns_per_add(adds),g);}
  printf("\nchain after 0.1 s asleep, ns/add:\n");
  for(int s=0;s<S;s++){struct timespec z={0,100000000};nanosleep(&z,0);printf("%.2f ",ns_per_add(adds));}
  printf("\n");
  return 0;
}
