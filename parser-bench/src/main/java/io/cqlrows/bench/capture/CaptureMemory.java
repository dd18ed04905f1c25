package io.cqlrows.bench.capture;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.cqlrows.capture.digest.DigestReport;
import io.cqlrows.capture.gen.SyntheticCapture;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.RuntimeMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The memory bound of a large capture: writes a synthetic capture ({@link CaptureWork#spec}, 1 GiB
 * by default) to a temporary file, then digests it, replays it (every result into a counting sink)
 * and reassembles it (the floor), each pass {@code RUNS} times (2 by default: the first includes
 * the JIT's warm-up), and prints for each pass its wall time and throughput in MB/s of the file (MB
 * = 10^6 bytes), the same from the CPU time of the thread that runs it (steadier on a loaded
 * machine), the CPU time of the whole process (the collector's and the compiler's threads too), and
 * the heap it used. Run it with a small heap; the passes are checked against the generator's
 * expectation, as in {@link CaptureThroughput}. Each pass starts after a {@code System.gc()}. The
 * file is deleted at the end.
 *
 * <pre>
 * mvn -q -DskipTests package
 * java -Xmx128m -Dio.netty.leakDetection.level=disabled \
 *     -cp parser-bench/target/benchmarks.jar io.cqlrows.bench.capture.CaptureMemory [BYTES [RUNS]]
 * </pre>
 *
 * <p><b>Heap figures</b>, per pass, from the collectors' notifications ({@link
 * GarbageCollectionNotificationInfo}), the heap pools summed:
 *
 * <ul>
 *   <li><b>peak</b>: the most heap in use at any time of the pass: the largest heap use at the
 *       start of a collection (the heap only grows between collections), or at the end of the pass;
 *   <li><b>after GC</b>: the largest heap use at the end of a collection, a bound of what the pass
 *       keeps live (its retained memory plus the garbage the collection left, e.g. in old regions a
 *       young collection does not touch);
 *   <li><b>pools' peaks</b>: the sum of each heap pool's own peak ({@link
 *       MemoryPoolMXBean#getPeakUsage}), a cross-check: an upper bound of the peak, since the pools
 *       need not peak at once.
 * </ul>
 *
 * <p>How high the peak goes is the collector's choice (it lets the young generation fill the heap
 * it may use); the after-GC figure is the one that grows with what the code keeps.
 */
public final class CaptureMemory {
  private static final double MIB = 1 << 20;

  private CaptureMemory() {}

  /** Heap use at the collections since the last {@link #reset}. */
  private static final class HeapWatch implements NotificationListener {
    private final Set<String> heapPools = new TreeSet<>();
    private final List<MemoryPoolMXBean> pools = new ArrayList<>();
    private long maxBefore;
    private long maxAfter;
    private long collections;

    HeapWatch() {
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          heapPools.add(pool.getName());
          pools.add(pool);
        }
      }
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        ((NotificationEmitter) gc).addNotificationListener(this, null, null);
      }
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
      if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
        return;
      }
      GcInfo info =
          GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()).getGcInfo();
      long before = heap(info.getMemoryUsageBeforeGc());
      long after = heap(info.getMemoryUsageAfterGc());
      synchronized (this) {
        maxBefore = Math.max(maxBefore, before);
        maxAfter = Math.max(maxAfter, after);
        collections++;
      }
    }

    private long heap(Map<String, MemoryUsage> usage) {
      long used = 0;
      for (Map.Entry<String, MemoryUsage> e : usage.entrySet()) {
        if (heapPools.contains(e.getKey())) {
          used += e.getValue().getUsed();
        }
      }
      return used;
    }

    /** Collects the garbage of the pass before, then starts counting. */
    void reset() throws InterruptedException {
      System.gc();
      Thread.sleep(200); // the notification of that collection
      synchronized (this) {
        maxBefore = 0;
        maxAfter = 0;
        collections = 0;
      }
      for (MemoryPoolMXBean pool : pools) {
        pool.resetPeakUsage();
      }
    }

    /** The figures of the pass that just ended, once the last notifications are in. */
    String report() throws InterruptedException {
      Thread.sleep(200);
      long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      long poolPeaks = 0;
      for (MemoryPoolMXBean pool : pools) {
        poolPeaks += pool.getPeakUsage().getUsed();
      }
      synchronized (this) {
        return String.format(
            Locale.ROOT,
            "heap peak %.1f MiB, after GC at most %.1f MiB (pools' peaks %.1f MiB), %,d GCs",
            Math.max(maxBefore, now) / MIB,
            maxAfter / MIB,
            poolPeaks / MIB,
            collections);
      }
    }
  }

  /** A pass over the file. */
  private interface Pass {
    String run() throws IOException;
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    long bytes = args.length > 0 ? Long.parseLong(args[0]) : 1L << 30;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    RuntimeMXBean rt = ManagementFactory.getRuntimeMXBean();
    List<String> collectors = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      collectors.add(gc.getName());
    }
    System.out.printf(
        Locale.ROOT,
        "%s %s (%s), %d CPUs, max heap %.0f MiB, %s; %s%n",
        rt.getVmVendor(),
        Runtime.version(),
        rt.getVmName(),
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() / MIB,
        String.join(", ", collectors),
        String.join(" ", rt.getInputArguments()));
    HeapWatch watch = new HeapWatch();
    Path file = Files.createTempFile("cqlrows-capture-memory-", ".pcap");
    try {
      watch.reset();
      Clocks start = Clocks.now();
      SyntheticCapture.Expected e = CaptureWork.write(bytes, file);
      Clocks end = Clocks.now();
      CaptureWork.Totals expected = CaptureWork.Totals.of(e);
      long size = Files.size(file);
      System.out.printf(
          Locale.ROOT,
          "%s: %,d bytes, %,d packets, %,d connections, %,d requests, %,d responses, %,d rows%n",
          file,
          size,
          e.packets(),
          e.connections(),
          e.requests(),
          e.responses(),
          expected.rows());
      print("write", 1, start, end, size, "the generator, then fsync", watch);
      Pass digest =
          () -> {
            DigestReport d = CaptureWork.digest(file);
            expected.check(d);
            return d.statementCount() + " statements";
          };
      Pass replay =
          () -> {
            CaptureWork.Replayed r = CaptureWork.replay(file);
            expected.check(r);
            return String.format(Locale.ROOT, "%,d cells", r.sink.cells());
          };
      Pass reassemble =
          () -> {
            CaptureWork.Reassembled r = CaptureWork.reassemble(file);
            expected.check(r);
            return String.format(Locale.ROOT, "%,d stream bytes", r.bytes);
          };
      for (int run = 1; run <= runs; run++) {
        measure("digest", run, digest, size, watch);
        measure("replay", run, replay, size, watch);
        measure("reassemble", run, reassemble, size, watch);
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static void measure(String name, int run, Pass pass, long size, HeapWatch watch)
      throws IOException, InterruptedException {
    watch.reset();
    Clocks start = Clocks.now();
    String what = pass.run();
    Clocks end = Clocks.now();
    print(name, run, start, end, size, what, watch);
  }

  /**
   * Wall time, the CPU time of this thread (the pass itself) and of the whole process (with the
   * collector's and the compiler's threads), in nanoseconds.
   */
  private record Clocks(long wall, long thread, long process) {
    static Clocks now() {
      return new Clocks(
          System.nanoTime(),
          ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(),
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
              .getProcessCpuTime());
    }
  }

  private static void print(
      String name, int run, Clocks start, Clocks end, long size, String what, HeapWatch watch)
      throws InterruptedException {
    long wall = end.wall() - start.wall();
    long thread = end.thread() - start.thread();
    System.out.printf(
        Locale.ROOT,
        "%-10s run %d: %,6d ms, %6.1f MB/s (CPU: thread %,6d ms, %6.1f MB/s; process %,6d ms);"
            + " %s%s%n",
        name,
        run,
        wall / 1_000_000,
        size * 1e3 / wall,
        thread / 1_000_000,
        size * 1e3 / thread,
        (end.process() - start.process()) / 1_000_000,
        watch.report(),
        what.isEmpty() ? "" : "; " + what);
  }
}
