package io.cqlrows.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A main class run on the command jar's classpath by {@link CliLoggingIT}: logs a warning and an
 * info message through Netty's logging, then leaks pooled buffers until Netty's leak detector (run
 * with {@code -Dio.netty.leakDetection.level=paranoid}) reports one, for at most {@value
 * #MAX_MILLIS} ms. Prints the logger factory Netty chose on stdout; exits 0 when a leak report
 * reached stderr, 3 when none did in time. Stderr is watched through {@link System#setErr}, which
 * the logging provider writes to.
 */
final class LoggingProbe {
  static final String WARNING = "cqlrows probe warning";
  static final String INFO = "cqlrows probe info";
  static final long MAX_MILLIS = 10_000;

  private LoggingProbe() {}

  public static void main(String[] args) throws InterruptedException {
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    OutputStream stderr = new FileOutputStream(FileDescriptor.err);
    System.setErr(
        new PrintStream(
            new OutputStream() {
              @Override
              public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
              }

              @Override
              public void write(byte[] b, int off, int len) throws IOException {
                stderr.write(b, off, len);
                seen.write(b, off, len);
              }
            },
            true,
            StandardCharsets.UTF_8));
    InternalLogger logger = InternalLoggerFactory.getInstance(LoggingProbe.class);
    logger.warn(WARNING);
    logger.info(INFO);
    System.out.println(InternalLoggerFactory.getDefaultFactory().getClass().getName());
    long deadline = System.nanoTime() + MAX_MILLIS * 1_000_000;
    boolean reported = false;
    while (!reported && System.nanoTime() < deadline) {
      leak();
      System.gc();
      Thread.sleep(20);
      // the detector looks for collected buffers when the next one is tracked
      PooledByteBufAllocator.DEFAULT.buffer(16).release();
      reported = seen.toString(StandardCharsets.UTF_8).contains("LEAK: ");
    }
    System.exit(reported ? 0 : 3);
  }

  /** A tracked buffer, dropped without being released. */
  private static void leak() {
    ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(16);
    leaked.writeInt(42);
  }
}
