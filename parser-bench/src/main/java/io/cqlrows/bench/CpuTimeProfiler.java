package io.cqlrows.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Adds {@code cpu.time.norm}: the CPU time of the benchmark threads per operation, in ns/op ({@link
 * ThreadMXBean#getThreadCpuTime}). On a shared machine the throughput falls whenever the scheduler
 * gives the benchmark thread less than a core; its CPU time per operation does not, so this figure
 * compares runs made under different loads (it still moves with cache and memory bandwidth
 * contention). Run with {@code -prof io.cqlrows.bench.CpuTimeProfiler}.
 */
public final class CpuTimeProfiler implements InternalProfiler {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private Map<Long, Long> before = Map.of();

  @Override
  public String getDescription() {
    return "CPU time of the benchmark threads per operation (ThreadMXBean)";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    before = workerCpuTimes();
  }

  @Override
  @SuppressWarnings("rawtypes") // the interface's signature
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long nanos = 0;
    for (Map.Entry<Long, Long> e : workerCpuTimes().entrySet()) {
      nanos += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    long ops = result.getMetadata().getAllOps();
    return List.of(
        new ScalarResult(
            "cpu.time.norm",
            ops == 0 ? Double.NaN : (double) nanos / ops,
            "ns/op",
            AggregationPolicy.AVG));
  }

  /** CPU time so far of each live JMH worker thread, by thread id. */
  private Map<Long, Long> workerCpuTimes() {
    Map<Long, Long> times = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().contains("jmh-worker")) {
        long cpu = threads.getThreadCpuTime(t.getId());
        if (cpu >= 0) {
          times.put(t.getId(), cpu);
        }
      }
    }
    return times;
  }
}
