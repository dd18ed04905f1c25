package io.cqlrows.capture.replay;

import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the parts of request bodies a replay needs (native_protocol_v5.spec section 4.1): the
 * {@code [long string]} of QUERY and PREPARE, the {@code [short bytes]} id and flags of EXECUTE
 * (after its {@code result_metadata_id} on v5, or on v4 with {@link
 * ProtocolFeatures#SCYLLA_USE_METADATA_ID}), the {@code [string map]} of STARTUP. Everything is
 * bounds-checked; a request that cannot be read yields a {@link Request} with what could be read
 * (requests only label results, they never decide how bytes are decoded). Stateless.
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
  static Request read(Frame frame, ProtocolFeatures features) {
    ByteBuf b = frame.body().duplicate();
    Opcode op = frame.opcode();
    try {
      switch (op) {
        case QUERY:
        case PREPARE:
          return new Request(frame.streamId(), op, longString(b), null, false, Map.of());
        case EXECUTE:
          return execute(frame, b, features);
        case STARTUP:
          return new Request(frame.streamId(), op, null, null, false, stringMap(b));
        default:
          return new Request(frame.streamId(), op, null, null, false, Map.of());
      }
    } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
      // a truncated or malformed request body: keep what identifies the request
      return new Request(frame.streamId(), op, null, null, false, Map.of());
    }
  }

  private static Request execute(Frame frame, ByteBuf b, ProtocolFeatures features) {
    String id = "0x" + ByteBufUtil.hexDump(shortBytes(b));
    if (features.hasResultMetadataId(frame.version())) {
      shortBytes(b); // result_metadata_id
    }
    b.skipBytes(2); // consistency
    int flags = frame.version() >= 5 ? b.readInt() : b.readUnsignedByte();
    return new Request(
        frame.streamId(), Opcode.EXECUTE, null, id, (flags & SKIP_METADATA) != 0, Map.of());
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
