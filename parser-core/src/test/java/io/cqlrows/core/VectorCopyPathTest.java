package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Which copy path is active ({@link VectorCopy}, {@link BulkCopy}), and how it is chosen.
 *
 * <p>Surefire runs this class twice (see parser-core's pom): with {@code --add-modules
 * jdk.incubator.vector} and {@code -Dio.cqlrows.test.simd=true}, and without the module and {@code
 * -Dio.cqlrows.test.simd=false}. {@link #activePathIsTheOneThisJvmWasConfiguredFor} fails if the
 * path is not the expected one, or if the property is missing, so a misconfigured build cannot test
 * the scalar path twice.
 */
class VectorCopyPathTest {
  /** What the surefire execution expects: {@code true} for SIMD, {@code false} for scalar. */
  static boolean expectSimd() {
    String expected = System.getProperty("io.cqlrows.test.simd");
    if (expected == null) {
      fail(
          "io.cqlrows.test.simd is not set: run the tests through Maven (parser-core's pom sets"
              + " it per surefire execution)");
    }
    return Boolean.parseBoolean(expected);
  }

  @Test
  void activePathIsTheOneThisJvmWasConfiguredFor() {
    boolean expected = expectSimd();
    boolean module = ModuleLayer.boot().findModule(BulkCopy.MODULE).isPresent();
    assertEquals(expected, module, "jdk.incubator.vector in the boot layer");
    assertEquals(expected, VectorCopy.simd(), "VectorCopy.simd()");
    assertEquals(expected, BulkCopy.simd(), "BulkCopy.simd()");
    assertEquals(
        expected ? BulkCopy.SIMD_CLASS : portableClassOfThisJdk().getName(),
        BulkCopy.COPIER.getClass().getName());
  }

  /** The portable copier this JDK should have: the native swapping copy from JDK 25 on. */
  private static Class<?> portableClassOfThisJdk() {
    return Runtime.version().feature() >= 25 ? NativeSwapCopy.class : ScalarCopy.class;
  }

  @Test
  void portableCopierIsChosenByTheJdkFeatureRelease() {
    assertSame(portableClassOfThisJdk(), BulkCopy.PORTABLE.getClass());
    for (int feature : new int[] {17, 21, 24}) {
      assertSame(ScalarCopy.INSTANCE, BulkCopy.portable(feature), "JDK " + feature);
    }
    for (int feature : new int[] {25, 26, 30}) {
      assertSame(NativeSwapCopy.INSTANCE, BulkCopy.portable(feature), "JDK " + feature);
    }
  }

  /**
   * On a JDK 25 (from {@code JAVA25_HOME}, else the first {@code /usr/lib/jvm/*-25-*}), the
   * portable copier is {@link NativeSwapCopy}, and once compiled it allocates nothing: C2 removes
   * the NIO views of its float copies there (on JDK 17 it does not always, one reason the copier is
   * not used there). Skipped on a machine without a JDK 25.
   */
  @Test
  void nativeSwapCopyAllocatesNothingOnceCompiledOnJdk25() throws Exception {
    assumeFalse(expectSimd(), "checked once, from the scalar-fallback test JVM");
    Path java25 = jdk25();
    assumeTrue(java25 != null, "no JDK 25 on this machine");
    Process child =
        new ProcessBuilder(
                java25.resolve("bin").resolve("java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                CompiledCopies.class.getName())
            .redirectErrorStream(true)
            .start();
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(2, TimeUnit.MINUTES), "the child JVM finished");
    assertEquals(0, child.exitValue(), out);
    String[] fields = lastLineFields(out);
    assertEquals(NativeSwapCopy.class.getName(), fields[0], "the copier JDK 25 selected");
    assertEquals(0, Long.parseLong(fields[1]), "bytes allocated by 8000 compiled copies");
  }

  /** The space-separated fields of the last line a child JVM printed. */
  private static String[] lastLineFields(String out) {
    List<String> lines = out.strip().lines().toList();
    return lines.get(lines.size() - 1).strip().split(" ", -1);
  }

  /** A JDK 25's home, or null. */
  private static Path jdk25() throws IOException {
    String home = System.getenv("JAVA25_HOME");
    if (home != null && !home.isEmpty()) {
      return Path.of(home);
    }
    Path jvms = Path.of("/usr/lib/jvm");
    if (!Files.isDirectory(jvms)) {
      return null;
    }
    try (Stream<Path> homes = Files.list(jvms)) {
      return homes
          .filter(h -> h.getFileName().toString().contains("-25-"))
          .filter(h -> Files.isExecutable(h.resolve("bin").resolve("java")))
          .sorted()
          .findFirst()
          .orElse(null);
    }
  }

  /**
   * Once C2 has compiled it, the copy in use allocates nothing. With the Vector API, that needs
   * every operation intrinsified: a copy that boxes its vectors allocates about 64 bytes per 32
   * copied, and fails here. Before C2, the API's Java fallback allocates too: the copy is run until
   * a window allocates nothing, or a minute has passed.
   *
   * <p>The SIMD copier is checked in a JVM of its own, with the same module and property, that runs
   * nothing but the copies. In this test JVM its compiled form depends on what ran before: if C2
   * compiles {@code floats} while the API's internal calls ({@code Vector.length}, {@code
   * FloatVector.vspecies}) have no type profile, it leaves them virtual, and the copy boxes every
   * vector (12 KB per 1536-float copy) for the rest of the JVM's life, as the test order of seed
   * 109175859301 makes it do: one reason SIMD is opt-in (see {@link VectorCopy}).
   */
  @Test
  void copyInUseAllocatesNothingOnceCompiled() throws Exception {
    if (!expectSimd()) {
      assertEquals(0, CompiledCopies.allocatedOnceCompiled(), "bytes allocated by 8000 copies");
      return;
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child =
        new ProcessBuilder(
                java,
                "--add-modules",
                BulkCopy.MODULE,
                "-Dio.cqlrows.simd=true",
                "-cp",
                System.getProperty("java.class.path"),
                CompiledCopies.class.getName())
            .redirectErrorStream(true)
            .start();
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(2, TimeUnit.MINUTES), "the child JVM finished");
    assertEquals(0, child.exitValue(), out);
    String[] fields = lastLineFields(out); // the JVM warns of the incubator module first
    assertEquals(BulkCopy.SIMD_CLASS, fields[0], "the copier the child JVM selected");
    assertEquals(0, Long.parseLong(fields[1]), "bytes allocated by 8000 compiled SIMD copies");
  }

  /** The copies of {@link #copyInUseAllocatesNothingOnceCompiled}, also a child JVM's main. */
  static final class CompiledCopies {
    private CompiledCopies() {}

    /** Prints the copier's class and the bytes its last window of copies allocated. */
    public static void main(String[] args) {
      long allocated = allocatedOnceCompiled();
      System.out.println(BulkCopy.COPIER.getClass().getName() + " " + allocated);
    }

    /**
     * Bytes allocated by a window of 8000 copies: the first window that allocated none, or the last
     * one, after a minute.
     */
    static long allocatedOnceCompiled() {
      com.sun.management.ThreadMXBean mx =
          (com.sun.management.ThreadMXBean)
              java.lang.management.ManagementFactory.getThreadMXBean();
      long thread = Thread.currentThread().getId();
      byte[] a = new byte[3 + 1536 * 8];
      new java.util.Random(5).nextBytes(a);
      float[] f = new float[1536];
      double[] d = new double[1536];
      int[] ints = new int[1536];
      long[] longs = new long[1536];
      long deadline = System.nanoTime() + 60_000_000_000L;
      long allocated;
      do {
        long before = mx.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 2_000; i++) {
          int n = 1536 - (i & 15); // a vector loop and a tail of 0..7 elements
          BulkCopy.COPIER.floats(a, 3, f, 0, n);
          BulkCopy.COPIER.doubles(a, 3, d, 0, n);
          BulkCopy.COPIER.ints(a, 3, ints, 0, n);
          BulkCopy.COPIER.longs(a, 3, longs, 0, n);
        }
        allocated = mx.getThreadAllocatedBytes(thread) - before;
      } while (allocated > 0 && System.nanoTime() < deadline);
      return allocated;
    }
  }

  @Test
  void loadingTheSimdClassWorksExactlyWhenTheModuleIsThere() {
    if (expectSimd()) {
      BulkCopy.Copier simd = BulkCopy.loadSimd();
      assertEquals(BulkCopy.COPIER.getClass(), simd.getClass());
    } else {
      // as if the module check had said yes: loading fails, and the selection falls back
      Throwable t = assertThrows(Throwable.class, BulkCopy::loadSimd);
      assertNotNull(t);
      assertSame(BulkCopy.PORTABLE, BulkCopy.select(true, "true", BulkCopy::loadSimd));
    }
  }

  // ---- the selection rule, with a stand-in for the SIMD copier ----

  private static final BulkCopy.Copier FAKE =
      new BulkCopy.Copier() {
        @Override
        public void floats(byte[] a, int p, float[] dst, int off, int n) {}

        @Override
        public void doubles(byte[] a, int p, double[] dst, int off, int n) {}

        @Override
        public void ints(byte[] a, int p, int[] dst, int off, int n) {}

        @Override
        public void longs(byte[] a, int p, long[] dst, int off, int n) {}
      };

  @Test
  void simdWhenModulePresentAndPropertyTrue() {
    for (String property : new String[] {"true", "TRUE", "True"}) {
      assertSame(FAKE, BulkCopy.select(true, property, () -> FAKE), String.valueOf(property));
    }
  }

  /** Opt-in: without -Dio.cqlrows.simd=true the module alone does not turn SIMD on. */
  @Test
  void anyPropertyButTrueMeansPortable() {
    for (String property : new String[] {null, "", "false", "FALSE", "yes", "0"}) {
      AtomicInteger loads = new AtomicInteger();
      assertSame(
          BulkCopy.PORTABLE,
          BulkCopy.select(
              true,
              property,
              () -> {
                loads.incrementAndGet();
                return FAKE;
              }),
          String.valueOf(property));
      assertEquals(0, loads.get(), "the SIMD class is not even loaded");
    }
  }

  @Test
  void moduleAbsentMeansPortableWithoutLoading() {
    assertSame(
        BulkCopy.PORTABLE,
        BulkCopy.select(
            false,
            "true",
            () -> {
              throw new AssertionError("loaded without the module");
            }));
  }

  @Test
  void anyFailureToLoadMeansPortable() {
    Supplier<BulkCopy.Copier> linkage =
        () -> {
          throw new NoClassDefFoundError("jdk/incubator/vector/FloatVector");
        };
    Supplier<BulkCopy.Copier> init =
        () -> {
          throw new ExceptionInInitializerError(new UnsupportedOperationException("no 256-bit"));
        };
    Supplier<BulkCopy.Copier> runtime =
        () -> {
          throw new IllegalStateException("cannot load");
        };
    for (Supplier<BulkCopy.Copier> s : java.util.List.of(linkage, init, runtime, () -> null)) {
      assertSame(BulkCopy.PORTABLE, BulkCopy.select(true, null, s));
    }
  }
}
