// The criterion benchmark that wrote criterion/before and criterion/after (README.md);
// for `after`, recursive 15 computed fib(16), as here.
use criterion::{black_box, criterion_group, criterion_main, Criterion};
fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
fn fib_iter(n: u64) -> u64 { let (mut a, mut b) = (0u64, 1u64); for _ in 0..n { let t = a + b; a = b; b = t; } a }
fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("fib");
    g.sample_size(20).warm_up_time(std::time::Duration::from_millis(200)).measurement_time(std::time::Duration::from_millis(600));
    g.bench_function("recursive 15", |b| b.iter(|| fib(black_box(16))));
    g.bench_function("iterative 15", |b| b.iter(|| fib_iter(black_box(15))));
    g.finish();
}
criterion_group!(benches, bench);
criterion_main!(benches);
