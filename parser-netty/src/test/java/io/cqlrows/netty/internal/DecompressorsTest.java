package io.cqlrows.netty.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.cqlrows.netty.internal.CompressionException.Fault;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.compression.Snappy;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DecompressorsTest {
  private static final int MB = 1024 * 1024;
  private static final int LIMIT = 16 * MB;

  /** 100 MB of zeros as one LZ4 block (about 400 KB), made once. */
  private static byte[] zerosBomb;

  private final RecordingAllocator alloc = new RecordingAllocator();

  @BeforeAll
  static void loadCodecsBeforeMeasuringAllocation() {
    // class initialization (lz4-java's native library, Snappy) must not count as allocation
    byte[] block = lz4(new byte[100]);
    Decompressors.lz4Block(ByteBufAllocator.DEFAULT, Unpooled.wrappedBuffer(block), 100).release();
    Decompressors.snappyBody(
            ByteBufAllocator.DEFAULT, Unpooled.wrappedBuffer(snappy(new byte[100])), 100)
        .release();
  }

  @AfterEach
  void everyBufferTheDecompressorsAllocatedIsReleased() {
    alloc.assertAllReleased();
  }

  @Test
  void decompressesAnLz4Body() {
    byte[] data = sample(20_000, 1);
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(data.length, lz4(data)));
    ByteBuf out = Decompressors.lz4Body(alloc, in, LIMIT);
    assertArrayEquals(data, ByteBufUtil.getBytes(out));
    assertEquals(0, in.readerIndex(), "the input is borrowed, not read");
    assertTrue(out.release());
    assertTrue(in.release());
  }

  @Test
  void decompressesAnEmptyLz4Body() {
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(0, lz4(new byte[0])));
    ByteBuf out = Decompressors.lz4Body(alloc, in, LIMIT);
    assertEquals(0, out.readableBytes());
    release(out);
  }

  @Test
  void decompressesAnLz4BlockInAComposite() {
    byte[] data = sample(5000, 2);
    byte[] block = lz4(data);
    ByteBuf in =
        Unpooled.wrappedBuffer(
            Unpooled.wrappedBuffer(block, 0, 10),
            Unpooled.wrappedBuffer(block, 10, block.length - 10));
    ByteBuf out = Decompressors.lz4Block(alloc, in, data.length);
    assertArrayEquals(data, ByteBufUtil.getBytes(out));
    assertTrue(out.release());
    assertTrue(in.release());
  }

  @Test
  void rejectsAnLz4BodyWithoutItsLength() {
    ByteBuf in = Unpooled.wrappedBuffer(new byte[] {0, 0, 1});
    CompressionException e =
        assertThrows(CompressionException.class, () -> Decompressors.lz4Body(alloc, in, LIMIT));
    assertEquals(Fault.NO_LENGTH, e.fault());
    assertEquals(-1, e.declaredLength());
  }

  @Test
  void rejectsADeclaredLz4LengthOverTheLimitWithoutAllocating() {
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(Integer.MAX_VALUE, lz4(new byte[100])));
    long allocated =
        allocatedBytes(
            () ->
                assertThrows(
                    CompressionException.class,
                    () -> Decompressors.lz4Body(alloc, in, Integer.MAX_VALUE - 1)));
    assertTrue(allocated < MB, allocated + " bytes allocated");
    assertTrue(alloc.made.isEmpty());
  }

  @Test
  void rejectsADeclaredLz4LengthNoBlockThatShortCanReachWithoutAllocating() {
    // LZ4 expands at most 255 times: an 11-byte block cannot make 2806 bytes
    byte[] block = lz4(new byte[100]);
    assertEquals(11, block.length);
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(11 * 255 + 1, block));
    long allocated =
        allocatedBytes(
            () ->
                assertEquals(
                    Fault.IMPOSSIBLE_RATIO,
                    assertThrows(
                            CompressionException.class,
                            () -> Decompressors.lz4Body(alloc, in, 256 * MB))
                        .fault()));
    assertTrue(allocated < MB, allocated + " bytes allocated");
    assertTrue(alloc.made.isEmpty());
    // over the limit too: the lie is what is reported
    ByteBuf big = Unpooled.wrappedBuffer(lz4Body(200 * MB, block));
    allocated =
        allocatedBytes(
            () ->
                assertEquals(
                    Fault.IMPOSSIBLE_RATIO,
                    assertThrows(
                            CompressionException.class,
                            () -> Decompressors.lz4Body(alloc, big, 16 * MB))
                        .fault()));
    assertTrue(allocated < MB, allocated + " bytes allocated");
    assertTrue(alloc.made.isEmpty());
  }

  @Test
  void decompressesABlockNearTheLargestRatio() {
    byte[] zeros = new byte[4 * MB];
    byte[] block = lz4(zeros);
    assertTrue(zeros.length > 254L * block.length, "ratio " + zeros.length / block.length);
    ByteBuf out = Decompressors.lz4Block(alloc, Unpooled.wrappedBuffer(block), zeros.length);
    assertEquals(zeros.length, out.readableBytes());
    assertTrue(out.release());
  }

  /** The length is unsigned: its top bit set declares 2 GiB or more, which 11 bytes cannot make. */
  @ParameterizedTest
  @ValueSource(ints = {-1, Integer.MIN_VALUE})
  void readsTheDeclaredLz4LengthUnsigned(int declared) {
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(declared, lz4(new byte[100])));
    CompressionException e =
        assertThrows(CompressionException.class, () -> Decompressors.lz4Body(alloc, in, LIMIT));
    assertEquals(Fault.IMPOSSIBLE_RATIO, e.fault());
    assertEquals(Integer.toUnsignedLong(declared), e.declaredLength());
    assertTrue(alloc.made.isEmpty());
  }

  @Test
  void decompressesAnLz4BodyOfExactlyTheLimit() {
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(LIMIT, lz4(new byte[LIMIT])));
    ByteBuf out = Decompressors.lz4Body(alloc, in, LIMIT);
    assertEquals(LIMIT, out.readableBytes());
    assertTrue(out.release());
  }

  /** A length the block could reach, one byte over the limit: no buffer of it is allocated. */
  @Test
  void rejectsAnLz4LengthOverTheLimitThatTheBlockCouldReachWithoutAllocating() {
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(LIMIT + 1, lz4(new byte[LIMIT + 1])));
    long allocated =
        allocatedBytes(
            () -> {
              CompressionException e =
                  assertThrows(
                      CompressionException.class, () -> Decompressors.lz4Body(alloc, in, LIMIT));
              assertEquals(Fault.LENGTH_OVER_LIMIT, e.fault());
              assertEquals(LIMIT + 1, e.declaredLength());
            });
    assertTrue(allocated < MB, allocated + " bytes allocated");
    assertTrue(alloc.made.isEmpty());
  }

  @ParameterizedTest
  @ValueSource(ints = {-1000, -1, 1, 1000})
  void rejectsAnLz4LengthThatIsALie(int lie) {
    byte[] data = sample(5000, 3);
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(data.length + lie, lz4(data)));
    assertThrows(CompressionException.class, () -> Decompressors.lz4Body(alloc, in, LIMIT));
    assertEquals(1, alloc.made.size(), "only the declared length was allocated");
  }

  @Test
  void rejectsATruncatedLz4Block() {
    byte[] data = sample(5000, 4);
    byte[] block = lz4(data);
    for (int cut : new int[] {0, 1, block.length / 2, block.length - 1}) {
      ByteBuf in = Unpooled.wrappedBuffer(lz4Body(data.length, Arrays.copyOf(block, cut)));
      assertThrows(
          CompressionException.class,
          () -> Decompressors.lz4Body(alloc, in, LIMIT),
          "cut at " + cut);
    }
  }

  @Test
  void rejectsAnLz4BlockWithTrailingGarbage() {
    byte[] data = sample(5000, 5);
    byte[] block = lz4(data);
    byte[] longer = Arrays.copyOf(block, block.length + 3);
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(data.length, longer));
    assertThrows(CompressionException.class, () -> Decompressors.lz4Body(alloc, in, LIMIT));
  }

  @Test
  void rejectsAnLz4MatchBeforeTheStartOfTheOutput() {
    // token: 0 literals, match length 4; match offset 1 with nothing written yet
    ByteBuf in = Unpooled.wrappedBuffer(new byte[] {0x00, 0x01, 0x00, 0x00});
    assertThrows(CompressionException.class, () -> Decompressors.lz4Block(alloc, in, 4));
  }

  @Test
  void rejectsAnLz4DecompressionBombByItsDeclaredLengthWithoutAllocating() {
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(100 * MB, zerosBomb()));
    assertTrue(in.readableBytes() < MB, "the bomb is small: " + in.readableBytes());
    long allocated =
        allocatedBytes(
            () ->
                assertThrows(
                    CompressionException.class, () -> Decompressors.lz4Body(alloc, in, LIMIT)));
    assertTrue(allocated < MB, allocated + " bytes allocated");
    assertTrue(alloc.made.isEmpty());
  }

  @Test
  void stopsAnLz4DecompressionBombThatLiesAboutItsLengthAtTheDeclaredLength() {
    ByteBuf in = Unpooled.wrappedBuffer(lz4Body(LIMIT, zerosBomb()));
    long allocated =
        allocatedBytes(
            () ->
                assertThrows(
                    CompressionException.class, () -> Decompressors.lz4Body(alloc, in, LIMIT)));
    assertTrue(allocated < LIMIT + MB, allocated + " bytes allocated");
  }

  @Test
  void decompressesASnappyBody() {
    byte[] data = sample(20_000, 6);
    ByteBuf in = Unpooled.wrappedBuffer(snappy(data));
    ByteBuf out = Decompressors.snappyBody(alloc, in, LIMIT);
    assertArrayEquals(data, ByteBufUtil.getBytes(out));
    assertEquals(0, in.readerIndex(), "the input is borrowed, not read");
    assertTrue(out.release());
  }

  @Test
  void decompressesAnEmptySnappyBody() {
    ByteBuf out = Decompressors.snappyBody(alloc, Unpooled.wrappedBuffer(new byte[] {0}), LIMIT);
    assertEquals(0, out.readableBytes());
    release(out);
  }

  @Test
  void decompressesASnappyBodyOfExactlyTheLimit() {
    byte[] data = sample(MB, 12);
    ByteBuf out = Decompressors.snappyBody(alloc, Unpooled.wrappedBuffer(snappy(data)), MB);
    assertEquals(MB, out.readableBytes());
    assertTrue(out.release());
  }

  @Test
  void rejectsASnappyBodyOverTheLimitWithoutAllocating() {
    ByteBuf in = Unpooled.wrappedBuffer(snappy(new byte[MB + 1]));
    long allocated =
        allocatedBytes(
            () -> {
              CompressionException e =
                  assertThrows(
                      CompressionException.class, () -> Decompressors.snappyBody(alloc, in, MB));
              assertEquals(Fault.LENGTH_OVER_LIMIT, e.fault());
              assertEquals(MB + 1, e.declaredLength());
            });
    assertTrue(allocated < MB / 2, allocated + " bytes allocated");
    assertTrue(alloc.made.isEmpty());
  }

  /** Up to 2^35 - 1 in five bytes, read as such: never wrapped into a small or negative int. */
  @ParameterizedTest
  @ValueSource(strings = {"ffffff7f" + "0061", "8080808010" + "0061", "ffffffff0f" + "0061"})
  void rejectsASnappyPreambleNoBlockThatShortCanReachWithoutAllocating(String hex) {
    ByteBuf in = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex));
    long allocated =
        allocatedBytes(
            () -> {
              CompressionException e =
                  assertThrows(
                      CompressionException.class,
                      () -> Decompressors.snappyBody(alloc, in, Integer.MAX_VALUE));
              assertEquals(Fault.IMPOSSIBLE_RATIO, e.fault());
              assertTrue(e.declaredLength() >= 268435455, "declared " + e.declaredLength());
            });
    assertTrue(allocated < MB, allocated + " bytes allocated");
    assertTrue(alloc.made.isEmpty());
  }

  @Test
  void rejectsADeclaredSnappyLengthNoBlockThatShortCanReachWithoutAllocating() {
    // varint 200 MiB, then a literal and copies: 12 bytes of Snappy make at most 256 bytes
    ByteBuf in =
        Unpooled.wrappedBuffer(
            ByteBufUtil.decodeHexDump("80808064" + "0061" + "fe0100" + "fe0100"));
    long allocated =
        allocatedBytes(
            () ->
                assertThrows(
                    CompressionException.class,
                    () -> Decompressors.snappyBody(alloc, in, 256 * MB)));
    assertTrue(allocated < MB, allocated + " bytes allocated");
    assertTrue(alloc.made.isEmpty());
  }

  @Test
  void decompressesASnappyBlockNearTheLargestRatio() {
    byte[] zeros = new byte[MB];
    byte[] block = snappy(zeros);
    assertTrue(zeros.length > 21L * block.length, "ratio " + zeros.length / block.length);
    ByteBuf out = Decompressors.snappyBody(alloc, Unpooled.wrappedBuffer(block), MB);
    assertEquals(zeros.length, out.readableBytes());
    assertTrue(out.release());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "80", "ffff", "80808080100061", "ffffffff0f0061", "ffffffffff01"})
  void rejectsAMalformedSnappyPreamble(String hex) {
    ByteBuf in = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex));
    assertThrows(CompressionException.class, () -> Decompressors.snappyBody(alloc, in, LIMIT));
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 1})
  void rejectsASnappyLengthThatIsALie(int lie) {
    byte[] data = sample(300, 7);
    byte[] block = snappy(data);
    // re-encode the preamble (300 = ac 02) with the lie
    assertEquals("ac02", ByteBufUtil.hexDump(block, 0, 2));
    int declared = data.length + lie;
    block[0] = (byte) (0x80 | (declared & 0x7F));
    block[1] = (byte) (declared >>> 7);
    ByteBuf in = Unpooled.wrappedBuffer(block);
    assertThrows(CompressionException.class, () -> Decompressors.snappyBody(alloc, in, LIMIT));
  }

  @ParameterizedTest
  @ValueSource(strings = {"00" + "61", "8000" + "0061", "02" + "04aabb" + "f001", "00" + "0561"})
  void rejectsSnappyBytesBeyondTheDeclaredLength(String hex) {
    // length 0 (twice) and a literal tag; length 2, the literal "aabb", then the start of a
    // literal; length 0, then a copy whose offset byte is missing
    ByteBuf in = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex));
    assertThrows(CompressionException.class, () -> Decompressors.snappyBody(alloc, in, LIMIT));
  }

  @Test
  void rejectsATruncatedSnappyBlock() {
    byte[] block = snappy(sample(3000, 8));
    for (int cut : new int[] {2, 3, block.length / 2, block.length - 1}) {
      ByteBuf in = Unpooled.wrappedBuffer(Arrays.copyOf(block, cut));
      assertThrows(
          CompressionException.class,
          () -> Decompressors.snappyBody(alloc, in, LIMIT),
          "cut at " + cut);
    }
  }

  @Test
  void rejectsASnappyCopyBeforeTheStartOfTheOutput() {
    // length 8; copy with 1-byte offset 5, length 4, before anything was written
    ByteBuf in = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump("08" + "0105"));
    assertThrows(CompressionException.class, () -> Decompressors.snappyBody(alloc, in, LIMIT));
  }

  @Test
  void throwsOnlyCompressionExceptionForRandomLz4Bodies() {
    byte[] valid = lz4Body(4000, lz4(sample(4000, 9)));
    fuzz(valid, in -> Decompressors.lz4Body(alloc, in, 64 * 1024));
  }

  @Test
  void throwsOnlyCompressionExceptionForRandomLz4Blocks() {
    byte[] valid = lz4(sample(4000, 10));
    fuzz(valid, in -> Decompressors.lz4Block(alloc, in, 4000));
  }

  @Test
  void throwsOnlyCompressionExceptionForRandomSnappyBodies() {
    byte[] valid = snappy(sample(4000, 11));
    fuzz(valid, in -> Decompressors.snappyBody(alloc, in, 64 * 1024));
  }

  /**
   * Feeds 300 random inputs: pure noise, and a valid input with a few bytes changed or cut short.
   * Any outcome but a buffer or a {@link CompressionException} fails; the input must be left
   * untouched, and every buffer is released.
   */
  private void fuzz(byte[] valid, Function<ByteBuf, ByteBuf> decompress) {
    int failures = 0;
    for (int seed = 0; seed < 300; seed++) {
      Random random = new Random(seed);
      byte[] input =
          switch (seed % 3) {
            case 0 -> noise(random);
            case 1 -> mutate(valid, random);
            default -> Arrays.copyOf(mutate(valid, random), random.nextInt(valid.length));
          };
      ByteBuf in = Unpooled.wrappedBuffer(input);
      try {
        release(decompress.apply(in));
      } catch (CompressionException e) {
        failures++;
      } catch (Throwable t) {
        fail("seed " + seed + ": " + t, t);
      }
      assertEquals(0, in.readerIndex(), "seed " + seed);
      assertEquals(1, in.refCnt(), "seed " + seed);
    }
    assertTrue(failures > 200, failures + " of 300 failed");
  }

  private static byte[] noise(Random random) {
    byte[] bytes = new byte[random.nextInt(200)];
    random.nextBytes(bytes);
    if (bytes.length > 4 && random.nextBoolean()) {
      // a small plausible length, so that the block itself is decoded
      bytes[0] = 0;
      bytes[1] = 0;
      bytes[2] = (byte) random.nextInt(4);
      bytes[3] = (byte) random.nextInt(256);
    }
    return bytes;
  }

  private static byte[] mutate(byte[] valid, Random random) {
    byte[] copy = valid.clone();
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      copy[random.nextInt(copy.length)] = (byte) random.nextInt(256);
    }
    return copy;
  }

  /**
   * Releases a decompressed buffer, which must not be retained elsewhere. An empty one may be the
   * allocator's shared empty buffer, which is never freed.
   */
  private static void release(ByteBuf out) {
    if (out.capacity() == 0) {
      out.release();
    } else {
      assertTrue(out.release());
    }
  }

  /** Bytes the current thread allocated while running {@code action}. */
  private static long allocatedBytes(Runnable action) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    action.run();
    return threads.getCurrentThreadAllocatedBytes() - before;
  }

  /** Compressible test data: words from a small vocabulary, some random bytes. */
  private static byte[] sample(int length, long seed) {
    Random random = new Random(seed);
    String[] words = {"vector", "float", "cassandra ", "row ", "\u0000\u0000\u0000\u0004"};
    byte[] out = new byte[length];
    for (int i = 0; i < length; ) {
      byte[] w =
          random.nextInt(5) == 0
              ? new byte[] {(byte) random.nextInt()}
              : words[random.nextInt(words.length)].getBytes(StandardCharsets.UTF_8);
      for (int j = 0; j < w.length && i < length; j++) {
        out[i++] = w[j];
      }
    }
    return out;
  }

  private static byte[] lz4(byte[] data) {
    return LZ4Factory.fastestInstance().fastCompressor().compress(data);
  }

  /** A v4 LZ4 body: 4-byte big-endian uncompressed length, then the block. */
  private static byte[] lz4Body(int declaredLength, byte[] block) {
    ByteBuf buf = Unpooled.buffer(4 + block.length).writeInt(declaredLength).writeBytes(block);
    return ByteBufUtil.getBytes(buf);
  }

  private static byte[] snappy(byte[] data) {
    ByteBuf in = Unpooled.wrappedBuffer(data);
    ByteBuf out = Unpooled.buffer();
    new Snappy().encode(in, out, data.length);
    byte[] bytes = ByteBufUtil.getBytes(out);
    out.release();
    return bytes;
  }

  private static synchronized byte[] zerosBomb() {
    if (zerosBomb == null) {
      zerosBomb = lz4(new byte[100 * MB]);
    }
    return zerosBomb;
  }

  /** An allocator that keeps every buffer it made, to check that all were released. */
  private static final class RecordingAllocator extends AbstractByteBufAllocator {
    final List<ByteBuf> made = new ArrayList<>();

    RecordingAllocator() {
      super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      ByteBuf buf = UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
      made.add(buf);
      return buf;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      ByteBuf buf = UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
      made.add(buf);
      return buf;
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }

    void assertAllReleased() {
      for (int i = 0; i < made.size(); i++) {
        assertEquals(0, made.get(i).refCnt(), "buffer " + i + " of " + made.size());
      }
    }
  }
}
