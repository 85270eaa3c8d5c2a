// arenaplan cache: the cache lab from the command line.
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "core/teach/cachelab.h"

namespace arenaplan::cli {
namespace {

RequestStream stream_from_args(const Args& args) {
  if (auto list = args.option("list")) {
    std::vector<Block> blocks;
    std::stringstream ss(*list);
    std::string item;
    while (std::getline(ss, item, ',')) {
      try {
        size_t used = 0;
        long long b = std::stoll(item, &used);
        if (used != item.size()) throw std::invalid_argument(item);
        blocks.push_back(b);
      } catch (const std::exception&) {
        throw InputError("--list", "expected comma-separated block numbers, found \"" + item + "\"");
      }
    }
    return RequestStream::list(std::move(blocks));
  }
  return RequestStream::strided(args.int_option("stride", 4, 1, 1000000));
}

int run_cache(const Args& args) {
  CacheConfig config;
  config.lines = static_cast<int>(args.int_option("capacity", 4, 1, 65536));
  config.ways = static_cast<int>(args.int_option("ways", 0, 0, 65536));
  config.policy = policy_from_name(args.option("policy").value_or("lru"), "--policy");
  CacheLab lab(config, stream_from_args(args));
  lab.run(args.int_option("requests", 17, 0, 1000000));
  if (args.flag("json")) std::cout << cache_report_json(lab).dump(2) << "\n";
  else std::cout << cache_report_text(lab);
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("cache",
                  "cache --capacity C (--stride S | --list 0,1,2) --requests N [--policy lru|fifo|opt] [--ways W] [--json]",
                  {"json"}, {"capacity", "stride", "list", "requests", "policy", "ways"}, run_cache,
                  "The cache lab: hits and misses of a request stream in a small cache (LRU, FIFO or Belady's OPT, fully associative or set-associative).",
                  {{"capacity", "cache lines (default: 4)"},
                   {"stride", "requests 0, S, 2S, ... (default: 4)"},
                   {"list", "explicit request list, comma-separated, instead of --stride"},
                   {"requests", "how many requests of the stride stream (default: 17)"},
                   {"policy", "lru (default), fifo or opt"},
                   {"ways", "set associativity (default: 0, fully associative)"},
                   {"json", "machine-readable output"}},
                  {"cache --capacity 4 --stride 4 --requests 17", "cache --capacity 2 --list 0,1,2,0,1 --policy fifo --json"});

}  // namespace arenaplan::cli
