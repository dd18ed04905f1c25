package io.cqlrows.capture.replay;

import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the parts of request bodies a replay needs (native_protocol_v5.spec section 4.1): the
 * {@code [long string]} of QUERY and PREPARE, the {@code [short bytes]} id and flags of EXECUTE
 * (after its {@code result_metadata_id} on v5, or on v4 with {@link
 * ProtocolFeatures#SCYLLA_USE_METADATA_ID}), the statements of a BATCH, the {@code [string map]} of
 * STARTUP. Everything is bounds-checked; a request that cannot be read yields a {@link Request}
 * with what could be read (requests only label results, they never decide how bytes are decoded).
 * Stateless.
 */
final class RequestReader {
  /** EXECUTE/QUERY flag: skip_metadata. */
  private static final int SKIP_METADATA = 0x02;

  private RequestReader() {}

  /**
   * The request in a frame. The frame is borrowed.
   *
   * @param features the extensions of the connection, from its STARTUP
   */
  static Request read(Frame frame, ProtocolFeatures features, long timestampNanos) {
    ByteBuf b = frame.body().duplicate();
    Opcode op = frame.opcode();
    int stream = frame.streamId();
    try {
      switch (op) {
        case QUERY:
        case PREPARE:
          return new Request(
              stream, op, longString(b), null, false, Map.of(), List.of(), timestampNanos);
        case EXECUTE:
          return execute(frame, b, features, timestampNanos);
        case BATCH:
          return new Request(stream, op, null, null, false, Map.of(), batch(b), timestampNanos);
        case STARTUP:
          return new Request(
              stream, op, null, null, false, stringMap(b), List.of(), timestampNanos);
        default:
          return new Request(stream, op, null, null, false, Map.of(), List.of(), timestampNanos);
      }
    } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
      // a truncated or malformed request body: keep what identifies the request
      return new Request(stream, op, null, null, false, Map.of(), List.of(), timestampNanos);
    }
  }

  private static Request execute(
      Frame frame, ByteBuf b, ProtocolFeatures features, long timestampNanos) {
    String id = "0x" + ByteBufUtil.hexDump(shortBytes(b));
    if (features.hasResultMetadataId(frame.version())) {
      shortBytes(b); // result_metadata_id
    }
    b.skipBytes(2); // consistency
    int flags = frame.version() >= 5 ? b.readInt() : b.readUnsignedByte();
    return new Request(
        frame.streamId(),
        Opcode.EXECUTE,
        null,
        id,
        (flags & SKIP_METADATA) != 0,
        Map.of(),
        List.of(),
        timestampNanos);
  }

  /**
   * The statements of a BATCH body: {@code <type><n><query_1>...<query_n>}, each query {@code
   * <kind><string_or_id><n><value_1>...<value_n>} (kind 0: a {@code [long string]}, 1: a {@code
   * [short bytes]} id). Values are skipped; the consistency and flags after the queries are not
   * read.
   */
  private static List<Request.BatchStatement> batch(ByteBuf b) {
    b.skipBytes(1); // type
    int n = b.readUnsignedShort();
    List<Request.BatchStatement> out = new ArrayList<>(Math.min(n, 64));
    for (int i = 0; i < n; i++) {
      int kind = b.readUnsignedByte();
      if (kind == 0) {
        out.add(new Request.BatchStatement(longString(b), null));
      } else if (kind == 1) {
        out.add(new Request.BatchStatement(null, "0x" + ByteBufUtil.hexDump(shortBytes(b))));
      } else {
        throw new IllegalArgumentException("batch query kind " + kind);
      }
      int values = b.readUnsignedShort();
      for (int v = 0; v < values; v++) {
        int length = b.readInt();
        if (length > 0) {
          check(length, b);
          b.skipBytes(length);
        }
      }
    }
    return out;
  }

  private static String longString(ByteBuf b) {
    int n = b.readInt();
    check(n, b);
    return b.readCharSequence(n, StandardCharsets.UTF_8).toString();
  }

  private static ByteBuf shortBytes(ByteBuf b) {
    int n = b.readUnsignedShort();
    check(n, b);
    return b.readSlice(n);
  }

  private static Map<String, String> stringMap(ByteBuf b) {
    int n = b.readUnsignedShort();
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      map.put(string(b), string(b));
    }
    return map;
  }

  private static String string(ByteBuf b) {
    int n = b.readUnsignedShort();
    check(n, b);
    return b.readCharSequence(n, StandardCharsets.UTF_8).toString();
  }

  private static void check(int n, ByteBuf b) {
    if (n < 0 || n > b.readableBytes()) {
      throw new IllegalArgumentException("length " + n + " beyond the body");
    }
  }
}
