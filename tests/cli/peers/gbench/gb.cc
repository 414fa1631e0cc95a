// The Google Benchmark program that wrote gbench/before.json and after.json (README.md):
// a copy, a sum without a byte counter, and a benchmark that calls SkipWithError.
#include <benchmark/benchmark.h>
#include <cstring>
#include <vector>
static void BM_Copy(benchmark::State& state) {
  std::vector<char> a(state.range(0), 'x'), b(state.range(0));
  for (auto _ : state) { std::memcpy(b.data(), a.data(), a.size()); benchmark::DoNotOptimize(b.data()); }
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Copy)->Arg(1024);
static void BM_Sum(benchmark::State& state) {
  long s = 0;
  for (auto _ : state) { for (int i = 0; i < 256; i++) s += i; benchmark::DoNotOptimize(s); }
}
BENCHMARK(BM_Sum);
static void BM_NeedsNetwork(benchmark::State& state) {
  state.SkipWithError("no network in this sandbox");
  for (auto _ : state) {}
}
BENCHMARK(BM_NeedsNetwork);
BENCHMARK_MAIN();
