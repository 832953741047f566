// While a live skeleton runs, what it prints goes to stderr: its ranks are
// fibers of this process and share its stdout, which belongs to the command's
// own output (`--json` must stay one JSON document).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace perfcast::cli {

class StdoutAside {
 public:
  StdoutAside() {
    std::cout.flush();
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    if (saved_ >= 0) dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~StdoutAside() {
    std::cout.flush();
    std::fflush(stdout);  // the skeleton's buffered lines still belong to stderr
    if (saved_ >= 0) {
      dup2(saved_, STDOUT_FILENO);
      close(saved_);
    }
  }
  StdoutAside(const StdoutAside&) = delete;
  StdoutAside& operator=(const StdoutAside&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace perfcast::cli
