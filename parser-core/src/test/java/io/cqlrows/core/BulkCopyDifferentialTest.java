package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link BulkCopy.Copier}s against the bytes and against each other, bit for bit (raw bits:
 * NaNs keep their payloads, signalling NaNs stay signalling, -0.0, infinities and subnormals
 * survive), for every length 0..300 and a few long ones around {@link NativeSwapCopy}'s threshold,
 * at several source offsets, into the middle of a destination whose other slots must stay
 * untouched, from every kind of buffer the copy distinguishes.
 *
 * <p>{@link ScalarCopy} and {@link NativeSwapCopy} run in every test JVM (the second is the
 * portable copier from JDK 25 on, and works on any JDK); the SIMD copier too in the SIMD test JVM
 * (see {@link VectorCopyPathTest}).
 */
class BulkCopyDifferentialTest {
  private static final int MAX_LENGTH = 300;

  /** Longer copies, also checked: on either side of {@link NativeSwapCopy#MIN_FLOATS}, and more. */
  private static final int[] LONG_LENGTHS = {
    NativeSwapCopy.MIN_FLOATS - 1, NativeSwapCopy.MIN_FLOATS, NativeSwapCopy.MIN_FLOATS + 1, 1536
  };

  /** Elements in a source. */
  private static final int LONGEST = 1536;

  /** Where the first element starts in the source buffer: mostly odd, so unaligned. */
  private static final int[] SOURCE_OFFSETS = {0, 1, 3, 5, 13};

  /** Destination slots before and after the copied range, which must stay as they were. */
  private static final int PAD = 3;

  private static final long SENTINEL_BITS = 0x12345678L;

  private static final int[] SPECIAL_FLOATS = {
    0x7fc00000, 0x7fc00001, 0xffc00000, 0xffbadbad, // quiet NaNs, with payloads
    0x7f800001, 0x7fbfffff, 0xff800001, 0xffffffff, // signalling NaNs, and all ones
    0x7f800000, 0xff800000, 0x80000000, 0x00000000, // +-inf, -0.0, +0.0
    0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, // subnormals, min normal, max
  };
  private static final long[] SPECIAL_DOUBLES = {
    0x7ff8000000000000L, 0x7ff8000000000001L, 0xfff8dead0000beefL, 0x7ff0000000000001L,
    0x7ff7ffffffffffffL, 0xfff0000000000001L, 0xffffffffffffffffL, 0x7ff0000000000000L,
    0xfff0000000000000L, 0x8000000000000000L, 0x0000000000000000L, 0x0000000000000001L,
    0x800fffffffffffffL, 0x0010000000000000L, 0x7fefffffffffffffL, 0x000000007fc00001L,
  };

  enum Element {
    FLOAT(4),
    DOUBLE(8),
    INT(4),
    BIGINT(8);

    final int width;

    Element(int width) {
      this.width = width;
    }

    /**
     * Copies {@code n} elements at {@code index} into a padded destination as {@link BulkCopy} does
     * with this copier (the copier for heap buffers, NIO for the others); its raw bits.
     */
    long[] copy(BulkCopy.Copier copier, ByteBuf buf, int index, int n) {
      long[] bits = new long[n + 2 * PAD];
      switch (this) {
        case FLOAT:
          {
            float[] dst = new float[bits.length];
            Arrays.fill(dst, Float.intBitsToFloat((int) SENTINEL_BITS));
            BulkCopy.floats(copier, buf, index, dst, PAD, n);
            for (int i = 0; i < dst.length; i++) {
              bits[i] = Float.floatToRawIntBits(dst[i]) & 0xffffffffL;
            }
            break;
          }
        case DOUBLE:
          {
            double[] dst = new double[bits.length];
            Arrays.fill(dst, Double.longBitsToDouble(SENTINEL_BITS));
            BulkCopy.doubles(copier, buf, index, dst, PAD, n);
            for (int i = 0; i < dst.length; i++) {
              bits[i] = Double.doubleToRawLongBits(dst[i]);
            }
            break;
          }
        case INT:
          {
            int[] dst = new int[bits.length];
            Arrays.fill(dst, (int) SENTINEL_BITS);
            BulkCopy.ints(copier, buf, index, dst, PAD, n);
            for (int i = 0; i < dst.length; i++) {
              bits[i] = dst[i] & 0xffffffffL;
            }
            break;
          }
        default:
          {
            long[] dst = new long[bits.length];
            Arrays.fill(dst, SENTINEL_BITS);
            BulkCopy.longs(copier, buf, index, dst, PAD, n);
            System.arraycopy(dst, 0, bits, 0, dst.length);
          }
      }
      return bits;
    }

