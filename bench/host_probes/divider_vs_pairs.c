// Build and run: gcc -O2 -march=native -pthread bench/host_probes/divider_vs_pairs.c -o /tmp/dvp -lm && /tmp/dvp
// (issue 5, stop 19: mean stretch divider 1.05-1.06, nbody pairs 1.06-1.14, ports 1.32-1.43, several runs)
// Calibrate's divider quantum (a[i] = b[i] / sqrt(a[i] + c[i]), vectorised) and an nbody pair
// loop (scalar sqrt and divide among 17 other flops, three add chains), in turns on both cores:
// mean stretch over each one's fastest, per core.
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define M 200000
#define K 3
typedef struct{int cpu;double*t[K];int n;} arg_t;
static void* run(void*p){arg_t*a=p;cpu_set_t cs;CPU_ZERO(&cs);CPU_SET(a->cpu,&cs);pthread_setaffinity_np(pthread_self(),sizeof cs,&cs);
 double A[512],B[512],C[512];for(int i=0;i<512;i++){A[i]=1.0/(i+1);B[i]=.5;C[i]=1e-3;}
 double*x=malloc(3*256*8),*m=malloc(256*8);for(int i=0;i<768;i++)x[i]=sin(i);for(int i=0;i<256;i++)m[i]=1+i%3;
 double acc=0,end=now()+6;a->n=0;
 while(a->n<M&&now()<end){
  double t0=now();
  for(int p=0;p<60;p++){for(int i=0;i<512;i++)A[i]=B[i]/sqrt(A[i]+C[i]);__asm__ volatile(""::"r"(A):"memory");}
  double t1=now();
  for(int i=0;i<12;i++){double xi=x[3*i],yi=x[3*i+1],zi=x[3*i+2],ax=0,ay=0,az=0;
   for(int j=0;j<256;j++){double dx=x[3*j]-xi,dy=x[3*j+1]-yi,dz=x[3*j+2]-zi;double r2=dx*dx+dy*dy+dz*dz+1e-3;
    double inv=1.0/sqrt(r2);double s=m[j]*inv*inv*inv;ax+=s*dx;ay+=s*dy;az+=s*dz;}acc+=ax+ay+az;}
  double t2=now();
  for(int p=0;p<400;p++){for(int i=0;i<512;i++)A[i]=B[i]+C[i]*A[i];__asm__ volatile(""::"r"(A):"memory");}
  double t3=now();
  a->t[0][a->n]=t1-t0;a->t[1][a->n]=t2-t1;a->t[2][a->n]=t3-t2;a->n++;}
 if(acc==-1)printf("x");return 0;}
int cmp(const void*x,const void*y){double a=*(double*)x,b=*(double*)y;return a<b?-1:a>b;}
int main(){const char*nm[K]={"divider (calibrate's)","nbody pairs","ports (calibrate's)"};arg_t a[2];pthread_t t[2];
 for(int i=0;i<2;i++){a[i].cpu=i;for(int k=0;k<K;k++)a[i].t[k]=malloc(8*M);pthread_create(&t[i],0,run,&a[i]);}
 for(int i=0;i<2;i++)pthread_join(t[i],0);
 for(int k=0;k<K;k++){printf("%-22s",nm[k]);for(int i=0;i<2;i++){int n=a[i].n;double*v=a[i].t[k];qsort(v,n,8,cmp);double f=v[0],s=0;for(int j=0;j<n;j++)s+=v[j]/f;
  printf(" | core %d: fastest %5.1f us, mean %.3f, median %.3f, p90 %.3f",i,f*1e6,s/n,v[n/2]/f,v[9*n/10]/f);}printf("\n");}}
