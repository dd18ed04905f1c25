package io.cqlrows.netty.request;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.PagingState;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.BytesToSegmentDecoder;
import io.cqlrows.netty.internal.Segment;
import io.cqlrows.netty.internal.SegmentFormat;
import io.cqlrows.netty.internal.SegmentWriter;
import io.cqlrows.testing.Corpus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Golden bytes: every OPTIONS, STARTUP, QUERY, PREPARE and EXECUTE the Java driver 4.19.2 sent in
 * the corpus captures is encoded again from its decoded fields and compared with the recorded
 * bytes. On v4 the whole envelope must be identical, LZ4 bodies included (the driver uses the same
 * LZ4 fast compressor), but for the tracing flag 0x02 of the one traced query ({@link Requests}
 * never asks for tracing). On v5 the driver also sets the deprecated compression flag 0x01 on
 * envelopes when LZ4 is on, which {@link Requests} does not: there everything but that flag must be
 * identical, and every client segment must be identical when written again from its payload.
 */
class RequestsCorpusTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
  private static final Set<Opcode> ENCODED =
      Set.of(Opcode.OPTIONS, Opcode.STARTUP, Opcode.QUERY, Opcode.PREPARE, Opcode.EXECUTE);

  /** One recorded request: its decoded fields and its envelope with flags as sent. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  private record Recorded(DecodedRequest request, byte[] envelope) {}

  /** The first test query of a-v4 and d-v4-lz4, with the parameters the driver used, by hand. */
  @ParameterizedTest
  @CsvSource({"a-v4, NONE, 312, 0x00066178e32663c4", "d-v4-lz4, LZ4, 336, 0x00066178e499a4c9"})
  void theFirstScalarsQueryIsTheDriversByteForByte(
      String capture, Compression compression, int offset, String timestamp) {
    byte[] file = Corpus.bytes(capture, "conn-01.c2s.bin");
    QueryParameters p =
        QueryParameters.of(Consistency.LOCAL_ONE)
            .withPageSize(5000)
            .withDefaultTimestamp(Long.decode(timestamp));
    ByteBuf query = new Requests(4, compression).query(ALLOC, 0, "SELECT * FROM corpus.scalars", p);
    try {
      byte[] expected = Arrays.copyOfRange(file, offset, offset + query.readableBytes());
      assertEquals(ByteBufUtil.hexDump(expected), ByteBufUtil.hexDump(query));
      assertEquals(query.readableBytes(), 9 + ByteBuffer.wrap(expected, 5, 4).getInt());
    } finally {
      query.release();
    }
  }

  @ParameterizedTest
  @CsvSource({
    "a-v4, 4, NONE",
    "d-v4-lz4, 4, LZ4",
    "e-v4-paging, 4, NONE",
    "b-v5, 5, NONE",
    "c-v5-lz4, 5, LZ4",
    "e-v5-paging, 5, NONE"
  })
  void everyRequestOfTheDriverEncodesToTheSameBytes(
      String capture, int version, Compression compression) {
    Requests requests = new Requests(version, compression);
    int compared = 0;
    for (int conn = 0; conn < 2; conn++) {
      for (Recorded r : recorded(capture, conn)) {
        DecodedRequest d = r.request();
        if (!ENCODED.contains(d.opcode())) {
          continue;
        }
        byte[] expected = r.envelope();
        expected[1] &= (byte) ~Frame.FLAG_TRACING; // one query is traced; Requests never traces
        if (version >= 5) {
          expected[1] &= (byte) ~Frame.FLAG_COMPRESSION; // deprecated, set by the driver
        }
        assertEquals(
            ByteBufUtil.hexDump(expected),
            encode(requests, d),
            capture + " conn " + conn + ": " + d.opcode() + " " + d.query());
        compared++;
      }
    }
    long listed =
        Corpus.jsonLines(capture, "frames.jsonl").stream()
            .filter(f -> "c2s".equals(f.get("dir").asText()))
            .filter(f -> ENCODED.contains(Opcode.valueOf(f.get("opcode").asText())))
            .count();
    assertEquals(listed, compared, "requests compared");
  }

  @ParameterizedTest
  @CsvSource({"b-v5, UNCOMPRESSED", "c-v5-lz4, LZ4", "e-v5-paging, UNCOMPRESSED"})
  void everyClientSegmentIsWrittenAgainByteForByte(String capture, SegmentFormat format) {
    List<JsonNode> segments = Corpus.jsonLines(capture, "segments.jsonl");
    int compared = 0;
    for (int conn = 0; conn < 2; conn++) {
      byte[] file = Corpus.bytes(capture, "conn-0" + conn + ".c2s.bin");
      for (JsonNode s : segments) {
        if (s.get("conn").asInt() != conn || !"c2s".equals(s.get("dir").asText())) {
          continue;
        }
        int from = s.get("file_offset").asInt();
        int length = s.get("header_length").asInt() + s.get("payload_length").asInt() + 4;
        byte[] recorded = Arrays.copyOfRange(file, from, from + length);
        assertEquals(
            ByteBufUtil.hexDump(recorded), rewrite(recorded, format), capture + " segment " + s);
        compared++;
      }
    }
    assertEquals(
        Corpus.jsonLines(capture, "segments.jsonl").stream()
            .filter(s -> "c2s".equals(s.get("dir").asText()))
            .count(),
        compared);
  }

  /** Decodes one recorded segment and writes its payload again. */
  private static String rewrite(byte[] recorded, SegmentFormat format) {
    EmbeddedChannel channel = new EmbeddedChannel(new BytesToSegmentDecoder(format, 0));
    channel.writeInbound(Unpooled.wrappedBuffer(recorded));
    Segment segment = channel.readInbound();
    ByteBuf again = SegmentWriter.encode(ALLOC, segment.payload(), segment.selfContained(), format);
    try {
      return ByteBufUtil.hexDump(again);
    } finally {
      again.release();
      segment.release();
      channel.finishAndReleaseAll();
    }
  }

  /** The request encoded again from its fields, as hex. */
  private static String encode(Requests requests, DecodedRequest d) {
    ByteBuf out;
    switch (d.opcode()) {
      case OPTIONS:
        out = requests.options(ALLOC, d.streamId());
        break;
      case STARTUP:
        out = requests.startup(ALLOC, d.streamId(), d.options());
        break;
      case QUERY:
        out = requests.query(ALLOC, d.streamId(), d.query(), parameters(d));
        break;
      case PREPARE:
        out = requests.prepare(ALLOC, d.streamId(), d.query());
        break;
      default:
        out =
            requests.execute(
                ALLOC,
                d.streamId(),
                hex(d.id()),
                d.resultMetadataId() == null ? null : hex(d.resultMetadataId()),
                parameters(d));
        break;
    }
    try {
      return ByteBufUtil.hexDump(out);
    } finally {
      out.release();
    }
  }

  private static QueryParameters parameters(DecodedRequest d) {
    List<ByteBuffer> values = new ArrayList<>();
    for (String v : d.values()) {
      values.add(
          "NULL".equals(v)
              ? null
              : "UNSET".equals(v) ? QueryParameters.UNSET : ByteBuffer.wrap(hex(v)));
    }
    QueryParameters p =
        QueryParameters.of(Consistency.fromCode(d.consistency()))
            .withValues(values)
            .withPageSize(d.pageSize())
            .withSkipMetadata((d.flags() & QueryParameters.FLAG_SKIP_METADATA) != 0)
            .withPagingState(d.pagingState() == null ? null : PagingState.of(hex(d.pagingState())));
    if (d.serialConsistency() >= 0) {
      p = p.withSerialConsistency(Consistency.fromCode(d.serialConsistency()));
    }
    if (d.timestamp() != null) {
      p = p.withDefaultTimestamp(d.timestamp());
    }
    assertEquals(d.flags(), p.flags(), "the driver used only flags QueryParameters writes");
    return p;
  }

  /**
   * The client-to-server requests of one connection, in order: decoded by the detecting frame
   * decoder (which switches to segments on a v5 STARTUP), each with its envelope as recorded (v4)
   * or as carried in its segments (v5: header and uncompressed body).
   */
  private static List<Recorded> recorded(String capture, int conn) {
    byte[] file = Corpus.bytes(capture, "conn-0" + conn + ".c2s.bin");
    List<JsonNode> lines = new ArrayList<>();
    for (JsonNode line : Corpus.jsonLines(capture, "frames.jsonl")) {
      if (line.get("conn").asInt() == conn && "c2s".equals(line.get("dir").asText())) {
        lines.add(line);
      }
    }
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlDecoders.detecting(channel.pipeline(), ParseLimits.defaults());
    channel.writeInbound(Unpooled.wrappedBuffer(file));
    channel.checkException();
    List<Recorded> out = new ArrayList<>();
    for (JsonNode line : lines) {
      Frame frame = channel.readInbound();
      try {
        out.add(new Recorded(DecodedRequest.decode(frame), envelope(file, line, frame)));
      } finally {
        frame.release();
      }
    }
    assertEquals(false, channel.finish(), "as many frames as frames.jsonl lists");
    return out;
  }

  private static byte[] envelope(byte[] file, JsonNode line, Frame frame) {
    if (line.has("file_offset")) {
      int from = line.get("file_offset").asInt();
      return Arrays.copyOfRange(file, from, from + 9 + line.get("length").asInt());
    }
    // inside segments: the header and the body (requests carry no prelude)
    ByteBuf env = Unpooled.buffer();
    env.writeByte(frame.version())
        .writeByte(frame.flags())
        .writeShort(frame.streamId())
        .writeByte(frame.opcode().code())
        .writeInt(frame.body().readableBytes())
        .writeBytes(frame.body(), frame.body().readerIndex(), frame.body().readableBytes());
    return ByteBufUtil.getBytes(env);
  }

  private static byte[] hex(String hex) {
    return ByteBufUtil.decodeHexDump(hex);
  }
}
