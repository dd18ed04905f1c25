package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.internal.Compressors;
import io.cqlrows.netty.internal.SegmentEncoder;
import io.cqlrows.netty.internal.SegmentFormat;
import io.cqlrows.netty.rows.RowsResponse;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A page of {@code vector<float, 1536>} rows (about 1 MiB) through {@link CqlPipeline} into a
 * {@link ColumnarSink}, as v4 frames (with and without LZ4) and v5 segments (with and without LZ4),
 * read in socket-sized, odd, tiny and mixed pieces from heap and direct buffers: the decoders keep
 * the reads of large uncompressed frames and segments (the parser then reads a body over many
 * buffers) and copy small reads and compressed ones into buffers sized for them, and on v5 the
 * parser reads vectors that straddle segments. Every element must come out as sent, for two
 * responses in a row whose bytes share a read.
 */
class LargePagePipelineTest {
  private static final int ROWS = 170;
  private static final int DIMENSION = 1536;
  private static final String VECTOR =
      "org.apache.cassandra.db.marshal.VectorType("
          + "org.apache.cassandra.db.marshal.FloatType, "
          + DIMENSION
          + ")";

  @ParameterizedTest(name = "v{0} {1}, reads of {2}, direct {3}")
  @CsvSource({
    "4, NONE, 65536, false",
    "4, NONE, 65536, true",
    "4, NONE, 65537, false",
    "4, NONE, 999, false",
    "4, LZ4, 65536, false",
    "4, LZ4, 65536, true",
    "5, NONE, 65536, false",
    "5, NONE, 65536, true",
    "5, NONE, 70001, false",
    "5, NONE, 999, false",
    "5, LZ4, 65536, false",
    "5, LZ4, 65536, true",
    "4, NONE, -1, true",
    "4, LZ4, -1, false",
    "5, NONE, -1, true",
    "5, NONE, -1, false",
    "5, LZ4, -1, true"
  })
  void aLargeVectorPageArrivesWholeFromAnyReads(
      int version, Compression compression, int readSize, boolean direct) {
    float[] vectors = new float[ROWS * DIMENSION];
    Random random = new Random(version * 31L + readSize);
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = (float) random.nextGaussian();
    }
    byte[] body = rowsBody(vectors);
    // two responses back to back: the second starts in the read that ends the first
    byte[] stream =
        concat(wire(version, compression, body, 1), wire(version, compression, body, 2));

    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline rows =
        CqlPipeline.install(channel.pipeline(), version, compression, ParseLimits.defaults(), null);
    if (version >= 5) {
      rows.switchToSegments();
    }
    ColumnarSink[] sinks = {new ColumnarSink(), new ColumnarSink().reuseArrays(true)};
    rows.expect(1, sinks[0]);
    rows.expect(2, sinks[1]);
    // readSize -1: reads of 1 byte to 100 KB, in buffers up to four times their size
    Random reads = new Random(readSize * 7L + version);
    for (int at = 0, n; at < stream.length; at += n) {
      n =
          Math.min(
              readSize > 0 ? readSize : 1 + reads.nextInt(reads.nextBoolean() ? 300 : 100_000),
              stream.length - at);
      int capacity = readSize > 0 ? n : n * (1 + reads.nextInt(4));
      ByteBuf read =
          direct
              ? ByteBufAllocator.DEFAULT.directBuffer(capacity)
              : ByteBufAllocator.DEFAULT.heapBuffer(capacity);
      channel.writeInbound(read.writeBytes(stream, at, n));
    }
    for (int page = 0; page < 2; page++) {
      RowsResponse response =
          assertInstanceOf(RowsResponse.class, channel.readInbound(), "page " + page);
      assertEquals(page + 1, response.streamId());
      assertEquals(ROWS, assertInstanceOf(RowsResult.class, response.result()).rowCount());
      ColumnarSink sink = sinks[page];
      assertEquals(ROWS, sink.rowCount());
      for (int r = 0; r < ROWS; r++) {
        assertEquals(r * 7919, sink.column(0).ints()[r], "id of row " + r);
      }
      assertArrayEquals(
          vectors,
          java.util.Arrays.copyOf(sink.column(1).floats(), vectors.length),
          "page " + page);
    }
    assertFalse(channel.finishAndReleaseAll());
  }

  /** A ROWS body: {@code id int, v vector<float, 1536>}, global table spec. */
  private static byte[] rowsBody(float[] vectors) {
    CqlBytes b =
        CqlBytes.create()
            .int32(2)
            .int32(1)
            .int32(2)
            .string("ks")
            .string("t")
            .columnSpec("id", 0x09)
            .customColumnSpec("v", VECTOR)
            .int32(ROWS);
    for (int r = 0; r < ROWS; r++) {
      b.int32(4).int32(r * 7919).int32(DIMENSION * 4);
      for (int i = 0; i < DIMENSION; i++) {
        b.int32(Float.floatToRawIntBits(vectors[r * DIMENSION + i]));
      }
    }
    return b.toArray();
  }

  /** The RESULT response on {@code stream} as the server writes it. */
  private static byte[] wire(int version, Compression compression, byte[] body, int stream) {
    if (version == 4) {
      byte[] onWire = body;
      if (compression == Compression.LZ4) {
        ByteBuf c = Compressors.lz4Body(ByteBufAllocator.DEFAULT, Unpooled.wrappedBuffer(body));
        onWire = ByteBufUtil.getBytes(c);
        c.release();
      }
      return CqlTestFrames.frameBytes(
          0x84, compression == Compression.LZ4 ? Frame.FLAG_COMPRESSION : 0, stream, 0x08, onWire);
    }
    EmbeddedChannel server =
        new EmbeddedChannel(
            new SegmentEncoder(
                compression == Compression.LZ4 ? SegmentFormat.LZ4 : SegmentFormat.UNCOMPRESSED));
    server.writeOutbound(CqlTestFrames.frame(0x85, 0, stream, 0x08, body));
    List<byte[]> segments = new ArrayList<>();
    for (ByteBuf s; (s = server.readOutbound()) != null; ) {
      segments.add(ByteBufUtil.getBytes(s));
      s.release();
    }
    assertFalse(server.finishAndReleaseAll());
    return concat(segments.toArray(new byte[0][]));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
