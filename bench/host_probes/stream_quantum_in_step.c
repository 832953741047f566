// Build and run: gcc -O2 -pthread bench/host_probes/stream_quantum_in_step.c -o /tmp/sq && /tmp/sq 0 && /tmp/sq 1
// (0: free turns, 1: turns in step; issue 5, stop 18)
// Noise quanta in synchronized turns on 2 cores: ports (L1 FMA) then stream (DRAM sum),
// a spin barrier before each quantum so both cores always run the same kind at once.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define N 512
#define FAR (8u<<20)
static atomic_int arrived; static atomic_int gen;
static void barrier(void){int g=atomic_load(&gen);if(atomic_fetch_add(&arrived,1)==1){atomic_store(&arrived,0);atomic_fetch_add(&gen,1);}else while(atomic_load(&gen)==g);}
typedef struct{int cpu;double *tp,*ts;int n;int sync;} arg_t;
static void* run(void*p){arg_t*a=p;cpu_set_t s;CPU_ZERO(&s);CPU_SET(a->cpu,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);
 double A[N],B[N],C[N];for(int i=0;i<N;i++){A[i]=1.0/(i+1);B[i]=0.5;C[i]=1e-3;}
 double*far=malloc(FAR*8);for(size_t i=0;i<FAR;i++)far[i]=1e-3;size_t at=0;double acc=0;
 int pp=400, sp=12; // ~50 us each on this host (ports ~ 512 fma/pass; stream 32 KiB/pass)
 double end=now()+4; a->n=0;
 while(a->n<200000){ if(a->sync)barrier(); double t0=now();
  for(int p=0;p<pp;p++){for(int i=0;i<N;i++)A[i]=B[i]+C[i]*A[i];__asm__ volatile(""::"r"(A):"memory");}
  double t1=now(); if(a->sync)barrier(); double t2=now();
  for(int p=0;p<sp;p++){double s0=0,s1=0,s2=0,s3=0;if(at+4096>FAR)at=0;const double*x=far+at;for(int i=0;i<4096;i+=4){s0+=x[i];s1+=x[i+1];s2+=x[i+2];s3+=x[i+3];}at+=4096;acc+=s0+s1+s2+s3;}
  double t3=now(); a->tp[a->n]=t1-t0; a->ts[a->n]=t3-t2; a->n++; if(t3>end)break;}
 if(acc==-1)printf("x");
 // all threads must stop together when synced: crude, the partner may wait at the barrier forever
 return 0;}
int cmp(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
void report(const char*k,double*v,int n){qsort(v,n,8,cmp);double f=v[0],m=0;int slow=0;for(int i=0;i<n;i++){m+=v[i]/f;slow+=v[i]>1.25*f;}
 printf("  %s: fastest %.1f us, median %.1f us, mean stretch %.3f, %.0f%% above 1.25x, p10 %.2f p90 %.2f\n",k,f*1e6,v[n/2]*1e6,m/n,100.0*slow/n,v[n/10]/f,v[9*n/10]/f);}
int main(int argc,char**argv){int sync=atoi(argv[1]);arg_t a[2];pthread_t t[2];
 for(int i=0;i<2;i++){a[i].cpu=i;a[i].sync=sync;a[i].tp=malloc(8*200000);a[i].ts=malloc(8*200000);pthread_create(&t[i],0,run,&a[i]);}
 if(sync){ // stop: detach after 4.5 s
  struct timespec d={4,600000000};nanosleep(&d,0);
  for(int i=0;i<2;i++){printf("core %d (sync):\n",i);int n=a[i].n-2;report("ports ",a[i].tp,n);report("stream",a[i].ts,n);} fflush(stdout); _exit(0);}
 for(int i=0;i<2;i++){pthread_join(t[i],0);printf("core %d (free):\n",i);report("ports ",a[i].tp,a[i].n);report("stream",a[i].ts,a[i].n);}}
