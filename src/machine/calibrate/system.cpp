#include "machine/calibrate/system.h"

#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/launcher.h"

namespace perfcast::calibrate {

namespace {

std::vector<ReportedCache> from_lscpu() {
  std::vector<ReportedCache> caches;
  measure::ProcessResult r;
  try {
    r = measure::run_process({"lscpu", "-B", "-C=NAME,ONE-SIZE,LEVEL,TYPE", "--json"}, std::chrono::seconds(10));
  } catch (const std::exception&) {
    return caches;  // no lscpu: fall back to getconf
  }
  if (r.exit_code != 0) return caches;
  try {
    auto doc = nlohmann::json::parse(r.stdout_text);
    for (const auto& c : doc.value("caches", nlohmann::json::array())) {
      std::string type = c.value("type", "");
      if (type == "Instruction") continue;
      auto number = [](const nlohmann::json& v) -> double {
        if (v.is_number()) return v.get<double>();
        if (v.is_string()) return std::stod(v.get<std::string>());
        return 0;
      };
      ReportedCache rc;
      rc.level = static_cast<int>(number(c.value("level", nlohmann::json())));
      rc.size_bytes = number(c.value("one-size", nlohmann::json()));
      rc.source = "lscpu";
      if (rc.level > 0 && rc.size_bytes > 0) caches.push_back(rc);
    }
  } catch (const std::exception&) {
    caches.clear();
  }
  return caches;
}

std::vector<ReportedCache> from_getconf() {
  std::vector<ReportedCache> caches;
  const std::pair<int, int> names[] = {{1, _SC_LEVEL1_DCACHE_SIZE},
                                       {2, _SC_LEVEL2_CACHE_SIZE},
                                       {3, _SC_LEVEL3_CACHE_SIZE},
                                       {4, _SC_LEVEL4_CACHE_SIZE}};
  for (auto [level, name] : names) {
    long size = ::sysconf(name);
    if (size > 0) caches.push_back({level, static_cast<double>(size), true, "getconf"});
  }
  return caches;
}

}  // namespace

bool plausible_cache_size(int level, double size_bytes, int online_cores) {
  constexpr double MiB = 1024.0 * 1024.0;
  if (size_bytes <= 0) return false;
  if (level <= 2) return size_bytes <= 64 * MiB;
  return size_bytes <= 128 * MiB || size_bytes <= 8 * MiB * online_cores;
}

std::vector<ReportedCache> reported_caches() {
  auto caches = from_lscpu();
  if (caches.empty()) caches = from_getconf();
  int cores = measure::online_cores();
  std::map<int, ReportedCache> by_level;  // one entry per level, innermost first
  for (auto& c : caches) {
    c.plausible = plausible_cache_size(c.level, c.size_bytes, cores);
    by_level.try_emplace(c.level, c);
  }
  std::vector<ReportedCache> out;
  for (auto& [level, c] : by_level) out.push_back(c);
  return out;
}

double last_plausible_cache_bytes(const std::vector<ReportedCache>& caches) {
  double last = 0;
  for (const auto& c : caches)
    if (c.plausible && c.size_bytes > last) last = c.size_bytes;
  return last;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == 0) return "localhost";
  return name;
}

std::string describe_cpu(const std::string& cpuinfo) {
  std::map<std::string, std::string> field;
  std::istringstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) {
      if (!field.empty()) break;  // the end of the first processor's block
      continue;
    }
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    key.erase(key.find_last_not_of(" \t") + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    field.emplace(key, value);
  }
  std::string name = field["model name"];
  std::vector<std::string> details;
  if (!field["cpu family"].empty()) details.push_back("family " + field["cpu family"]);
  if (!field["model"].empty()) details.push_back("model " + field["model"]);
  const std::string flags = " " + field["flags"] + " ";
  if (flags.find(" avx512f ") != std::string::npos) details.push_back("AVX-512");
  else if (flags.find(" avx2 ") != std::string::npos) details.push_back("AVX2");
  if (details.empty()) return name;
  std::string joined;
  for (const auto& d : details) joined += (joined.empty() ? "" : ", ") + d;
  return name.empty() ? joined : name + " (" + joined + ")";
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return describe_cpu(text.str());
}

double cpu_clock_Hz() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) return 0;
    try {
      double mhz = std::stod(line.substr(colon + 1));
      return mhz > 0 ? mhz * 1e6 : 0;
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

}  // namespace perfcast::calibrate
