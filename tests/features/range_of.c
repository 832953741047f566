// The range of rows a partition gives its rank (range_written.c's).
struct partition {
  const int* starts;
  int rank;
};

void range_of(const struct partition* p, int* first, int* last) {
  *first = p->starts[p->rank];
  *last = p->starts[p->rank + 1] - 1;
}