    /** What {@link #copy} must return: the sentinel, the big-endian elements, the sentinel. */
    long[] expected(byte[] src, int index, int n) {
      long[] bits = new long[n + 2 * PAD];
      Arrays.fill(bits, SENTINEL_BITS);
      ByteBuffer b = ByteBuffer.wrap(src); // big-endian
      for (int i = 0; i < n; i++) {
        int at = index + i * width;
        bits[PAD + i] = width == 4 ? b.getInt(at) & 0xffffffffL : b.getLong(at);
      }
      return bits;
    }
  }

  /** Every kind of buffer the copies tell apart, each holding exactly {@code src}. */
  enum Kind {
    HEAP,
    /** A heap buffer over the middle of a larger array: arrayOffset 11. */
    HEAP_ARRAY_OFFSET,
    /** A slice of a heap buffer: arrayOffset 7. */
    HEAP_SLICE,
    /** Pooled heap: a slice of a chunk, arrayOffset usually not 0. */
    POOLED_HEAP,
    /** Read-only heap: no array, a read-only heap NIO buffer. */
    READ_ONLY_HEAP,
    DIRECT,
    /** A slice of a direct buffer at 5. */
    DIRECT_SLICE,
    POOLED_DIRECT,
    READ_ONLY_DIRECT,
    /** One heap component: has an array. */
    COMPOSITE_ONE_HEAP,
    /** One direct component: one NIO buffer. */
    COMPOSITE_ONE_DIRECT,
    /** Heap and direct pieces of 1 to 37 bytes: elements straddle components. */
    COMPOSITE;

    /** {@code src} in a buffer of this kind; the caller owns the buffer and releases it. */
    ByteBuf wrap(byte[] src, Random random) {
      switch (this) {
        case HEAP:
          return Unpooled.wrappedBuffer(src);
        case HEAP_ARRAY_OFFSET:
          {
            byte[] padded = new byte[src.length + 20];
            System.arraycopy(src, 0, padded, 11, src.length);
            ByteBuf buf = Unpooled.wrappedBuffer(padded, 11, src.length);
            assertEquals(11, buf.arrayOffset());
            return buf;
          }
        case HEAP_SLICE:
          {
            byte[] padded = new byte[src.length + 20];
            System.arraycopy(src, 0, padded, 7, src.length);
            ByteBuf buf = Unpooled.wrappedBuffer(padded).slice(7, src.length);
            assertEquals(7, buf.arrayOffset());
            return buf;
          }
        case POOLED_HEAP:
          return PooledByteBufAllocator.DEFAULT.heapBuffer(src.length).writeBytes(src);
        case READ_ONLY_HEAP:
          {
            ByteBuf buf = Unpooled.wrappedBuffer(src).asReadOnly();
            assertFalse(buf.hasArray());
            return buf;
          }
        case DIRECT:
          return Unpooled.directBuffer(src.length).writeBytes(src);
        case DIRECT_SLICE:
          {
            ByteBuf direct = Unpooled.directBuffer(src.length + 10);
            direct.writeZero(5).writeBytes(src).writeZero(5);
            return direct.slice(5, src.length);
          }
        case POOLED_DIRECT:
          return PooledByteBufAllocator.DEFAULT.directBuffer(src.length).writeBytes(src);
        case READ_ONLY_DIRECT:
          return Unpooled.directBuffer(src.length).writeBytes(src).asReadOnly();
        case COMPOSITE_ONE_HEAP:
          {
            CompositeByteBuf c = Unpooled.compositeBuffer();
            c.addComponent(true, Unpooled.wrappedBuffer(src));
            assertTrue(c.hasArray());
            return c;
          }
        case COMPOSITE_ONE_DIRECT:
          {
            CompositeByteBuf c = Unpooled.compositeBuffer();
            c.addComponent(true, Unpooled.directBuffer(src.length).writeBytes(src));
            assertEquals(1, c.nioBufferCount());
            return c;
          }
        default:
          {
            CompositeByteBuf c = Unpooled.compositeBuffer(Integer.MAX_VALUE);
            for (int at = 0; at < src.length; ) {
              int n = Math.min(1 + random.nextInt(37), src.length - at);
              ByteBuf piece =
                  (c.numComponents() & 1) == 0
                      ? Unpooled.wrappedBuffer(src, at, n)
                      : Unpooled.directBuffer(n).writeBytes(src, at, n);
              c.addComponent(true, piece);
              at += n;
            }
            return c;
          }
      }
    }
  }

