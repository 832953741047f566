// Set-up through C and C++ library code that does no floating-point work: the
// nodes of a std::map, a std::unordered_map and a std::list (found, linked,
// rehashed, freed), a parser reading characters and a number, an integer
// division, the date, a report through a program's own printf-like wrappers
// (vfprintf, vsnprintf, vsscanf). None is a lib_*_flops parameter, and the containers'
// own loops and recursions are no parameters either.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <list>
#include <map>
#include <unordered_map>

__attribute__((noinline)) int setup(FILE *in, std::map<int, int> &ids, std::unordered_map<long long, int> &index,
                                    std::list<int> &order) {
  int c = 0, n = 0;
  while ((c = std::fgetc(in)) != EOF && c != '\n') {
    ids[c] = n;
    index[static_cast<long long>(c) << 20] = n++;
    order.push_back(c);
  }
  if (c != EOF) std::ungetc(c, in);
  int extra = 0;
  if (std::fscanf(in, "%d", &extra) == 1) n += extra;
  for (auto it = ids.begin(); it != ids.end(); ++it) n += it->second;
  std::time_t now = std::time(nullptr);
  n += std::localtime(&now)->tm_year;
  return std::div(n, 7).quot;
}

__attribute__((noinline)) int report(const char *format, ...) {
  char line[256];
  std::va_list args, copy;
  va_start(args, format);
  va_copy(copy, args);
  int written = std::vsnprintf(line, sizeof line, format, copy);
  std::vfprintf(stderr, format, args);
  va_end(copy);
  va_end(args);
  int back = 0;
  return written + std::sscanf(line, "%d", &back) + back;
}

__attribute__((noinline)) int parse(const char *text, const char *format, ...) {
  std::va_list args;
  va_start(args, format);
  int read = std::vsscanf(text, format, args);
  va_end(args);
  return read;
}

int main() {
  std::map<int, int> ids;
  std::unordered_map<long long, int> index;
  std::list<int> order;
  int n = 0;
  parse("12", "%d", &n);
  return setup(stdin, ids, index, order) + report("%d %f\n", n, 0.5) > 0;
}
