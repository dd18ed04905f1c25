package io.cqlrows.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reports a leaked buffer. Registered for every test through JUnit's
 * extension auto-detection ({@code META-INF/services}); Surefire runs with {@code
 * -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked.
 *
 * <p>Netty only notices a leak when the garbage collector has collected an unreleased buffer and a
 * later allocation polls the detector's queue. After each class this extension runs the collector,
 * polls, and fails with the leak records collected since the previous check.
 *
 * <p>Netty tracks pooled and direct buffers; unpooled heap buffers are left to the garbage
 * collector and never reported. Tests that hand such buffers to the code under test also assert
 * {@code refCnt()} afterwards.
 */
public final class LeakCheckExtension implements AfterAllCallback {
  private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();

  static {
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    List<String> leaks = collectLeaks();
    if (!leaks.isEmpty()) {
      throw new AssertionError(
          leaks.size()
              + " leaked ByteBuf(s) reported after "
              + context.getDisplayName()
              + ":\n"
              + String.join("\n\n", leaks));
    }
  }

  /** Runs the GC, polls the detector, and drains the leaks recorded so far. */
  public static List<String> collectLeaks() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(20);
      // each allocation of a tracked buffer polls the detector's reference queue
      ByteBuf a = Unpooled.buffer(1);
      ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(1);
      a.release();
      b.release();
    }
    List<String> out = new ArrayList<>();
    for (String s; (s = LEAKS.poll()) != null; ) {
      out.add(s);
    }
    return out;
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    @SuppressWarnings("deprecation")
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return new RecordingDetector<>(resource, samplingInterval);
    }
  }

  private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
    RecordingDetector(Class<T> resource, int samplingInterval) {
      super(resource, samplingInterval);
    }

    @Override
    protected boolean needReport() {
      return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
      LEAKS.add("LEAK: " + resourceType + records);
      super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
      LEAKS.add("LEAK: " + resourceType + " (no records)");
      super.reportUntracedLeak(resourceType);
    }
  }
}