  /** The copiers of this JVM: the two portable ones, and SIMD when it is active. */
  static List<BulkCopy.Copier> copiers() {
    List<BulkCopy.Copier> copiers = new ArrayList<>();
    copiers.add(ScalarCopy.INSTANCE);
    copiers.add(NativeSwapCopy.INSTANCE);
    if (BulkCopy.simd()) {
      copiers.add(BulkCopy.COPIER);
    }
    assertEquals(VectorCopyPathTest.expectSimd() ? 3 : 2, copiers.size());
    return copiers;
  }

  /**
   * {@code offset} bytes of junk, then {@code LONGEST} elements: special values at even positions
   * (every special appears from about 32 elements on), random bits at odd ones.
   */
  static byte[] source(Element e, int offset, Random random) {
    byte[] src = new byte[offset + LONGEST * e.width + 7];
    random.nextBytes(src);
    byte[] elements = elements(e, LONGEST, random);
    System.arraycopy(elements, 0, src, offset, elements.length);
    return src;
  }

  /** {@code n} big-endian elements: specials at even positions, random bits at odd ones. */
  static byte[] elements(Element e, int n, Random random) {
    ByteBuffer b = ByteBuffer.allocate(n * e.width);
    int start = random.nextInt(SPECIAL_FLOATS.length);
    for (int i = 0; i < n; i++) {
      int s = (start + i / 2) % SPECIAL_FLOATS.length;
      boolean special = (i & 1) == 0;
      if (e.width == 4) {
        b.putInt(special ? SPECIAL_FLOATS[s] : random.nextInt());
      } else {
        b.putLong(special ? SPECIAL_DOUBLES[s] : random.nextLong());
      }
    }
    return b.array();
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Element e : Element.values()) {
      for (Kind k : Kind.values()) {
        cases.add(Arguments.of(e, k));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void everyLengthAndOffsetCopiesTheExactBits(Element element, Kind kind) {
    List<BulkCopy.Copier> copiers = copiers();
    Random random = new Random(element.name().hashCode() * 131L + kind.name().hashCode());
    for (int offset : SOURCE_OFFSETS) {
      byte[] src = source(element, offset, random);
      ByteBuf buf = kind.wrap(src, random);
      try {
        assertEquals(src.length, buf.readableBytes());
        int[] lengths =
            IntStream.concat(IntStream.rangeClosed(0, MAX_LENGTH), IntStream.of(LONG_LENGTHS))
                .toArray();
        for (int n : lengths) {
          long[] expected = element.expected(src, offset, n);
          for (BulkCopy.Copier copier : copiers) {
            long[] got = element.copy(copier, buf, offset, n);
            if (!Arrays.equals(expected, got)) {
              throw new AssertionError(
                  copier.getClass().getSimpleName()
                      + " "
                      + element
                      + " "
                      + kind
                      + " offset "
                      + offset
                      + " length "
                      + n
                      + ": slot "
                      + Arrays.mismatch(expected, got)
                      + " is 0x"
                      + Long.toHexString(got[Arrays.mismatch(expected, got)])
                      + ", expected 0x"
                      + Long.toHexString(expected[Arrays.mismatch(expected, got)]));
            }
          }
        }
      } finally {
        assertTrue(buf.release());
      }
    }
  }

  /**
   * The same comparison many times over, so that the JIT compiles the copies (the Vector API is
   * only intrinsified by C2; before, it runs a plain Java implementation) and the compiled code is
   * checked too, not only the interpreter's.
   */
  @Test
  void compiledCopiesStayIdentical() {
    List<BulkCopy.Copier> copiers = copiers();
    Random random = new Random(42);
    for (Element element : Element.values()) {
      for (Kind kind : new Kind[] {Kind.HEAP_ARRAY_OFFSET, Kind.DIRECT}) {
        byte[] src = source(element, 3, random);
        ByteBuf buf = kind.wrap(src, random);
        try {
          for (int round = 0; round < 15_000; round++) {
            int offset = random.nextInt(8);
            int n = random.nextInt((src.length - offset) / element.width + 1);
            long[] expected = element.expected(src, offset, n);
            for (BulkCopy.Copier copier : copiers) {
              if (!Arrays.equals(expected, element.copy(copier, buf, offset, n))) {
                throw new AssertionError(
                    copier.getClass().getSimpleName()
                        + " "
                        + element
                        + " "
                        + kind
                        + " round "
                        + round
                        + " offset "
                        + offset
                        + " length "
                        + n);
              }
            }
          }
        } finally {
          assertTrue(buf.release());
        }
      }
    }
  }
}
