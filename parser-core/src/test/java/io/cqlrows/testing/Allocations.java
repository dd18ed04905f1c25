package io.cqlrows.testing;

import java.lang.management.ManagementFactory;

/**
 * Heap bytes allocated by the current thread, from HotSpot's per-thread counter ({@code
 * com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}): what a call costs in garbage,
 * whatever it returns or throws. Other threads (the JIT, the GC) do not count.
 *
 * <pre>{@code
 * long before = Allocations.current();
 * reader.read(body, sink);
 * long allocated = Allocations.current() - before;
 * }</pre>
 */
public final class Allocations {
  private static final com.sun.management.ThreadMXBean MX =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static {
    if (!MX.isThreadAllocatedMemorySupported()) {
      throw new IllegalStateException("this JVM does not count allocated bytes per thread");
    }
    MX.setThreadAllocatedMemoryEnabled(true);
  }

  private Allocations() {}

  /** Bytes the current thread has allocated since it started. */
  public static long current() {
    return MX.getCurrentThreadAllocatedBytes();
  }
}
