/* A tool built beside the application, with a main of its own. */
#include <stdio.h>

int main(void) {
  puts("checker");
  return 0;
}
