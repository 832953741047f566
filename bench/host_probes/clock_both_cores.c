// Build and run: gcc -O2 -pthread bench/host_probes/clock_both_cores.c -o /tmp/clock_both_cores && /tmp/clock_both_cores
// (issue 5, stop 18: 3.24 GHz max both ways, medians within 1-2 % on the Zen 3 VM)
// Clock by dependent add chain: one core alone vs both cores at once, interleaved.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static uint64_t chain(uint64_t rounds){uint64_t x=0;for(uint64_t i=0;i<rounds;i++){
 __asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"
 "add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0":"+r"(x));}return x;}
#define R 200000
typedef struct{int cpu;double ghz[64];int n;} arg_t;
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static void* run(void*p){arg_t*a=p;pin(a->cpu);a->n=0;for(int k=0;k<40;k++){double t0=now();volatile uint64_t x=chain(R);double t=now()-t0;a->ghz[a->n++]=R*16/t/1e9;}return 0;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(){for(int it=0;it<6;it++){arg_t a={0},b={1};pthread_t t1,t2;
 pthread_create(&t1,0,run,&a);pthread_join(t1,0);qsort(a.ghz,a.n,8,cmp);
 printf("alone   max %.3f median %.3f\n",a.ghz[a.n-1],a.ghz[a.n/2]);
 pthread_create(&t1,0,run,&a);pthread_create(&t2,0,run,&b);pthread_join(t1,0);pthread_join(t2,0);
 qsort(a.ghz,a.n,8,cmp);qsort(b.ghz,b.n,8,cmp);
 printf("both    max %.3f/%.3f median %.3f/%.3f\n",a.ghz[a.n-1],b.ghz[b.n-1],a.ghz[a.n/2],b.ghz[b.n/2]);}}
