// A progress line on stderr for long work: on a terminal one line rewritten in
// place and ended when the work ends (or fails); elsewhere (a log, a pipe)
// nothing, so a script's stderr holds only warnings and errors.
#pragma once

#include <unistd.h>

#include <iostream>
#include <string>

namespace perfcast::cli {

class ProgressLine {
 public:
  // `wanted`: false for output meant for programs (--json), which shows none.
  explicit ProgressLine(bool wanted = true) : shown_(wanted && ::isatty(STDERR_FILENO) != 0) {}
  ~ProgressLine() { end(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void show(const std::string& text) {
    if (!shown_) return;
    std::cerr << "\r\033[K" << text << std::flush;
    open_ = true;
  }

  // Clears the line, so what is printed next starts on a clean one.
  void end() {
    if (open_) std::cerr << "\r\033[K" << std::flush;
    open_ = false;
  }

 private:
  bool shown_;
  bool open_ = false;
};

}  // namespace perfcast::cli
