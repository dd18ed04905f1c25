package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.nio.ByteOrder;
import java.util.function.Supplier;

/**
 * Big-endian bulk copies from a buffer into primitive arrays: the vector fast path.
 *
 * <p>Heap buffers go to a {@link Copier} over their {@code byte[]}; other buffers (direct,
 * composite, read-only) through a big-endian NIO view's bulk {@code get}, a native swapping copy.
 * Callers have checked the bounds.
 *
 * <p>Three copiers. The portable one ({@link #PORTABLE}), always there: {@link ScalarCopy}, or on
 * JDK 25 and later {@link NativeSwapCopy} (the same loops, but long float vectors through the JDK's
 * native swapping copy, which is faster there). And {@code SimdCopy}, which uses the incubating
 * Vector API ({@code jdk.incubator.vector}). {@code SimdCopy} lives in {@code src/main/java-simd},
 * compiled by its own javac run with {@code --add-modules jdk.incubator.vector}, so nothing else
 * here needs that module; this class never names it and only loads it by reflection once the module
 * is known to be in the boot layer. A copier sees only arrays, never a {@code ByteBuf}: its
 * compiled code does not depend on which buffer classes have come by, so new ones (which deoptimise
 * the code around them) never throw the SIMD loop back to the interpreter, where the Vector API is
 * slow and allocates.
 *
 * <p>The choice is made once, when this class is initialised, into {@link #COPIER}: a static final
 * the JIT treats as a constant, so every call below inlines to the chosen implementation with no
 * test on the hot path. {@link VectorCopy} tells users which copier is in use, and how to choose.
 */
final class BulkCopy {
  /** The four copies: {@code n} big-endian elements at {@code a[p..]} into {@code dst[off..]}. */
  interface Copier {
    void floats(byte[] a, int p, float[] dst, int off, int n);

    void doubles(byte[] a, int p, double[] dst, int off, int n);

    void ints(byte[] a, int p, int[] dst, int off, int n);

    void longs(byte[] a, int p, long[] dst, int off, int n);
  }

  /**
   * The system property that turns the SIMD path on: {@code true} (in any case) selects it when the
   * module is in the boot layer; unset or any other value leaves the portable copier.
   */
  static final String PROPERTY = "io.cqlrows.simd";

  /** The module the SIMD path needs in the boot layer. */
  static final String MODULE = "jdk.incubator.vector";

  /** Compiled from {@code src/main/java-simd}; named, never referenced. */
  static final String SIMD_CLASS = "io.cqlrows.core.SimdCopy";

  /** The copier without the Vector API on this JDK. */
  static final Copier PORTABLE = portable(Runtime.version().feature());

  /** The implementation in use, chosen once. */
  static final Copier COPIER =
      select(ModuleLayer.boot().findModule(MODULE).isPresent(), property(), BulkCopy::loadSimd);

  private BulkCopy() {}

  static void floats(ByteBuf buf, int index, float[] dst, int off, int n) {
    floats(COPIER, buf, index, dst, off, n);
  }

  static void doubles(ByteBuf buf, int index, double[] dst, int off, int n) {
    doubles(COPIER, buf, index, dst, off, n);
  }

  static void ints(ByteBuf buf, int index, int[] dst, int off, int n) {
    ints(COPIER, buf, index, dst, off, n);
  }

  static void longs(ByteBuf buf, int index, long[] dst, int off, int n) {
    longs(COPIER, buf, index, dst, off, n);
  }

  // ---- with a given copier: the tests compare them ----

  static void floats(Copier c, ByteBuf buf, int index, float[] dst, int off, int n) {
    if (buf.hasArray()) {
      c.floats(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else {
      buf.nioBuffer(index, n * 4).order(ByteOrder.BIG_ENDIAN).asFloatBuffer().get(dst, off, n);
    }
  }

  static void doubles(Copier c, ByteBuf buf, int index, double[] dst, int off, int n) {
    if (buf.hasArray()) {
      c.doubles(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else {
      buf.nioBuffer(index, n * 8).order(ByteOrder.BIG_ENDIAN).asDoubleBuffer().get(dst, off, n);
    }
  }

  static void ints(Copier c, ByteBuf buf, int index, int[] dst, int off, int n) {
    if (buf.hasArray()) {
      c.ints(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else {
      buf.nioBuffer(index, n * 4).order(ByteOrder.BIG_ENDIAN).asIntBuffer().get(dst, off, n);
    }
  }

  static void longs(Copier c, ByteBuf buf, int index, long[] dst, int off, int n) {
    if (buf.hasArray()) {
      c.longs(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else {
      buf.nioBuffer(index, n * 8).order(ByteOrder.BIG_ENDIAN).asLongBuffer().get(dst, off, n);
    }
  }

  /** Whether {@link #COPIER} is the SIMD implementation. */
  static boolean simd() {
    return COPIER != PORTABLE;
  }

  /** The portable copier of a JDK feature release: see {@link NativeSwapCopy} for why. */
  static Copier portable(int jdkFeature) {
    return jdkFeature >= NativeSwapCopy.FROM_JDK ? NativeSwapCopy.INSTANCE : ScalarCopy.INSTANCE;
  }

  /**
   * The SIMD copier if the module is present, the property is {@code true} (in any case) and {@code
   * simd} loads it; otherwise {@link #PORTABLE}. Whatever {@code simd} throws (a {@link
   * LinkageError} when the module is missing after all, an unsupported CPU, ...) means portable.
   * Opt-in on every JDK, for the reasons {@link VectorCopy} gives.
   */
  static Copier select(boolean modulePresent, String property, Supplier<Copier> simd) {
    if (!modulePresent || !"true".equalsIgnoreCase(property)) {
      return PORTABLE;
    }
    try {
      Copier copier = simd.get();
      return copier != null ? copier : PORTABLE;
    } catch (Throwable t) {
      return PORTABLE;
    }
  }

  private static String property() {
    try {
      return System.getProperty(PROPERTY);
    } catch (SecurityException e) {
      return null;
    }
  }

  /**
   * Loads {@code SimdCopy} and returns its copier for this CPU ({@code SimdCopy.copier()}, which
   * checks the CPU and runs a self-check). Throws if it cannot; only call with the module in the
   * boot layer.
   */
  static Copier loadSimd() {
    try {
      Class<?> c = Class.forName(SIMD_CLASS, true, BulkCopy.class.getClassLoader());
      return (Copier) c.getDeclaredMethod("copier").invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot load " + SIMD_CLASS, e);
    }
  }
}
