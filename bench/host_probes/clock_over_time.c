// Build and run: gcc -O2 bench/host_probes/clock_over_time.c -o /tmp/cot && /tmp/cot 60
// (issue 5, stop 19: per-second max 3.22-3.24 GHz for a minute; 2 ms pieces p10 3.01, median 3.14 GHz)
// The core clock over a minute: a chain of dependent adds (a co-tenant on the sibling thread
// does not slow it; a lower clock does), timed in 2 ms pieces; per 1 s window the fastest
// piece's GHz, then the spread of those window maxima and of all pieces.
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static uint64_t chain(uint64_t rounds){uint64_t x=0;for(uint64_t i=0;i<rounds;i++){
 __asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"
 "add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0":"+r"(x));}return x;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){int secs=argc>1?atoi(argv[1]):60;cpu_set_t s;CPU_ZERO(&s);CPU_SET(0,&s);sched_setaffinity(0,sizeof s,&s);
 const uint64_t R=400000; /* ~2 ms at 3.2 GHz */
 double*win=malloc(sizeof(double)*secs),*all=malloc(sizeof(double)*secs*1000);int na=0;
 for(int w=0;w<secs;w++){double end=now()+1,best=0;while(now()<end){double t0=now();volatile uint64_t x=chain(R);double g=R*16/(now()-t0)/1e9;all[na++]=g;if(g>best)best=g;}win[w]=best;}
 qsort(win,secs,8,cmp);qsort(all,na,8,cmp);
 printf("per-second max GHz: min %.3f p10 %.3f median %.3f max %.3f\n",win[0],win[secs/10],win[secs/2],win[secs-1]);
 printf("all 2 ms pieces:    p10 %.3f median %.3f p90 %.3f max %.3f (n=%d)\n",all[na/10],all[na/2],all[9*na/10],all[na-1],na);}
