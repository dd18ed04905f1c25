package io.cqlrows.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The portable {@link BulkCopy.Copier}: always available, and the fallback when the Vector API is
 * not. Reads through byte-array view {@link VarHandle}s, which the JIT compiles to plain loads with
 * a byte swap. Its static methods are also the SIMD copies' tails.
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
  public void floats(byte[] a, int p, float[] dst, int off, int n) {
    floatLoop(a, p, dst, off, n);
  }

  @Override
  public void doubles(byte[] a, int p, double[] dst, int off, int n) {
    doubleLoop(a, p, dst, off, n);
  }

  @Override
  public void ints(byte[] a, int p, int[] dst, int off, int n) {
    intLoop(a, p, dst, off, n);
  }

  @Override
  public void longs(byte[] a, int p, long[] dst, int off, int n) {
    longLoop(a, p, dst, off, n);
  }

  static void floatLoop(byte[] a, int p, float[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 4) {
      dst[off + i] = (float) FLOAT_BE.get(a, p);
    }
  }

  static void doubleLoop(byte[] a, int p, double[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 8) {
      dst[off + i] = (double) DOUBLE_BE.get(a, p);
    }
  }

  static void intLoop(byte[] a, int p, int[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 4) {
      dst[off + i] = (int) INT_BE.get(a, p);
    }
  }

  static void longLoop(byte[] a, int p, long[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 8) {
      dst[off + i] = (long) LONG_BE.get(a, p);
    }
  }
}
