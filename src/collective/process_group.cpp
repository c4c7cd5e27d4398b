#include "collective/process_group.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

#include "baton/error.hpp"
#include "collective/mpi/mpi_plugin.hpp"

namespace baton::collective {

namespace {

class SingleProcess final : public ProcessGroup {
 public:
  SingleProcess() {
    char name[256] = {};
    host_ = gethostname(name, sizeof name - 1) == 0 ? name : "localhost";
  }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const std::string& host() const override { return host_; }
  std::string name() const override { return "one process"; }
  void sum(std::span<float>) override {}
  std::vector<double> gather(std::span<const double> mine) override {
    return {mine.begin(), mine.end()};
  }
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  [[noreturn]] void abort(int status) override { std::_Exit(status); }

 private:
  std::string host_;
};

int env_count(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : 0;
}

}  // namespace

int launched_processes() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const int n = env_count(v); n > 0) return n;
  return 1;
}

int launched_local_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* s = std::getenv(v); s && *s) return std::atoi(s);
  return 0;
}

std::unique_ptr<ProcessGroup> single_process() {
  return std::make_unique<SingleProcess>();
}

std::unique_ptr<ProcessGroup> join_processes() {
  const int launched = launched_processes();
  if (launched <= 1) return single_process();
  const auto unavailable = [&](const std::string& why) {
    return Error(Errc::backend_unavailable, "mpi",
                 "a launcher started " + std::to_string(launched) + " processes, but " + why);
  };
  // BATON_MPI_PLUGIN names another build of the plugin; else the one built
  // beside this binary, then the loader's search path.
  std::vector<std::string> paths;
  if (const char* p = std::getenv("BATON_MPI_PLUGIN"); p && *p) paths.push_back(p);
#ifdef BATON_MPI_PLUGIN_PATH
  paths.push_back(BATON_MPI_PLUGIN_PATH);
#endif
  paths.push_back(kMpiPluginName);
  std::string errors;
  for (const std::string& path : paths) {
    // Global: Open MPI's own components, opened by libmpi, look for its symbols.
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
      errors += std::string(errors.empty() ? "" : "; ") + dlerror();
      continue;
    }
    auto* join = reinterpret_cast<MpiJoin>(dlsym(lib, kMpiJoinSymbol));
    if (!join) throw unavailable(path + " has no " + kMpiJoinSymbol);
    char why[512] = {};
    ProcessGroup* group = join(why, sizeof why);
    if (!group) throw unavailable(why);
    return std::unique_ptr<ProcessGroup>(group);
  }
  throw unavailable("this build's MPI plugin did not load (" + errors +
                    "); build baton with libopenmpi-dev installed");
}

}  // namespace baton::collective
