// The MPI plugin: MPI's world as a ProcessGroup. Built into a module of its
// own (libbaton_mpi.so) linked with MPI, so that libbaton and its tools need
// no MPI to run. Errors are MPI's default, fatal: a collective that fails
// (a peer gone) ends the job, as the launcher then does.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "collective/mpi/mpi_plugin.hpp"
#include "collective/process_group.hpp"

namespace baton::collective {

namespace {

class MpiGroup final : public ProcessGroup {
 public:
  MpiGroup() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    host_.assign(name, std::size_t(length));
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    MPI_Get_library_version(version, &length);
    library_ = std::string(version, std::size_t(length));
    library_ = library_.substr(0, library_.find(','));  // "Open MPI v4.1.4, package: ..."
  }
  ~MpiGroup() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::string& host() const override { return host_; }
  std::string name() const override { return "MPI (" + library_ + ")"; }

  // A reduce-scatter then an all-gather: each element is summed at one
  // process only (an all-reduce may sum in a different order on each).
  void sum(std::span<float> data) override {
    const std::size_t n = data.size(), k = std::size_t(size_);
    std::vector<int> counts(k), offsets(k);
    for (std::size_t p = 0; p < k; ++p) {
      offsets[p] = int(n * p / k);
      counts[p] = int(n * (p + 1) / k) - offsets[p];
    }
    float* mine = data.data() + offsets[std::size_t(rank_)];
    std::vector<float> part(static_cast<std::size_t>(counts[std::size_t(rank_)]));
    MPI_Reduce_scatter(data.data(), part.data(), counts.data(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    std::copy(part.begin(), part.end(), mine);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data.data(), counts.data(), offsets.data(),
                   MPI_FLOAT, MPI_COMM_WORLD);
  }
  std::vector<double> gather(std::span<const double> mine) override {
    std::vector<double> all(mine.size() * std::size_t(size_));
    MPI_Allgather(mine.data(), int(mine.size()), MPI_DOUBLE, all.data(), int(mine.size()),
                  MPI_DOUBLE, MPI_COMM_WORLD);
    return all;
  }
  std::vector<std::string> gather(const std::string& mine) override {
    const int length = int(mine.size());
    const std::size_t k = static_cast<std::size_t>(size_);
    std::vector<int> lengths(k), offsets(k);
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int p = 0; p < size_; ++p) {
      offsets[std::size_t(p)] = total;
      total += lengths[std::size_t(p)];
    }
    std::string all(std::size_t(total), '\0');
    MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                   MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int p = 0; p < size_; ++p)
      out.push_back(
          all.substr(std::size_t(offsets[std::size_t(p)]), std::size_t(lengths[std::size_t(p)])));
    return out;
  }
  [[noreturn]] void abort(int status) override {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);  // MPI_Abort does not return; its declaration does not say so
  }

 private:
  int rank_ = 0, size_ = 1;
  std::string host_, library_;
};

}  // namespace

}  // namespace baton::collective

extern "C" baton::collective::ProcessGroup* baton_mpi_join(char* error, std::size_t error_size) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  // Only the thread that joined calls MPI (the trainer's); the runtime's
  // workers never do.
  int provided = 0;
  if (!initialized && MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != 0) {
    std::snprintf(error, error_size, "MPI_Init_thread failed");
    return nullptr;
  }
  return new baton::collective::MpiGroup();
}
