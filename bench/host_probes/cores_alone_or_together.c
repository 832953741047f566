// Build and run: gcc -O2 -march=native -pthread bench/host_probes/cores_alone_or_together.c -o /tmp/cat -lm && /tmp/cat
// (issue 5, stop 19: fastest both / fastest alone 1.02 ports, 1.02 L2 stencil, 1.01 nbody pairs, 1.07 DRAM
// stream on the Zen 3 VM: the two vCPUs do not share a physical core)
// Each kernel kind timed in blocks of ~20 ms: on core 0 alone, then on both cores at once
// (the same kernel on both), interleaved 12 times; per setting the median and fastest block.
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
#define S 22
typedef struct{int cpu,kind,blocks;double t[64];pthread_barrier_t*bar;} arg_t;
static double sink;
static double work(int kind,int reps,double*A,double*B,double*C,double*u,double*v,double*x,double*far,size_t FAR){
 double acc=0;
 for(int r=0;r<reps;r++){
  if(kind==0){for(int p=0;p<400;p++){for(int i=0;i<512;i++)A[i]=B[i]+C[i]*A[i];__asm__ volatile(""::"r"(A):"memory");}}
  else if(kind==1){for(int q6=0;q6<6;q6++){for(int i=1;i<S-1;i++)for(int j=1;j<S-1;j++)for(int k=1;k<S-1;k++){int q=(i*S+j)*S+k;
    v[q]=2*u[q]-v[q]+0.1*(u[q-S*S]+u[q+S*S]+u[q-S]+u[q+S]+u[q-1]+u[q+1]-6*u[q]);}double*t=u;u=v;v=t;}}
  else if(kind==2){for(int i=0;i<10;i++){double xi=x[3*i],yi=x[3*i+1],zi=x[3*i+2],ax=0;for(int j=0;j<256;j++){double dx=x[3*j]-xi,dy=x[3*j+1]-yi,dz=x[3*j+2]-zi;double r2=dx*dx+dy*dy+dz*dz+1e-3;ax+=dx/(r2*sqrt(r2));}acc+=ax;}}
  else {static __thread size_t at=0;for(int p=0;p<12;p++){double s0=0,s1=0;if(at+4096>FAR)at=0;const double*y=far+at;for(int i=0;i<4096;i+=2){s0+=y[i];s1+=y[i+1];}at+=4096;acc+=s0+s1;}}
 }
 return acc;}
static int reps_of[4]={400,400,1200,400};
static void* run(void*p){arg_t*a=p;pin(a->cpu);
 double*A=malloc(512*8),*B=malloc(512*8),*C=malloc(512*8);for(int i=0;i<512;i++){A[i]=1.0/(i+1);B[i]=.5;C[i]=1e-3;}
 double*u=malloc(S*S*S*8),*v=malloc(S*S*S*8);for(int i=0;i<S*S*S;i++){u[i]=i%7;v[i]=0;}
 double*x=malloc(3*256*8);for(int i=0;i<768;i++)x[i]=sin(i);
 size_t FAR=8u<<20;double*far=malloc(FAR*8);for(size_t i=0;i<FAR;i++)far[i]=1e-3;
 for(int b=0;b<a->blocks;b++){ if(a->bar)pthread_barrier_wait(a->bar);
  double t0=now();sink+=work(a->kind,reps_of[a->kind],A,B,C,u,v,x,far,FAR);a->t[b]=now()-t0;}
 free(A);free(B);free(C);free(u);free(v);free(x);free(far);return 0;}
int cmp(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(){const char*nm[4]={"ports","stencil L2","nbody pairs","DRAM stream"};
 double alone[4][12],both[4][12];
 for(int it=0;it<12;it++)for(int k=0;k<4;k++){
  arg_t a={.cpu=0,.kind=k,.blocks=5,.bar=0};pthread_t t1,t2;pthread_create(&t1,0,run,&a);pthread_join(t1,0);
  qsort(a.t,5,8,cmp);alone[k][it]=a.t[0];
  pthread_barrier_t bar;pthread_barrier_init(&bar,0,2);
  arg_t b0={.cpu=0,.kind=k,.blocks=5,.bar=&bar},b1={.cpu=1,.kind=k,.blocks=5,.bar=&bar};
  pthread_create(&t1,0,run,&b0);pthread_create(&t2,0,run,&b1);pthread_join(t1,0);pthread_join(t2,0);
  qsort(b0.t,5,8,cmp);qsort(b1.t,5,8,cmp);both[k][it]=(b0.t[0]>b1.t[0]?b0.t[0]:b1.t[0]);}
 for(int k=0;k<4;k++){qsort(alone[k],12,8,cmp);qsort(both[k],12,8,cmp);
  printf("%-12s alone: fastest %7.2f ms median %7.2f | both (slower core): fastest %7.2f median %7.2f | both/alone fastest %.3f median %.3f\n",
   nm[k],alone[k][0]*1e3,alone[k][6]*1e3,both[k][0]*1e3,both[k][6]*1e3,both[k][0]/alone[k][0],both[k][6]/alone[k][6]);}}
