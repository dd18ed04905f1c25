package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Which copy path is active ({@link VectorCopy}, {@link BulkCopy}), and how it is chosen.
 *
 * <p>Surefire runs this class twice (see parser-core's pom): with {@code --add-modules
 * jdk.incubator.vector} and {@code -Dio.cqlrows.test.simd=true}, and without the module and
 * {@code -Dio.cqlrows.test.simd=false}. {@link #activePathIsTheOneThisJvmWasConfiguredFor} fails
 * if the path is not the expected one, or if the property is missing, so a misconfigured build
 * cannot test the scalar path twice.
 */
class VectorCopyPathTest {
  /** What the surefire execution expects: {@code true} for SIMD, {@code false} for scalar. */
  static boolean expectSimd() {
    String expected = System.getProperty("io.cqlrows.test.simd");
    if (expected == null) {
      fail("io.cqlrows.test.simd is not set: run the tests through Maven (parser-core's pom sets"
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
    String copier = BulkCopy.COPIER.getClass().getName();
    if (expected) {
      assertTrue(copier.startsWith(BulkCopy.SIMD_CLASS + "$Bits"), copier);
    } else {
      assertEquals(ScalarCopy.class.getName(), copier);
    }
  }

  /** {@code SimdCopy.forBits(bits)}, by reflection: the test code does not compile against it. */
  static BulkCopy.Copier simdForBits(int bits) {
    try {
      return (BulkCopy.Copier) Class.forName(BulkCopy.SIMD_CLASS)
          .getDeclaredMethod("forBits", int.class).invoke(null, bits);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
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
      assertSame(ScalarCopy.INSTANCE, BulkCopy.select(true, null, BulkCopy::loadSimd));
    }
  }

  // ---- the selection rule, with a stand-in for the SIMD copier ----

  private static final BulkCopy.Copier FAKE = new BulkCopy.Copier() {
    @Override
    public void floats(ByteBuf buf, int index, float[] dst, int off, int n) {}

    @Override
    public void doubles(ByteBuf buf, int index, double[] dst, int off, int n) {}

    @Override
    public void ints(ByteBuf buf, int index, int[] dst, int off, int n) {}

    @Override
    public void longs(ByteBuf buf, int index, long[] dst, int off, int n) {}
  };

  @Test
  void simdWhenModulePresentAndPropertyNotFalse() {
    for (String property : new String[] {null, "", "true", "yes", "0"}) {
      assertSame(FAKE, BulkCopy.select(true, property, () -> FAKE), String.valueOf(property));
    }
  }

  @Test
  void propertyFalseForcesScalar() {
    for (String property : new String[] {"false", "FALSE", "False"}) {
      AtomicInteger loads = new AtomicInteger();
      assertSame(ScalarCopy.INSTANCE, BulkCopy.select(true, property, () -> {
        loads.incrementAndGet();
        return FAKE;
      }), property);
      assertEquals(0, loads.get(), "the SIMD class is not even loaded");
    }
  }

  @Test
  void moduleAbsentMeansScalarWithoutLoading() {
    assertSame(ScalarCopy.INSTANCE, BulkCopy.select(false, null, () -> {
      throw new AssertionError("loaded without the module");
    }));
  }

  @Test
  void anyFailureToLoadMeansScalar() {
    Supplier<BulkCopy.Copier> linkage = () -> {
      throw new NoClassDefFoundError("jdk/incubator/vector/FloatVector");
    };
    Supplier<BulkCopy.Copier> init = () -> {
      throw new ExceptionInInitializerError(new UnsupportedOperationException("no 256-bit"));
    };
    Supplier<BulkCopy.Copier> runtime = () -> {
      throw new IllegalStateException("cannot load");
    };
    for (Supplier<BulkCopy.Copier> s : java.util.List.of(linkage, init, runtime, () -> null)) {
      assertSame(ScalarCopy.INSTANCE, BulkCopy.select(true, null, s));
    }
  }
}
