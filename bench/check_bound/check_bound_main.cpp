// check_bound CSV CERTIFICATE [--node-limit N]
// Checks a lower-bound certificate (bench/data/minimalloc/*.bound.json) against a MiniMalloc CSV
// instance with the standalone search in check_bound.h (no arenaplan code). Prints the verdict;
// exit status 0 accepted, 1 rejected or no verdict, 2 unreadable input.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/check_bound/check_bound.h"

namespace {
bool read_file(const char* path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  long long node_limit = 0;
  const char* csv = nullptr;
  const char* cert = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--node-limit") && i + 1 < argc) node_limit = std::atoll(argv[++i]);
    else if (!csv) csv = argv[i];
    else if (!cert) cert = argv[i];
    else csv = nullptr, cert = nullptr, i = argc;
  }
  if (!csv || !cert) {
    std::fprintf(stderr, "usage: %s INSTANCE.csv CERTIFICATE.json [--node-limit N]\n", argv[0]);
    return 2;
  }
  std::string csv_text, cert_text;
  if (!read_file(csv, &csv_text) || !read_file(cert, &cert_text)) {
    std::fprintf(stderr, "cannot read %s\n", read_file(csv, &csv_text) ? cert : csv);
    return 2;
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const boundcheck::Verdict v = boundcheck::check_certificate(csv_text, cert_text, node_limit);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %s (%.2f s)\n", csv, v.message.c_str(), secs);
    return v.accepted ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", csv, e.what());
    return 2;
  }
}
