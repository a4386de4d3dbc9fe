// A main in place of libFuzzer's: runs a fuzz target's LLVMFuzzerTestOneInput
// once on every file of the given corpus directories (or on the given files),
// so that the normal build replays the saved corpora as regression tests
// (ctest's <target>_corpus). A broken invariant aborts (fuzz_support.h), and
// so does an exception the target lets out: the test fails on the first input
// that breaks, which is named on stderr before it runs.
//
//   <target>_replay DIR|FILE...
//
// Inputs run in name order; no input at all fails, so that a corpus that went
// missing cannot pass.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    fs::path arg = argv[i];
    std::error_code error;
    if (fs::is_directory(arg, error)) {
      std::vector<fs::path> files;
      for (const fs::directory_entry& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(arg, error)) {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: %s is neither a directory nor a file\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no input in the given directories\n");
    return 1;
  }
  for (const fs::path& path : inputs) {
    std::string data = read_file(path);
    // Named before it runs: an abort leaves it as the last line on stderr.
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), data.size());
    // A copy of its own, as libFuzzer gives: a read past the end is then the
    // sanitizers' to see (make sanitize-test).
    std::vector<std::uint8_t> bytes(data.begin(), data.end());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("replayed %zu inputs, no invariant violated\n", inputs.size());
  return 0;
}
