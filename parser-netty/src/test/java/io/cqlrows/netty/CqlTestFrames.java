package io.cqlrows.netty;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Test helpers: frame bytes built by hand, and the a-v4 corpus from parser-core's test-jar. */
public final class CqlTestFrames {
  /** Classpath folder of the a-v4 capture. */
  public static final String A_V4 = "/io/cqlrows/corpus/a-v4/";

  private static final ObjectMapper JSON = new ObjectMapper();

  private CqlTestFrames() {}

  /**
   * A frame: the 9-byte header (length = body size) and the body, in a new buffer that the caller
   * owns and releases.
   */
  public static ByteBuf frame(int versionByte, int flags, int streamId, int opcode, byte[] body) {
    ByteBuf buf = Unpooled.buffer(9 + body.length);
    buf.writeByte(versionByte).writeByte(flags).writeShort(streamId).writeByte(opcode);
    buf.writeInt(body.length).writeBytes(body);
    return buf;
  }

  /** The bytes of a frame built by {@link #frame}. */
  public static byte[] frameBytes(
      int versionByte, int flags, int streamId, int opcode, byte[] body) {
    ByteBuf buf = frame(versionByte, flags, streamId, opcode, body);
    try {
      byte[] out = new byte[buf.readableBytes()];
      buf.readBytes(out);
      return out;
    } finally {
      buf.release();
    }
  }

  /** A classpath resource of the a-v4 capture. */
  public static byte[] corpusBytes(String name) {
    try (InputStream in = CqlTestFrames.class.getResourceAsStream(A_V4 + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + A_V4 + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The lines of an a-v4 {@code .jsonl} file whose {@code conn} is {@code conn}. */
  public static List<JsonNode> corpusLines(String name, int conn) {
    List<JsonNode> lines = new ArrayList<>();
    try (InputStream in = CqlTestFrames.class.getResourceAsStream(A_V4 + name);
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line; (line = reader.readLine()) != null; ) {
        JsonNode node = JSON.readTree(line);
        if (node.path("conn").asInt(-1) == conn) {
          lines.add(node);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lines;
  }

  /** Parses one line of JSON. */
  public static JsonNode json(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
