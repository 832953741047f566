// Writing perfcast's output files: whole or not at all, and never over an input.
//
// Every file a command writes goes through here. The text goes to a temporary
// file in the target's directory (so the final rename stays on one
// filesystem), is flushed to the disk, and is renamed over the target only
// once complete: a failure or an interrupted run leaves the old file as it
// was and no temporary behind (a killed process may leave its temporary, named
// .NAME.tmp-*, never a half-written NAME).
#pragma once

#include <cstdio>
#include <filesystem>
#include <ostream>
#include <memory>
#include <string_view>
#include <vector>

namespace perfcast {

// One output file being written. Write through file() or stream(), then
// commit(); destroyed without commit(), the temporary is removed and the
// target is untouched. Throws UserError (naming the target) when the
// temporary cannot be created or the file cannot be finished. An existing
// target's permissions are kept; a symbolic link is followed, not replaced.
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::FILE* file() const { return file_; }
  std::ostream& stream();
  // Flushes, syncs and renames the temporary over the target.
  void commit();

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& temporary() const { return temporary_; }

 private:
  [[noreturn]] void fail(const char* what, int error);

  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<std::streambuf> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// `content` as the whole of `path` (AtomicFile's contract).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Refuses, before anything is written, an output that is one of the inputs:
// the same file by filesystem identity (a hard link, another spelling, a
// symbolic link to it), or a directory that holds an input. Inputs that do
// not exist are skipped. `option` names the output's flag in the error
// ("-o", "--timeline"). Throws UserError.
void refuse_output_over_inputs(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs,
                               std::string_view option);

}  // namespace perfcast
