/* Option parsing with libc's string routines, as the apps' parsers do:
 * clang turns a memcmp or strncmp of a constant into bcmp, strtol reads errno
 * through __errno_location, a list is split with strcspn. None of it is
 * floating-point work, so none of it may leave a parameter to bind. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

long parse(const char *s) {
  char item[32];
  size_t len = strcspn(s, ",");
  if (len >= sizeof item) return -1;
  memcpy(item, s, len);
  item[len] = '\0';
  if (memcmp(item, "--n", 3) == 0) return 0;
  errno = 0;
  long v = strtol(item, NULL, 10);
  return errno ? -1 : v;
}

int main(int argc, char **argv) { return argc > 1 ? (int)parse(argv[1]) : 0; }
