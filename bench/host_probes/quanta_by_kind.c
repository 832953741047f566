// Build and run: gcc -O2 -march=native -pthread bench/host_probes/quanta_by_kind.c -o /tmp/qk -lm && /tmp/qk
// (issue 5, stop 18: ports 1.41-1.58, stencil 1.58-1.87, pairs 1.09-1.15, stream 1.43-1.70 mean stretch)
// Quanta of four kinds in turns on both cores (free turns): ports (L1 FMA), a 7-point stencil
// sweep (L2-resident, 20^3), an nbody-like pair loop (sqrt, div, FMAs), and the DRAM stream.
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define K 4
#define M 200000
#define S 22
typedef struct{int cpu;double*t[K];int n;} arg_t;
static void* run(void*p){arg_t*a=p;cpu_set_t cs;CPU_ZERO(&cs);CPU_SET(a->cpu,&cs);pthread_setaffinity_np(pthread_self(),sizeof cs,&cs);
 static __thread double A[512],B[512],C[512];for(int i=0;i<512;i++){A[i]=1.0/(i+1);B[i]=.5;C[i]=1e-3;}
 double*u=malloc(S*S*S*8),*v=malloc(S*S*S*8);for(int i=0;i<S*S*S;i++){u[i]=i%7;v[i]=0;}
 double*x=malloc(3*256*8);for(int i=0;i<768;i++)x[i]=sin(i);
 size_t FAR=8u<<20;double*far=malloc(FAR*8);for(size_t i=0;i<FAR;i++)far[i]=1e-3;size_t at=0;double acc=0;
 double end=now()+5;a->n=0;
 while(a->n<M&&now()<end){
  double t0=now();
  for(int p=0;p<400;p++){for(int i=0;i<512;i++)A[i]=B[i]+C[i]*A[i];__asm__ volatile(""::"r"(A):"memory");}
  double t1=now();
  for(int r=0;r<6;r++){for(int i=1;i<S-1;i++)for(int j=1;j<S-1;j++)for(int k=1;k<S-1;k++){int q=(i*S+j)*S+k;
    v[q]=2*u[q]-v[q]+0.1*(u[q-S*S]+u[q+S*S]+u[q-S]+u[q+S]+u[q-1]+u[q+1]-6*u[q]);}double*t=u;u=v;v=t;}
  double t2=now();
  for(int i=0;i<10;i++){double xi=x[3*i],yi=x[3*i+1],zi=x[3*i+2],ax=0;for(int j=0;j<256;j++){double dx=x[3*j]-xi,dy=x[3*j+1]-yi,dz=x[3*j+2]-zi;double r2=dx*dx+dy*dy+dz*dz+1e-3;ax+=dx/(r2*sqrt(r2));}acc+=ax;}
  double t3=now();
  for(int p=0;p<12;p++){double s0=0,s1=0;if(at+4096>FAR)at=0;const double*y=far+at;for(int i=0;i<4096;i+=2){s0+=y[i];s1+=y[i+1];}at+=4096;acc+=s0+s1;}
  double t4=now();
  a->t[0][a->n]=t1-t0;a->t[1][a->n]=t2-t1;a->t[2][a->n]=t3-t2;a->t[3][a->n]=t4-t3;a->n++;}
 if(acc==-1||u[5]==-1)printf("x");return 0;}
int cmp(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(){const char*nm[K]={"ports","stencil L2","nbody pairs","DRAM stream"};arg_t a[2];pthread_t t[2];
 for(int i=0;i<2;i++){a[i].cpu=i;for(int k=0;k<K;k++)a[i].t[k]=malloc(8*M);pthread_create(&t[i],0,run,&a[i]);}
 for(int i=0;i<2;i++)pthread_join(t[i],0);
 for(int k=0;k<K;k++){printf("%-12s",nm[k]);for(int i=0;i<2;i++){int n=a[i].n;double*v=a[i].t[k];qsort(v,n,8,cmp);double f=v[0],m=0;for(int j=0;j<n;j++)m+=v[j]/f;
  printf(" | core %d: fastest %6.1f us, mean stretch %.3f, median %.3f, p90 %.3f",i,f*1e6,m/n,v[n/2]/f,v[9*n/10]/f);}printf("\n");}}
