package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The portable {@link BulkCopy.Copier}: always available, and the fallback when the Vector API is
 * not.
 *
 * <p>Heap buffers are read through byte-array view {@link VarHandle}s, which the JIT compiles to
 * plain loads with a byte swap; other buffers go through a big-endian NIO view's bulk {@code get}.
 * Callers have checked the bounds.
 */
final class ScalarCopy implements BulkCopy.Copier {
  static final ScalarCopy INSTANCE = new ScalarCopy();

  private static final VarHandle FLOAT_BE =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle DOUBLE_BE =
      MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT_BE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private ScalarCopy() {}

  @Override
  public void floats(ByteBuf buf, int index, float[] dst, int off, int n) {
    if (buf.hasArray()) {
      floats(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else {
      buf.nioBuffer(index, n * 4).order(ByteOrder.BIG_ENDIAN).asFloatBuffer().get(dst, off, n);
    }
  }

  @Override
  public void doubles(ByteBuf buf, int index, double[] dst, int off, int n) {
    if (buf.hasArray()) {
      doubles(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else {
      buf.nioBuffer(index, n * 8).order(ByteOrder.BIG_ENDIAN).asDoubleBuffer().get(dst, off, n);
    }
  }

  @Override
  public void ints(ByteBuf buf, int index, int[] dst, int off, int n) {
    if (buf.hasArray()) {
      ints(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else {
      buf.nioBuffer(index, n * 4).order(ByteOrder.BIG_ENDIAN).asIntBuffer().get(dst, off, n);
    }
  }

  @Override
  public void longs(ByteBuf buf, int index, long[] dst, int off, int n) {
    if (buf.hasArray()) {
      longs(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else {
      buf.nioBuffer(index, n * 8).order(ByteOrder.BIG_ENDIAN).asLongBuffer().get(dst, off, n);
    }
  }

  // ---- from a byte[] at p: also the SIMD copies' tails ----

  static void floats(byte[] a, int p, float[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 4) {
      dst[off + i] = (float) FLOAT_BE.get(a, p);
    }
  }

  static void doubles(byte[] a, int p, double[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 8) {
      dst[off + i] = (double) DOUBLE_BE.get(a, p);
    }
  }

  static void ints(byte[] a, int p, int[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 4) {
      dst[off + i] = (int) INT_BE.get(a, p);
    }
  }

  static void longs(byte[] a, int p, long[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 8) {
      dst[off + i] = (long) LONG_BE.get(a, p);
    }
  }
}
