// An application's own time of the region it times, read from what a run
// printed or wrote.
//
// Most benchmarks time their own main loop and report it in their own format:
// CloverLeaf's "Wall clock", PENNANT's "hydro cycle run time", SNAP's timing
// summary in its output file, HPCG's "Benchmark Time Summary" in its YAML report.
// That time excludes MPI start-up and usually the set-up, so it is the fairer
// figure to compare a model of the compute and messages with. A pattern names
// the number: its first capture group, at its last match in the text, in seconds.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace perfcast::measure {

class AppTimePattern {
 public:
  // `regex` (ECMAScript) must have at least one capture group: the time in
  // seconds. Throws UserError naming --time-pattern when it does not compile or
  // captures nothing.
  explicit AppTimePattern(std::string regex);
  ~AppTimePattern();
  AppTimePattern(AppTimePattern&&) noexcept;
  AppTimePattern& operator=(AppTimePattern&&) noexcept;

  const std::string& regex() const { return text_; }

  // The first group of the pattern's last match in `text`, as seconds. nullopt
  // when it matches nowhere. Throws UserError, naming `where` (e.g. "stdout of
  // run 3"), when the group holds no finite number >= 0.
  std::optional<double> find_seconds(const std::string& text, const std::string& where) const;

 private:
  struct Compiled;
  std::string text_;
  std::unique_ptr<Compiled> compiled_;
};

// The newest regular file matching the shell glob `pattern` (relative to the
// current directory) last modified at or after `since`; nullopt when the run
// wrote none. Used for apps that report their times to a file (SNAP's output,
// HPCG's time-stamped report).
std::optional<std::filesystem::path> newest_file_written_since(const std::string& pattern,
                                                               std::filesystem::file_time_type since);

// The whole text of `path`. Throws UserError naming it when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace perfcast::measure
