// A directory of intermediate files that lives as long as its owner: created
// fresh under the system's temporary directory, removed with everything in it
// when the owner goes. Why: callgrind profiles (megabytes per rank) and IR
// files are only read back by the run that wrote them; left behind, a day of
// tests and validation runs fills /tmp with hundreds of them.
#pragma once

#include <filesystem>
#include <string>

namespace perfcast {

class ScratchDirectory {
 public:
  // `prefix` names the owner, e.g. "perfcast-counts"; a random suffix keeps
  // concurrent processes apart. Throws UserError when it cannot be created.
  explicit ScratchDirectory(const std::string& prefix);
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace perfcast
