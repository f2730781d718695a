// Times parse_json, the JSON config reader, on every file of a corpus directory and on a large
// generated config (a mounts list just under the 1 MiB limit), and json_syntax_error on the large
// one (the parser alone, no tree), by the thread's CPU time, so that parser changes can be
// compared before and after in one sitting (build both, run them alternately). Build and run
// (simdjson's archive from any build directory, here `npm run test:native`'s):
//   g++ -O2 -DNDEBUG -std=c++20 -DSIMDJSON_EXCEPTIONS=0 -Isrc \
//       -isystem node_modules/@nozbe/simdjson/src bench/config_json.cc src/config/json_reader.cc \
//       src/config/json_refusal.cc src/config/reader_checks.cc src/config/config_tree.cc \
//       src/common/path.cc build-native/libmsb_simdjson.a -o /tmp/config-json-bench
//   /tmp/config-json-bench fuzz/corpus 40000
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/json_reader.h"

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Mounts with every kind of scalar and an escape per string, as a hand-written config has.
std::string large_config() {
  std::string text = "{\n  \"sandbox\": {\n    \"root\": \"/srv/w\\u00e9rk\",\n    \"mounts\": [\n";
  for (int i = 0;; ++i) {
    std::string mount = "      {\"source\": \"/data/project-" + std::to_string(i) +
                        "/src\", \"target\": \"/mnt/p" + std::to_string(i) +
                        "\", \"readonly\": " + (i % 2 ? "true" : "false") +
                        ", \"maxFileBytes\": " + std::to_string(1000 + i) +
                        ", \"note\": null, \"suffixes\": [\".json\", \".tar.gz\"]},\n";
    if (text.size() + mount.size() + 64 > msb::kMaxConfigBytes) break;
    text += mount;
  }
  text += "      {\"source\": \"/last\", \"target\": \"/last\"}\n    ]\n  }\n}\n";
  return text;
}

// The thread's CPU time, not the wall clock: on a shared machine other work then counts less.
double cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

template <typename F>
double best_ns_per_round(int rounds, int repeats, F&& body) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const double start = cpu_ns();
    for (int i = 0; i < rounds; ++i) body();
    best = std::min(best, (cpu_ns() - start) / rounds);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [ROUNDS]\n", argv[0]);
    return 2;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 20000;
  std::vector<std::string> corpus;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    corpus.push_back(read_file(entry.path()));
  }
  std::size_t accepted = 0;
  for (const std::string& text : corpus) {
    accepted += msb::parse_json(text).ok();
  }
  const double corpus_ns = best_ns_per_round(rounds, 5, [&] {
    for (const std::string& text : corpus) (void)msb::parse_json(text);
  });
  const std::string large = large_config();
  if (!msb::parse_json(large).ok()) {
    std::fprintf(stderr, "the generated config does not parse\n");
    return 1;
  }
  const double large_ns =
      best_ns_per_round(std::max(1, rounds / 500), 5, [&] { (void)msb::parse_json(large); });
  // The same text checked without building the tree: the parser's share of the time above.
  const double syntax_ns =
      best_ns_per_round(std::max(1, rounds / 500), 5, [&] { (void)msb::json_syntax_error(large); });
  std::printf("corpus: %zu files (%zu JSON), %.2f us per pass over all of them\n", corpus.size(),
              accepted, corpus_ns / 1000);
  std::printf("large:  %zu bytes, %.3f ms per parse, %.1f MB/s\n", large.size(), large_ns / 1e6,
              static_cast<double>(large.size()) / large_ns * 1000);
  std::printf("syntax: the same, %.3f ms per check without the tree\n", syntax_ns / 1e6);
  return 0;
}
