// A flag a loop sets on some pass, tested after it (a sort that says
// whether it changed anything, inlined into a caller that renumbers only
// then). After the loop the flag is its last pass's value: the model must not
// name the loop's index outside the loop.
#include <stdio.h>
#include <stdlib.h>
typedef long long Int;
Int index_of_minimum(Int *data, Int n);
void swap_int(Int *data, Int a, Int b);
Int ssort(Int *data, Int n)
{
  Int i,si;
  Int change = 0;
  if(n > 0)
    for(i = n-1; i > 0; i--){
      si = index_of_minimum(data,i+1);
      if(i != si)
      {
        swap_int(data, i, si);
        change = 1;
      }
    }
  return change;
}
Int index_of_minimum(Int *data, Int n)
{
  Int answer;
  Int i;
  answer = 0;
  for(i = 1; i < n; i++)
    if(data[answer] < data[i])
      answer = i;
  return answer;
}
void swap_int(Int *data, Int a, Int b)
{
  Int temp;
  temp = data[a];
  data[a] = data[b];
  data[b] = temp;
}
__attribute__((noinline)) void renumber(Int *col_map, Int *marker, Int *offd_j, Int ncols, Int nrows)
{
  Int i, j;
  for(i = 0; i < ncols; i++)
    marker[i] = col_map[i];
  if(ssort(col_map,ncols))
  {
    for(i = 0; i < nrows; i++)
      for(j = 0; j < ncols; j++)
        if(marker[offd_j[i]] == col_map[j])
        {
          offd_j[i] = j;
          j = ncols;
        }
  }
}
int main(int argc, char** argv) {
  Int n = argc > 1 ? atoll(argv[1]) : 100;
  Int* map = malloc(sizeof(Int) * (size_t)n);
  Int* marker = malloc(sizeof(Int) * (size_t)n);
  Int* offd = malloc(sizeof(Int) * (size_t)n);
  for (Int i = 0; i < n; i++) { map[i] = (i * 7919) % n; offd[i] = i; }
  renumber(map, marker, offd, n, n);
  printf("%lld\n", offd[n / 2]);
  return 0;
}
