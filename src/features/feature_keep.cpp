// The features a build keeps (feature_keep.h).
#include "features/feature_keep.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdlib>
#include <vector>

using namespace llvm;

namespace perfcast::features {

std::optional<StringSet<>> keep_list(LLVMContext& ctx) {
  const char* path = std::getenv("PERFCAST_FEATURES_KEEP");
  if (!path || !*path) return std::nullopt;
  StringSet<> keep;
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer) {
    ctx.emitError(Twine("perfcast features: cannot read PERFCAST_FEATURES_KEEP=") + path + ": " +
                  buffer.getError().message());
    return keep;
  }
  StringRef text = (*buffer)->getBuffer();
  if (text.ltrim().starts_with("{")) {
    Expected<json::Value> model = json::parse(text);
    const json::Object* object = model ? model->getAsObject() : nullptr;
    const json::Array* inputs = object ? object->getArray("inputs") : nullptr;
    if (!inputs) {
      if (!model) consumeError(model.takeError());
      ctx.emitError(Twine("perfcast features: ") + path + " is JSON without an `inputs` array of feature names");
      return keep;
    }
    // The inputs the kept columns multiply (after the importance filter), or every input.
    const json::Array* kept = object->getArray("kept");
    const json::Object* expansion = object->getObject("expansion");
    const json::Array* monomials = expansion ? expansion->getArray("monomials") : nullptr;
    std::vector<bool> used(inputs->size(), kept == nullptr || monomials == nullptr);
    if (kept && monomials)
      for (const auto& column : *kept) {
        const json::Object* c = column.getAsObject();
        auto index = c ? c->getInteger("column") : std::nullopt;
        if (!index || *index < 0 || static_cast<size_t>(*index) >= monomials->size()) continue;
        if (const json::Array* factors = (*monomials)[*index].getAsArray())
          for (const auto& f : *factors)
            if (auto i = f.getAsInteger(); i && *i >= 0 && static_cast<size_t>(*i) < used.size()) used[*i] = true;
      }
    for (size_t i = 0; i < inputs->size(); ++i)
      if (auto s = (*inputs)[i].getAsString(); s && used[i]) keep.insert(*s);
    return keep;
  }
  SmallVector<StringRef, 64> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    if (!line.empty() && !line.starts_with("#")) keep.insert(line);
  }
  return keep;
}

}  // namespace perfcast::features
