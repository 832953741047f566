#include "support/scratch_directory.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "support/error.h"

namespace perfcast {

ScratchDirectory::ScratchDirectory(const std::string& prefix) {
  std::error_code error;
  std::filesystem::path base = std::filesystem::temp_directory_path(error);
  if (error) base = "/tmp";
  std::string pattern = (base / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    throw UserError(fmt::format("cannot create a scratch directory under '{}': {}", base.string(), std::strerror(errno)),
                    {}, "check that the temporary directory (TMPDIR) exists and is writable");
  path_ = pattern;
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ignored;  // a destructor must not throw; a leftover is harmless
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace perfcast
