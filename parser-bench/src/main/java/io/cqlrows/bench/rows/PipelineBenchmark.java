package io.cqlrows.bench.rows;

import io.cqlrows.bench.rows.ServerWire.Encoding;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.internal.Decompressors;
import io.cqlrows.netty.internal.SegmentToFrameDecoder;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The whole client pipeline on one page: the wire bytes of a ROWS response (a v4 frame, a v4 frame
 * with an LZ4 body, v5 segments, v5 LZ4 segments; see {@link ServerWire}) arrive in 64 KiB reads on
 * an {@link EmbeddedChannel} with {@link CqlPipeline} installed, and the {@link RowsFrameHandler}
 * parses the page into a {@link ColumnarSink} with {@code reuseArrays(true)}. One operation = one
 * page, from the first read to the {@link RowsResponse}.
 *
 * <ul>
 *   <li><b>Reads.</b> The wire bytes are cut once per trial into 64 KiB chunks, each its own
 *       buffer: heap ({@code Unpooled}), or with {@code direct=true} direct buffers from {@link
 *       ByteBufAllocator#DEFAULT} (Netty 4.2's adaptive pooled allocator, which a socket channel
 *       reads into by default).
 *   <li><b>No copy of the reads.</b> Each operation writes a {@code retainedDuplicate()} of every
 *       chunk: the decoders own (and release) a reference and their own indices, the bytes are
 *       shared, so the chunks serve every operation. A real socket read also has the kernel's copy
 *       into the read buffer; that copy is <em>not</em> measured here (it is not ours, and {@code
 *       FloorBenchmark.copyBytes} gives its order: one bulk copy of the page). Every copy the
 *       decoders make (cumulation, decompression) is measured.
 *   <li><b>One connection per trial.</b> The channel, its handlers and the sink live for the trial,
 *       as on a connection paging through a table: each operation registers the sink for the stream
 *       ({@link RowsFrameHandler#expect}), writes the reads (one {@code channelRead} and {@code
 *       channelReadComplete} each) and takes the {@link RowsResponse}. v5 channels are switched to
 *       segments once, at setup ({@link CqlPipeline#switchToSegments}).
 * </ul>
 *
 * <p>{@link #lz4DecompressOnly} decompresses the same LZ4 blocks with the same decompressor and
 * allocator as the pipeline, nothing else: the part of the LZ4 figures that is LZ4. {@link
 * #v5Crc32Only} computes the CRC32 that v5 segments carry over every payload of the page: the part
 * of the v5 figures that the checksum costs.
 *
 * <p>Each trial checks in {@code @TearDown} that the sink holds the page (rows, {@code int}
 * checksum, value count, every vector element), that the decoders hold no bytes and the channel no
 * message, and that every chunk is back to the one reference the trial holds.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
@State(Scope.Thread)
public class PipelineBenchmark {
  /** The size of one read. */
  static final int READ_BYTES = 64 * 1024;

  /** One connection: its pipeline, the page as reads, and the sink. */
  @State(Scope.Thread)
  public static class Connection {
    @Param({"VECTOR_1536F", "VECTOR_768F"})
    public RowsShape shape;

    @Param public Encoding encoding;

    /** Reads in direct (pooled) buffers instead of heap buffers. */
    @Param({"false", "true"})
    public boolean direct;

    RowsShape.Page page;
    ByteBuf[] reads;
    EmbeddedChannel channel;
    RowsFrameHandler rows;
    final ColumnarSink sink = new ColumnarSink().reuseArrays(true);
    long pages;

    @Setup(Level.Trial)
    public void setUp() {
      page = shape.page();
      reads = reads(ServerWire.encode(page, encoding), direct);
      channel = new EmbeddedChannel();
      CqlPipeline cql =
          CqlPipeline.install(
              channel.pipeline(),
              encoding.version,
              encoding.lz4 ? Compression.LZ4 : Compression.NONE,
              ParseLimits.defaults(),
              null);
      if (encoding.version >= 5) {
        cql.switchToSegments();
      }
      rows = cql.rows();
    }

    /** One page through the pipeline. */
    RowsResponse read() {
      rows.expect(ServerWire.STREAM_ID, sink);
      for (ByteBuf read : reads) {
        channel.writeInbound(read.retainedDuplicate());
      }
      Object out = channel.readInbound();
      if (!(out instanceof RowsResponse response)) {
        ReferenceCountUtil.release(out);
        throw new IllegalStateException("expected a RowsResponse, got " + out);
      }
      pages++;
      return response;
    }

    @TearDown(Level.Trial)
    public void check() {
      try {
        if (pages > 0) {
          page.checkColumnar("pipeline " + encoding + (direct ? " direct" : " heap"), sink);
        }
        checkDrained();
      } finally {
        release(reads);
      }
    }

    /** No bytes held, no registration or message left; closing the channel finds nothing. */
    private void checkDrained() {
      ChannelPipeline p = channel.pipeline();
      BytesToFrameDecoder frames = p.get(BytesToFrameDecoder.class);
      SegmentToFrameDecoder envelopes = p.get(SegmentToFrameDecoder.class);
      int held =
          (frames == null ? 0 : frames.bufferedBytes())
              + (envelopes == null ? 0 : envelopes.bufferedBytes());
      if (held != 0 || rows.pendingCount() != 0) {
        throw new IllegalStateException(
            "pipeline "
                + encoding
                + ": "
                + held
                + " bytes held by the decoders, "
                + rows.pendingCount()
                + " registrations left");
      }
      // a decoder still holding part of a frame or segment throws here, when the channel closes
      if (channel.finishAndReleaseAll()) {
        throw new IllegalStateException("pipeline " + encoding + ": messages left in the channel");
      }
    }
  }

  @Benchmark
  public RowsResult pipeline(Connection c) {
    return (RowsResult) c.read().result();
  }

  /** The LZ4 blocks of a page's LZ4 encodings, in buffers like the ones the decoders read. */
  @State(Scope.Thread)
  public static class Lz4Blocks {
    @Param({"VECTOR_1536F", "VECTOR_768F"})
    public RowsShape shape;

    /** {@code V4_LZ4}: the one frame body; {@code V5_LZ4}: the payloads of the segments. */
    @Param({"V4_LZ4", "V5_LZ4"})
    public Encoding lz4Encoding;

    RowsShape.Page page;
    List<ServerWire.Block> list;
    ByteBuf[] blocks;
    int[] lengths;
    long decompressed;

    @Setup(Level.Trial)
    public void setUp() {
      page = shape.page();
      list = ServerWire.lz4Blocks(ServerWire.encode(page, lz4Encoding), lz4Encoding);
      blocks = new ByteBuf[list.size()];
      lengths = new int[list.size()];
      for (int i = 0; i < blocks.length; i++) {
        // direct, as the decoders' cumulation buffers from the channel's allocator
        byte[] b = list.get(i).bytes();
        blocks[i] = ByteBufAllocator.DEFAULT.directBuffer(b.length, b.length).writeBytes(b);
        lengths[i] = list.get(i).uncompressedLength();
      }
    }

    ByteBuf decompress(int i) {
      return lz4Encoding == Encoding.V4_LZ4
          ? Decompressors.lz4Body(ByteBufAllocator.DEFAULT, blocks[i], Integer.MAX_VALUE)
          : Decompressors.lz4Block(ByteBufAllocator.DEFAULT, blocks[i], lengths[i]);
    }

    /** Every block decompresses to the bytes of the envelope it was cut from. */
    @TearDown(Level.Trial)
    public void check() {
      try {
        byte[] envelope = ServerWire.envelope(lz4Encoding.version, 0, page.bytes);
        long total = 0;
        for (int i = 0; i < blocks.length; i++) {
          ByteBuf out = decompress(i);
          try {
            int from = list.get(i).envelopeOffset();
            byte[] bytes = ByteBufUtil.getBytes(out);
            total += bytes.length;
            if (!Arrays.equals(bytes, 0, bytes.length, envelope, from, from + bytes.length)) {
              throw new IllegalStateException(
                  "lz4DecompressOnly "
                      + lz4Encoding
                      + " on "
                      + shape
                      + ": block "
                      + i
                      + " differs from the envelope");
            }
          } finally {
            out.release();
          }
        }
        if (total == 0 ? decompressed != 0 : decompressed % total != 0) {
          throw new IllegalStateException(
              "lz4DecompressOnly "
                  + lz4Encoding
                  + " on "
                  + shape
                  + ": "
                  + decompressed
                  + " bytes decompressed, not whole pages of "
                  + total);
        }
      } finally {
        release(blocks);
      }
    }
  }

  /**
   * The LZ4 decompression of one page's blocks alone ({@link Decompressors}, into buffers of {@link
   * ByteBufAllocator#DEFAULT}, released at once as the pipeline does after parsing).
   */
  @Benchmark
  public long lz4DecompressOnly(Lz4Blocks b) {
    long bytes = 0;
    long lastBytes = 0;
    for (int i = 0; i < b.blocks.length; i++) {
      ByteBuf out = b.decompress(i);
      bytes += out.readableBytes();
      lastBytes += out.getByte(out.writerIndex() - 1);
      out.release();
    }
    b.decompressed += bytes;
    return bytes + lastBytes;
  }

  /** The payloads of a page's uncompressed v5 segments, in direct buffers like the reads. */
  @State(Scope.Thread)
  public static class SegmentPayloads {
    @Param({"VECTOR_1536F", "VECTOR_768F"})
    public RowsShape shape;

    ByteBuf[] payloads;

    /** The same payloads as heap arrays, for {@link #v5Crc32HeapArrays}. */
    byte[][] arrays;

    int[] crcs;
    long checked;

    @Setup(Level.Trial)
    public void setUp() {
      byte[] wire = ServerWire.encode(shape.page(), Encoding.V5);
      List<ByteBuf> list = new java.util.ArrayList<>();
      List<Integer> crcList = new java.util.ArrayList<>();
      ByteBuf in = Unpooled.wrappedBuffer(wire);
      for (int at = 0; at < wire.length; ) {
        int length = in.getUnsignedMediumLE(at) & 0x1FFFF;
        list.add(
            ByteBufAllocator.DEFAULT.directBuffer(length, length).writeBytes(wire, at + 6, length));
        crcList.add(in.getIntLE(at + 6 + length));
        at += 6 + length + 4;
      }
      payloads = list.toArray(new ByteBuf[0]);
      crcs = crcList.stream().mapToInt(Integer::intValue).toArray();
      arrays = new byte[payloads.length][];
      for (int i = 0; i < payloads.length; i++) {
        arrays[i] = ByteBufUtil.getBytes(payloads[i]);
      }
    }

    /** The CRC32 of every payload, seeded as v5 does, equals its trailer. */
    @TearDown(Level.Trial)
    public void check() {
      try {
        if (checked > 0) {
          for (int i = 0; i < payloads.length; i++) {
            if (segmentCrc32(payloads[i]) != crcs[i]
                || segmentCrc32(arrays[i], CRC32_CHUNK) != crcs[i]
                || segmentCrc32(arrays[i], arrays[i].length) != crcs[i]) {
              throw new IllegalStateException(
                  "v5Crc32Only on " + shape + ": segment " + i + " CRC32 differs from its trailer");
            }
          }
        }
      } finally {
        release(payloads);
      }
    }
  }

  /**
   * The CRC32 of every v5 segment payload of the page alone, as {@code BytesToSegmentDecoder}
   * checks it ({@link java.util.zip.CRC32} seeded with {@code FA 2D 55 CA}): the part of the v5
   * figures that the protocol's checksum costs.
   */
  @Benchmark
  public long v5Crc32Only(SegmentPayloads s) {
    long sum = 0;
    for (ByteBuf payload : s.payloads) {
      sum += segmentCrc32(payload);
    }
    s.checked++;
    return sum;
  }

  /**
   * The same CRC32 over heap copies of the payloads, each in one {@code update(byte[], ...)}:
   * whether the JDK's checksum runs faster on a heap array than on a direct {@code ByteBuffer}.
   */
  @Benchmark
  public long v5Crc32HeapArrays(SegmentPayloads s) {
    long sum = 0;
    for (byte[] payload : s.arrays) {
      sum += segmentCrc32(payload, payload.length);
    }
    s.checked++;
    return sum;
  }

  /**
   * The same over the heap copies in {@link #CRC32_CHUNK}-byte updates, as a checksum fed per read
   * would be: what the chunk size costs.
   */
  @Benchmark
  public long v5Crc32HeapChunks(SegmentPayloads s) {
    long sum = 0;
    for (byte[] payload : s.arrays) {
      sum += segmentCrc32(payload, CRC32_CHUNK);
    }
    s.checked++;
    return sum;
  }

  private static final byte[] CRC32_SEED = {(byte) 0xFA, (byte) 0x2D, (byte) 0x55, (byte) 0xCA};
  private static final int CRC32_CHUNK = 4096;

  static int segmentCrc32(byte[] payload, int chunk) {
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(CRC32_SEED);
    for (int at = 0; at < payload.length; at += chunk) {
      crc.update(payload, at, Math.min(chunk, payload.length - at));
    }
    return (int) crc.getValue();
  }

  static int segmentCrc32(ByteBuf payload) {
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(CRC32_SEED);
    crc.update(payload.nioBuffer());
    return (int) crc.getValue();
  }

  /** The wire bytes as reads of {@link #READ_BYTES}, each in its own buffer. */
  static ByteBuf[] reads(byte[] wire, boolean direct) {
    int n = (wire.length + READ_BYTES - 1) / READ_BYTES;
    ByteBuf[] reads = new ByteBuf[n];
    for (int i = 0; i < n; i++) {
      int from = i * READ_BYTES;
      int length = Math.min(READ_BYTES, wire.length - from);
      reads[i] =
          direct
              ? ByteBufAllocator.DEFAULT.directBuffer(length, length).writeBytes(wire, from, length)
              : Unpooled.wrappedBuffer(Arrays.copyOfRange(wire, from, from + length));
    }
    return reads;
  }

  /** Releases buffers the trial allocated, which must hold exactly that one reference. */
  static void release(ByteBuf[] buffers) {
    String leaked = null;
    for (ByteBuf b : buffers) {
      if (b.refCnt() != 1 && leaked == null) {
        leaked = "refCnt " + b.refCnt() + " (expected: 1) of " + b;
      }
      if (b.refCnt() > 0) {
        b.release(b.refCnt());
      }
    }
    if (leaked != null) {
      throw new IllegalStateException(leaked);
    }
  }
}
