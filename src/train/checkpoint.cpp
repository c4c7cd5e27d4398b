#include "train/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "common/text_file.hpp"

namespace baton::train {

namespace {

constexpr const char* kMagic = "baton checkpoint 1";

// FNV-1a over the arrays' bytes.
std::uint64_t checksum(const std::vector<float>& a, const std::vector<float>& b,
                       const std::vector<float>& c) {
  std::uint64_t h = 1469598103934665603ull;
  for (const auto* v : {&a, &b, &c}) {
    const auto* p = reinterpret_cast<const unsigned char*>(v->data());
    for (std::size_t i = 0; i < v->size() * sizeof(float); ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

void write_all(int fd, const void* data, std::size_t bytes, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n <= 0)
      raise(Errc::invalid_argument, path, std::string("cannot write: ") + strerror(errno));
    p += n;
    bytes -= std::size_t(n);
  }
}

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  nlohmann::json h = {{"inputs", c.shape.inputs},
                      {"width", c.shape.width},
                      {"depth", c.shape.depth},
                      {"outputs", c.shape.outputs},
                      {"seed", c.seed},
                      {"batch", c.batch},
                      {"micro_batch", c.micro_batch},
                      {"step", c.step},
                      {"rates", c.rates},
                      {"process_rates", c.process_rates},
                      {"params", c.params.size()},
                      {"checksum", checksum(c.params, c.m, c.v)}};
  const std::string head = std::string(kMagic) + "\n" + h.dump() + "\n";
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) raise(Errc::invalid_argument, path, std::string("cannot write: ") + strerror(errno));
  try {
    write_all(fd, head.data(), head.size(), path);
    for (const auto* v : {&c.params, &c.m, &c.v})
      write_all(fd, v->data(), v->size() * sizeof(float), path);
    if (::fsync(fd) != 0) raise(Errc::invalid_argument, path, "cannot flush to the disk");
  } catch (...) {
    ::close(fd);
    std::remove(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    raise(Errc::invalid_argument, path, std::string("cannot replace: ") + strerror(errno));
  // The rename itself reaches the disk with its folder.
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

Checkpoint read_checkpoint(const std::string& path) {
  auto bad = [&](const std::string& why) {
    raise(Errc::invalid_argument, path, "not a usable baton checkpoint: " + why);
  };
  detail::require_regular_file(path, Errc::invalid_argument, "checkpoint");
  std::ifstream in(path, std::ios::binary);
  if (!in) raise(Errc::invalid_argument, path, "cannot open the checkpoint");
  std::string magic, head;
  if (!std::getline(in, magic) || magic != kMagic)
    bad("its first line is not '" + std::string(kMagic) + "'");
  if (!std::getline(in, head)) bad("no header");
  Checkpoint c;
  std::uint64_t sum = 0;
  std::size_t n = 0;
  try {
    const nlohmann::json h = nlohmann::json::parse(head);
    c.shape = {h.at("inputs").get<int>(), h.at("width").get<int>(), h.at("depth").get<int>(),
               h.at("outputs").get<int>()};
    c.seed = h.at("seed").get<std::uint64_t>();
    c.batch = h.at("batch").get<int>();
    c.micro_batch = h.at("micro_batch").get<int>();
    c.step = h.at("step").get<int>();
    c.rates = h.at("rates").get<std::map<std::string, double>>();
    c.process_rates = h.value("process_rates", std::vector<double>{});
    n = h.at("params").get<std::size_t>();
    sum = h.at("checksum").get<std::uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    bad(std::string("its header: ") + e.what());
  }
  if (c.step < 0) bad("a negative step");
  try {
    if (n != MlpLayout(c.shape).params()) bad("its arrays do not match its model's shape");
  } catch (const Error& e) {
    if (e.where() == path) throw;
    bad("its model: " + e.message());
  }
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size != std::uint64_t(in.tellg()) + 3 * std::uint64_t(n) * sizeof(float))
    bad("its size is not that of its arrays (cut short?)");
  for (auto* v : {&c.params, &c.m, &c.v}) {
    v->resize(n);
    if (!in.read(reinterpret_cast<char*>(v->data()), std::streamsize(n * sizeof(float))))
      bad("it ends early (cut short?)");
  }
  if (checksum(c.params, c.m, c.v) != sum) bad("its arrays do not match their checksum");
  return c;
}

}  // namespace baton::train
