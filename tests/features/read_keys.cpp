// An input file read as a mesh code reads its own (PENNANT's InputFile):
// lines until the end of the file, comments and blank lines skipped by
// `continue`, each `key value` kept in a map, a duplicate key an error. The
// optimiser sends the `continue` through the line's destructor, shared with
// the body's end, to a latch without the loop's metadata, and the loop's
// first code is getline's, inlined from the library's headers. Then N steps
// (2 flops each).
// `read_keys FILE N`: FILE's keys, then N steps.
#include <mpi.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

class Keys {
 public:
  explicit Keys(const char* file);

 private:
  std::map<std::string, std::string> pairs_;
};

Keys::Keys(const char* file) {
  std::ifstream in(file);
  while (true) {  // marker: lines
    std::string line;
    std::getline(in, line);
    if (in.eof()) break;
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key.empty() || key[0] == '#') continue;
    if (pairs_.find(key) != pairs_.end()) {
      std::cerr << "duplicate key " << key << std::endl;
      std::exit(1);
    }
    std::string value;
    std::getline(words, value);
    pairs_[key] = value;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Keys keys(argc > 1 ? argv[1] : "keys.txt");
  const int n = argc > 2 ? std::atoi(argv[2]) : 5000;
  double weighed = 0;
  for (int i = 0; i < n; ++i) weighed = weighed * 0.75 + 1.0;
  double total = 0;
  MPI_Reduce(&weighed, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
