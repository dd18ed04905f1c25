package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CorpusAssertions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays every server-to-client capture of the corpus (v4, v5, v5 with LZ4 segments, v4 with LZ4
 * bodies, paging) through the Netty decoders, which detect framing and compression by themselves,
 * and compares every ROWS result with the Java driver's decoding, value by value. The same bytes
 * fed whole, in seeded random splits and (for the small captures) one byte at a time must give
 * identical output.
 *
 * <p>{@code No_metadata} results are decoded with the columns of the PREPARED result earlier in the
 * stream; which statement an EXECUTE ran comes from the corpus's {@code request.prepared_id}, since
 * this test reads the server-to-client bytes only ({@code ConnectionReplayTest} reads both
 * directions).
 */
class CorpusPipelineTest {
  private static final String[] CAPTURES = {
    "a-v4", "b-v5", "c-v5-lz4", "d-v4-lz4", "e-v4-paging", "e-v5-paging"
  };

  /** Byte-at-a-time feeding only for captures up to this size (it costs one write per byte). */
  private static final int BYTE_BY_BYTE_MAX = 64 * 1024;

  /** Input chunks for split feeding: not leak-tracked, so a million one-byte writes stay fast. */
  private static final ByteBufAllocator INPUT = new UnpooledByteBufAllocator(false, true);

  static Stream<Arguments> connections() {
    List<Arguments> out = new ArrayList<>();
    for (String capture : CAPTURES) {
      out.add(Arguments.of(capture, "conn-00"));
      out.add(Arguments.of(capture, "conn-01"));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("connections")
  void everyRowsResultEqualsTheDriversDecoding(String capture, String conn) {
    List<JsonNode> expected = CorpusAssertions.expectedResults(capture, conn);
    byte[] bytes = Corpus.bytes(capture, conn + ".s2c.bin");
    List<String> whole = replay(bytes, expected, new int[] {bytes.length}, true);
    assertEquals(expected.size(), whole.size(), "ROWS results");
    for (int i = 0; i < expected.size(); i++) {
      CorpusAssertions.assertSameResult(expected.get(i), Corpus.json(whole.get(i)));
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("connections")
  void splitsOfTheInputGiveIdenticalOutput(String capture, String conn) {
    List<JsonNode> expected = CorpusAssertions.expectedResults(capture, conn);
    byte[] bytes = Corpus.bytes(capture, conn + ".s2c.bin");
    List<String> whole = replay(bytes, expected, new int[] {bytes.length}, true);
    int[] coarse = randomSplits(bytes.length, 1, 4096);
    assertEquals(whole, replay(bytes, expected, coarse, true), "coarse");
    int[] fine = randomSplits(bytes.length, 2, 97);
    assertEquals(whole, replay(bytes, expected, fine, false), "fine");
    if (bytes.length <= BYTE_BY_BYTE_MAX) {
      int[] ones = new int[bytes.length];
      java.util.Arrays.fill(ones, 1);
      assertEquals(whole, replay(bytes, expected, ones, false), "byte by byte");
    }
  }

  private static int[] randomSplits(int total, long seed, int maxChunk) {
    Random random = new Random(seed);
    List<Integer> sizes = new ArrayList<>();
    for (int left = total; left > 0; ) {
      int n = Math.min(left, 1 + random.nextInt(maxChunk));
      sizes.add(n);
      left -= n;
    }
    return sizes.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Feeds the capture in chunks of the given sizes; returns one JSON line per ROWS result.
   *
   * @param tracked whether the channel allocates leak-tracked buffers; paranoid tracking records a
   *     stack trace per buffer access, which makes tens of thousands of tiny writes take seconds
   */
  private static List<String> replay(
      byte[] bytes, List<JsonNode> expected, int[] chunks, boolean tracked) {
    Collector collector = new Collector(expected);
    EmbeddedChannel channel = new EmbeddedChannel();
    if (!tracked) {
      channel.config().setAllocator(INPUT);
    }
    CqlDecoders.detecting(channel.pipeline(), ParseLimits.defaults());
    channel.pipeline().addLast(collector);
    int at = 0;
    for (int n : chunks) {
      channel.writeInbound(INPUT.buffer(n).writeBytes(bytes, at, n));
      at += n;
    }
    assertFalse(channel.finishAndReleaseAll());
    assertNull(collector.error, () -> "replay failed: " + collector.error);
    return collector.lines;
  }

  /** Decodes RESULT frames as a driver would, and renders ROWS results as JSON lines. */
  private static final class Collector extends ChannelInboundHandlerAdapter {
    private final List<JsonNode> expected;
    private final List<String> lines = new ArrayList<>();
    private final Map<String, ResultColumns> prepared = new HashMap<>();
    private final StringBuilder line = new StringBuilder();
    private final JsonLinesSink sink = new JsonLinesSink(line);
    private ResultReader reader;
    private Throwable error;

    Collector(List<JsonNode> expected) {
      this.expected = expected;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Frame frame = (Frame) msg;
      try {
        if (reader == null) {
          reader = new ResultReader(frame.version());
        }
        if (frame.opcode() == Opcode.RESULT) {
          read(frame);
        }
      } finally {
        frame.release();
      }
    }

    private void read(Frame frame) {
      ByteBuf body = frame.body();
      ResultColumns columns = null;
      if (body.getInt(body.readerIndex()) == RowsResult.KIND
          && (body.getInt(body.readerIndex() + 4) & 0x0004) != 0) {
        String id = expected.get(lines.size()).get("request").get("prepared_id").asText();
        columns = prepared.get(id);
        assertNotNull(columns, "PREPARED result for " + id);
      }
      line.setLength(0);
      sink.setLeadingMembers("\"stream\":" + frame.streamId());
      CqlResult result = reader.read(body, sink, columns);
      if (result instanceof PreparedResult p) {
        prepared.put("0x" + ByteBufUtil.hexDump(p.id()), p.resultColumns());
      } else if (result instanceof RowsResult rows) {
        if (rows.metadata().metadataChanged()) {
          // v5: the statement's result columns changed; later EXECUTEs use the new ones
          String id = expected.get(lines.size()).get("request").get("prepared_id").asText();
          prepared.put(id, rows.metadata().columns());
        }
        lines.add(line.toString());
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (error == null) {
        error = cause;
      }
    }
  }
}
