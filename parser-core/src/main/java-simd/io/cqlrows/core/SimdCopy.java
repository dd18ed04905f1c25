package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;

/** The SIMD {@link BulkCopy.Copier} (see {@link BulkCopy}). */
final class SimdCopy implements BulkCopy.Copier {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
  private static final VectorSpecies<Double> D = DoubleVector.SPECIES_256;
  private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
  private static final VectorSpecies<Long> L = LongVector.SPECIES_256;
  private static final ByteOrder BE = ByteOrder.BIG_ENDIAN;

  SimdCopy() {}

  @Override
  public void floats(ByteBuf buf, int index, float[] dst, int off, int n) {
    if (buf.hasArray()) {
      floats(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else if (buf.nioBufferCount() == 1) {
      floats(buf.nioBuffer(index, n * 4), dst, off, n);
    } else {
      ScalarCopy.INSTANCE.floats(buf, index, dst, off, n);
    }
  }

  @Override
  public void doubles(ByteBuf buf, int index, double[] dst, int off, int n) {
    if (buf.hasArray()) {
      doubles(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else if (buf.nioBufferCount() == 1) {
      doubles(buf.nioBuffer(index, n * 8), dst, off, n);
    } else {
      ScalarCopy.INSTANCE.doubles(buf, index, dst, off, n);
    }
  }

  @Override
  public void ints(ByteBuf buf, int index, int[] dst, int off, int n) {
    if (buf.hasArray()) {
      ints(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else if (buf.nioBufferCount() == 1) {
      ints(buf.nioBuffer(index, n * 4), dst, off, n);
    } else {
      ScalarCopy.INSTANCE.ints(buf, index, dst, off, n);
    }
  }

  @Override
  public void longs(ByteBuf buf, int index, long[] dst, int off, int n) {
    if (buf.hasArray()) {
      longs(buf.array(), buf.arrayOffset() + index, dst, off, n);
    } else if (buf.nioBufferCount() == 1) {
      longs(buf.nioBuffer(index, n * 8), dst, off, n);
    } else {
      ScalarCopy.INSTANCE.longs(buf, index, dst, off, n);
    }
  }

  static void floats(byte[] a, int p, float[] dst, int off, int n) {
    int i = 0;
    for (int bound = F.loopBound(n); i < bound; i += F.length(), p += F.vectorByteSize()) {
      FloatVector.fromByteArray(F, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.floats(a, p, dst, off + i, n - i);
  }

  static void doubles(byte[] a, int p, double[] dst, int off, int n) {
    int i = 0;
    for (int bound = D.loopBound(n); i < bound; i += D.length(), p += D.vectorByteSize()) {
      DoubleVector.fromByteArray(D, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.doubles(a, p, dst, off + i, n - i);
  }

  static void ints(byte[] a, int p, int[] dst, int off, int n) {
    int i = 0;
    for (int bound = I.loopBound(n); i < bound; i += I.length(), p += I.vectorByteSize()) {
      IntVector.fromByteArray(I, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.ints(a, p, dst, off + i, n - i);
  }

  static void longs(byte[] a, int p, long[] dst, int off, int n) {
    int i = 0;
    for (int bound = L.loopBound(n); i < bound; i += L.length(), p += L.vectorByteSize()) {
      LongVector.fromByteArray(L, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.longs(a, p, dst, off + i, n - i);
  }

  static void floats(ByteBuffer b, float[] dst, int off, int n) {
    int i = 0;
    int p = 0;
    for (int bound = F.loopBound(n); i < bound; i += F.length(), p += F.vectorByteSize()) {
      FloatVector.fromByteBuffer(F, b, p, BE).intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 4) {
      dst[off + i] = b.getFloat(p);
    }
  }

  static void doubles(ByteBuffer b, double[] dst, int off, int n) {
    int i = 0;
    int p = 0;
    for (int bound = D.loopBound(n); i < bound; i += D.length(), p += D.vectorByteSize()) {
      DoubleVector.fromByteBuffer(D, b, p, BE).intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 8) {
      dst[off + i] = b.getDouble(p);
    }
  }

  static void ints(ByteBuffer b, int[] dst, int off, int n) {
    int i = 0;
    int p = 0;
    for (int bound = I.loopBound(n); i < bound; i += I.length(), p += I.vectorByteSize()) {
      IntVector.fromByteBuffer(I, b, p, BE).intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 4) {
      dst[off + i] = b.getInt(p);
    }
  }

  static void longs(ByteBuffer b, long[] dst, int off, int n) {
    int i = 0;
    int p = 0;
    for (int bound = L.loopBound(n); i < bound; i += L.length(), p += L.vectorByteSize()) {
      LongVector.fromByteBuffer(L, b, p, BE).intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 8) {
      dst[off + i] = b.getLong(p);
    }
  }
}
