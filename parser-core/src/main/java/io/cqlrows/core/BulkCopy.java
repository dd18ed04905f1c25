package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Big-endian bulk copies from a buffer into primitive arrays: the vector fast path.
 *
 * <p>Heap buffers are read through byte-array view {@link VarHandle}s, which the JIT compiles to
 * plain loads with a byte swap; other buffers go through a big-endian NIO view's bulk {@code get}.
 * Callers have checked the bounds.
 */
final class BulkCopy {
  private static final VarHandle FLOAT_BE =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle DOUBLE_BE =
      MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT_BE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private BulkCopy() {}

  static void floats(ByteBuf buf, int index, float[] dst, int off, int n) {
    if (buf.hasArray()) {
      byte[] a = buf.array();
      int p = buf.arrayOffset() + index;
      for (int i = 0; i < n; i++, p += 4) {
        dst[off + i] = (float) FLOAT_BE.get(a, p);
      }
    } else {
      buf.nioBuffer(index, n * 4).order(ByteOrder.BIG_ENDIAN).asFloatBuffer().get(dst, off, n);
    }
  }

  static void doubles(ByteBuf buf, int index, double[] dst, int off, int n) {
    if (buf.hasArray()) {
      byte[] a = buf.array();
      int p = buf.arrayOffset() + index;
      for (int i = 0; i < n; i++, p += 8) {
        dst[off + i] = (double) DOUBLE_BE.get(a, p);
      }
    } else {
      buf.nioBuffer(index, n * 8).order(ByteOrder.BIG_ENDIAN).asDoubleBuffer().get(dst, off, n);
    }
  }

  static void ints(ByteBuf buf, int index, int[] dst, int off, int n) {
    if (buf.hasArray()) {
      byte[] a = buf.array();
      int p = buf.arrayOffset() + index;
      for (int i = 0; i < n; i++, p += 4) {
        dst[off + i] = (int) INT_BE.get(a, p);
      }
    } else {
      buf.nioBuffer(index, n * 4).order(ByteOrder.BIG_ENDIAN).asIntBuffer().get(dst, off, n);
    }
  }

  static void longs(ByteBuf buf, int index, long[] dst, int off, int n) {
    if (buf.hasArray()) {
      byte[] a = buf.array();
      int p = buf.arrayOffset() + index;
      for (int i = 0; i < n; i++, p += 8) {
        dst[off + i] = (long) LONG_BE.get(a, p);
      }
    } else {
      buf.nioBuffer(index, n * 8).order(ByteOrder.BIG_ENDIAN).asLongBuffer().get(dst, off, n);
    }
  }
}
