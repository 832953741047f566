// BSIM's own entry points (bsim.h): compute bursts, scale factors, markers.
// Outside a rank's fiber they do nothing (the getters return 1).
#include "sim/skeleton/mpi_entry.h"

using perfcast::events::Event;
using perfcast::events::Kind;

namespace perfcast::sim::skeleton {
namespace {

// The calling rank when `value` is a non-negative number (else the rank fails
// with "<before><value><after> is not a non-negative number"); null outside a
// rank's fiber.
Rank* rank_given_non_negative(const char* call, double value, const char* before, const char* after) {
  Rank* rk = current_rank();
  if (rk && !(value >= 0)) rk->fail(call, fmt::format("{}{}{} is not a non-negative number", before, value, after));
  return rk;
}

}  // namespace
}  // namespace perfcast::sim::skeleton

using namespace perfcast::sim::skeleton;  // the entry points below use this file's helpers

extern "C" {

void BSIM_Add_time(double seconds) {
  if (Rank* rk = rank_given_non_negative("BSIM_Add_time", seconds, "time ", " s")) rk->add_time(seconds);
}

void BSIM_Add_flops(double flops) {
  if (Rank* rk = rank_given_non_negative("BSIM_Add_flops", flops, "", " flops")) rk->add_flops(flops);
}

void BSIM_Add_bytes(double bytes) {
  if (Rank* rk = rank_given_non_negative("BSIM_Add_bytes", bytes, "", " bytes")) rk->add_bytes(bytes);
}

// A model handle is its index in the job's ModelWork, plus one (NULL is no model).
BSIM_Model* BSIM_Model_load(const char* path) {
  Rank* rk = current_rank();
  if (!rk) return nullptr;
  if (path == nullptr) rk->fail("BSIM_Model_load", "the path is NULL");
  std::string error;
  int index = -1;
  try {
    index = model_work_of(*rk).load(path);
  } catch (const std::exception& e) {
    error = e.what();
  }
  // Leave the handler before the fiber switches away (Rank::fail).
  if (!error.empty()) rk->fail("BSIM_Model_load", error);
  return reinterpret_cast<BSIM_Model*>(static_cast<std::uintptr_t>(index) + 1);
}

void BSIM_Add_model_work(BSIM_Model* model, const char* function, int nparams, const char* const names[],
                         const double values[]) {
  Rank* rk = current_rank();
  if (!rk) return;
  const char* call = "BSIM_Add_model_work";
  if (model == nullptr) rk->fail(call, "the model is NULL (BSIM_Model_load gives one)");
  if (nparams < 0) rk->fail(call, fmt::format("{} parameters", nparams));
  if (nparams > 0 && (names == nullptr || values == nullptr)) rk->fail(call, "names or values is NULL");
  // Reused call after call (every rank's fiber runs on this thread, none
  // switches inside this call): a step loop's calls allocate nothing.
  thread_local std::vector<perfcast::modelsim::ModelWork::Parameter> parameters;
  parameters.clear();
  for (int i = 0; i < nparams; ++i) {
    if (names[i] == nullptr) rk->fail(call, fmt::format("names[{}] is NULL", i));
    parameters.emplace_back(names[i], values[i]);
  }
  std::string error;
  int work = -1;
  try {
    work = model_work_of(*rk).work(static_cast<int>(reinterpret_cast<std::uintptr_t>(model) - 1),
                                   function ? function : "", parameters, rk->world_rank(), rk->world_size());
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) rk->fail(call, error);
  rk->add_model_work(work);
}

void BSIM_Set_time_scale(double factor) {
  if (Rank* rk = rank_given_non_negative("BSIM_Set_time_scale", factor, "scale ", "")) rk->time_scale_ = factor;
}

void BSIM_Set_size_scale(double factor) {
  if (Rank* rk = rank_given_non_negative("BSIM_Set_size_scale", factor, "scale ", "")) rk->size_scale_ = factor;
}

double BSIM_Get_time_scale(void) {
  Rank* rk = current_rank();
  return rk ? rk->time_scale_ : 1;
}

double BSIM_Get_size_scale(void) {
  Rank* rk = current_rank();
  return rk ? rk->size_scale_ : 1;
}

void BSIM_Marker(int id) {
  if (Rank* rk = current_rank()) {
    Event& e = rk->begin(Kind::Marker);
    e.tag = id;
    rk->emit();
  }
}

}  // extern "C"
