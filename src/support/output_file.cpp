#include "support/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <streambuf>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast {

namespace fs = std::filesystem;

namespace {

// An ostream's characters straight into the FILE* (its own buffer does the buffering).
class FileStreamBuffer : public std::streambuf {
 public:
  explicit FileStreamBuffer(std::FILE* file) : file_(file) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    return std::fputc(c, file_) == EOF ? traits_type::eof() : c;
  }
  std::streamsize xsputn(const char* data, std::streamsize size) override {
    return static_cast<std::streamsize>(std::fwrite(data, 1, static_cast<size_t>(size), file_));
  }

 private:
  std::FILE* file_;
};

// The file a path names: a symbolic link's target, so that writing replaces
// what the link points at rather than the link.
fs::path resolve_links(const fs::path& path) {
  std::error_code error;
  if (!fs::is_symlink(fs::symlink_status(path, error))) return path;
  fs::path resolved = fs::weakly_canonical(path, error);
  return error ? path : resolved;
}

}  // namespace

AtomicFile::AtomicFile(const fs::path& target) : target_(resolve_links(target)) {
  fs::path dir = target_.parent_path().empty() ? fs::path(".") : target_.parent_path();
  // A name no other writer uses: this process's id and a counter, created
  // exclusively (O_EXCL) in case a killed run's temporary holds it.
  static std::atomic<unsigned> counter{0};
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temporary_ = dir / fmt::format(".{}.tmp-{}-{}", target_.filename().string(), ::getpid(), counter++);
    fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    int error = errno;
    temporary_.clear();
    fail("cannot create a temporary file next to it", error);
  }
  // The file being replaced keeps its permissions (a new one gets the umask's).
  struct stat existing {};
  if (::stat(target_.c_str(), &existing) == 0) ::fchmod(fd, existing.st_mode & 07777);
  file_ = ::fdopen(fd, "w");
  if (!file_) {
    int error = errno;
    ::close(fd);
    fail("cannot open the temporary file", error);
  }
}

AtomicFile::~AtomicFile() {
  stream_.reset();
  buffer_.reset();
  if (file_) std::fclose(file_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

std::ostream& AtomicFile::stream() {
  if (!stream_) {
    buffer_ = std::make_unique<FileStreamBuffer>(file_);
    stream_ = std::make_unique<std::ostream>(buffer_.get());
  }
  return *stream_;
}

void AtomicFile::fail(const char* what, int error) {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
  throw UserError(fmt::format("cannot write '{}': {}: {}", target_.string(), what, std::strerror(error)), {},
                  "check that the output's directory exists, is writable and has room");
}

void AtomicFile::commit() {
  if (!file_) throw UserError(fmt::format("cannot write '{}': the file was committed already", target_.string()));
  if (stream_ && !*stream_) fail("writing failed", EIO);
  if (std::fflush(file_) != 0 || std::ferror(file_)) fail("writing failed", errno ? errno : EIO);
  if (::fsync(::fileno(file_)) != 0) fail("flushing to the disk failed", errno);
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0) fail("closing failed", errno);
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) fail("renaming the temporary file over it failed", errno);
  temporary_.clear();
  // The rename itself is on the disk once the directory is.
  fs::path dir = target_.parent_path().empty() ? fs::path(".") : target_.parent_path();
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  AtomicFile out(path);
  std::fwrite(content.data(), 1, content.size(), out.file());  // a short write sets the error commit() reports
  out.commit();
}

void refuse_output_over_inputs(const fs::path& output, const std::vector<fs::path>& inputs, std::string_view option) {
  std::error_code error;
  if (!fs::exists(output, error)) return;
  const bool output_is_directory = fs::is_directory(output, error);
  const fs::path output_dir = output_is_directory ? fs::canonical(output, error) : fs::path();
  for (const auto& input : inputs) {
    if (input.empty() || !fs::exists(input, error)) continue;
    bool same = fs::equivalent(output, input, error) && !error;
    if (!same && output_is_directory && !output_dir.empty()) {
      // An input inside the output directory goes with it when the directory is replaced.
      fs::path in = fs::canonical(input, error);
      if (!error) {
        auto [o, i] = std::mismatch(output_dir.begin(), output_dir.end(), in.begin(), in.end());
        same = o == output_dir.end();
      }
    }
    if (same)
      throw UserError(fmt::format("{} {} would overwrite the input '{}'; refusing to write it", option,
                                  output.string(), input.string()),
                      {}, fmt::format("give {} another path", option));
  }
}

}  // namespace perfcast
